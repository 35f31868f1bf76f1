// Get report rep_310.
const axios = require('axios');

axios.get('https://api.harbor.example/v2/reports/rep_310', {
  headers: {
    Authorization: 'Bearer <token>'
  }
})
  .then((response) => console.log(response.data))
  .catch((error) => console.error(error));
