// List the first 10 warehouses in the EU region.
const axios = require('axios');

axios.get('https://api.harbor.example/v2/warehouses', {
  headers: {
    Authorization: 'Bearer <token>'
  },
  params: {
    region: 'eu',
    limit: '10'
  }
})
  .then((response) => console.log(response.data))
  .catch((error) => console.error(error));
