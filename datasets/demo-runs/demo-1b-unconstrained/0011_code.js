// List shipments that are in transit with carrier "dhl".
const axios = require('axios');

axios.get('https://api.harbor.example/v2/shipments', {
  headers: {
    Authorization: 'Bearer <token>'
  },
  params: {
    status: 'in_transit',
    carrier: 'dhl'
  }
})
  .then((response) => console.log(response.data))
  .catch((error) => console.error(error));
