// List the stock of SKU "BOLT-M8" in warehouse wh_204, including reserved units.
const axios = require('axios');

axios.get('https://api.harbor.example/v2/warehouses/wh_204/inventory', {
  headers: {
    Authorization: 'Bearer <token>'
  },
  params: {
    sku: 'BOLT-M8',
    include_reserved: true
  }
})
  .then((response) => console.log(response.data))
  .catch((error) => console.error(error));
