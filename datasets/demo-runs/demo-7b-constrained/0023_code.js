// List my webhook subscriptions.
const axios = require('axios');

axios.get('https://api.harbor.example/v2/webhooks', {
  headers: {
    'X-API-Key': '<api-key>'
  }
})
  .then((response) => console.log(response.data))
  .catch((error) => console.error(error));
