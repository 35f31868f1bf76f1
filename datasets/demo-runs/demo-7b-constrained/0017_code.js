// Change the service level of shipment sh_5001 to standard.
const axios = require('axios');

axios.patch('https://api.harbor.example/v2/shipments/sh_5001', {
  service_level: 'standard'
}, {
  headers: {
    Authorization: 'Bearer <token>',
    'Content-Type': 'application/json'
  }
})
  .then((response) => console.log(response.data))
  .catch((error) => console.error(error));
