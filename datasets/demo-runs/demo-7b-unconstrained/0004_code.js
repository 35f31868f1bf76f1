// Get warehouse wh_204.
const axios = require('axios');

axios.get('https://api.harbor.example/v2/warehouse/wh_204', {
  headers: {
    'X-API-Key': '<api-key>'
  }
})
  .then((response) => console.log(response.data))
  .catch((error) => console.error(error));
