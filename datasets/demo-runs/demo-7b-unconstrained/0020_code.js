// Create a ZPL label for shipment sh_5001 in A6 size.
const axios = require('axios');

axios.post('https://api.harbor.example/v2/shipments/sh_5001/labels', {
  format: 'zpl',
  size: 'A6'
}, {
  headers: {
    Authorization: 'Bearer <token>',
    'Content-Type': 'application/json'
  }
})
  .then((response) => console.log(response.data))
  .catch((error) => console.error(error));
