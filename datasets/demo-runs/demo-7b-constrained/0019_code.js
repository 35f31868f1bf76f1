// List the tracking events of shipment sh_5001 since 2024-05-02T08:00:00Z.
const axios = require('axios');

axios.get('https://api.harbor.example/v2/shipments/sh_5001/events', {
  headers: {
    Authorization: 'Bearer <token>'
  },
  params: {
    since: '2024-05-02T08:00:00Z'
  }
})
  .then((response) => console.log(response.data))
  .catch((error) => console.error(error));
