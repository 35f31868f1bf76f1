// Cancel shipment sh_7002.
const axios = require('axios');

axios.post('https://api.harbor.example/v2/shipments/sh_7002/cancel', {
  note: 'no longer needed'
}, {
  headers: {
    Authorization: 'Bearer <token>',
    'Content-Type': 'application/json'
  }
})
  .then((response) => console.log(response.data))
  .catch((error) => console.error(error));
