// List the carriers that offer express service in Germany.
const axios = require('axios');

axios.get('https://api.harbor.example/v2/carriers', {
  headers: {
    Authorization: 'Bearer <token>'
  },
  params: {
    country: 'DE',
    service_level: 'express'
  }
})
  .then((response) => console.log(response.data))
  .catch((error) => console.error(error));
