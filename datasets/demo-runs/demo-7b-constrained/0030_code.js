// Create a PDF label for shipment sh_7002 in letter size.
const axios = require('axios');

axios.post('https://api.harbor.example/v2/shipments/sh_7002/labels', {
  format: 'pdf',
  size: 'letter'
}, {
  headers: {
    Authorization: 'Bearer <token>',
    'Content-Type': 'application/json'
  }
})
  .then((response) => console.log(response.data))
  .catch((error) => console.error(error));
