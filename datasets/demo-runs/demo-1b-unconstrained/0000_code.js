// Get the account that my API token belongs to.
const axios = require('axios');

axios.get('https://api.harbor.example/v2/me', {
  headers: {
    Authorization: 'Bearer <token>'
  }
})
  .then((response) => console.log(response.data))
  .catch((error) => console.error(error));
