// Subscribe https://hooks.example.com/harbor to delivered and cancelled shipment events with the secret "s3cr3t-signing-key-42".
const axios = require('axios');

axios.post('https://api.harbor.example/v2/webhooks', {
  url: 'https://hooks.example.com/harbor',
  events: [
    'shipment.delivered',
    'shipment.cancelled'
  ],
  secret: 's3cr3t-signing-key-42'
}, {
  headers: {
    Authorization: 'Bearer <token>',
    'Content-Type': 'application/json'
  }
})
  .then((response) => console.log(response.data))
  .catch((error) => console.error(error));
