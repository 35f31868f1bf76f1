// Cancel shipment sh_4410 because the customer asked to, noting "ordered twice by mistake".
const axios = require('axios');

axios.post('https://api.harbor.example/v2/shipments/sh_4410/cancel', {
  reason: 'customer_request',
  note: 'ordered twice by mistake'
}, {
  headers: {
    Authorization: 'Bearer <token>',
    'Content-Type': 'application/json'
  }
})
  .then((response) => console.log(response.data))
  .catch((error) => console.error(error));
