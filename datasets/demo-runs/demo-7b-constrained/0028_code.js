// List the first 25 shipments that were delivered.
const axios = require('axios');

axios.get('https://api.harbor.example/v2/shipments', {
  headers: {
    Authorization: 'Bearer <token>'
  },
  params: {
    status: 'delivered',
    limit: '25'
  }
})
  .then((response) => console.log(response.data))
  .catch((error) => console.error(error));
