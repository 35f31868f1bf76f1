// Delete warehouse wh_13 even though it still has inventory records.
const axios = require('axios');

axios.delete('https://api.harbor.example/v2/warehouses/wh_13', {
  headers: {
    Authorization: 'Bearer <token>'
  },
  params: {
    force: true
  }
})
  .then((response) => console.log(response.data))
  .catch((error) => console.error(error));
