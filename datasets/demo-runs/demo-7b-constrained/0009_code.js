// List the inventory records of warehouse wh_9 with at least 50 units.
const axios = require('axios');

axios.get('https://api.harbor.example/v2/warehouses/wh_9/inventory', {
  headers: {
    Authorization: 'Bearer <token>'
  },
  params: {
    min_quantity: 50
  }
})
  .then((response) => console.log(response.data))
  .catch((error) => console.error(error));
