// Pause warehouse wh_204.
const axios = require('axios');

axios.patch('https://api.harbor.example/v2/warehouses/wh_204', {
  status: 'paused'
}, {
  headers: {
    Authorization: 'Bearer <token>',
    'Content-Type': 'application/json'
  }
})
  .then((response) => console.log(response.data))
  .catch((error) => console.error(error));
