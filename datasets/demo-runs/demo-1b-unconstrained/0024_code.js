// Subscribe https://hooks.example.com/harbor to delivered and cancelled shipment events with the secret "s3cr3t-signing-key-42".
const axios = require('axios');

// Register the webhook with the Harbor API here.
