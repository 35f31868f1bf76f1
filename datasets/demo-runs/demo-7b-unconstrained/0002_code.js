// List paused warehouses, continuing from cursor "c_81f2".
const axios = require('axios');

axios.get('https://api.harbor.example/v2/warehouses', {
  headers: {
    Authorization: 'Bearer <token>'
  },
  params: {
    status: 'paused'
  }
})
  .then((response) => console.log(response.data))
  .catch((error) => console.error(error));
