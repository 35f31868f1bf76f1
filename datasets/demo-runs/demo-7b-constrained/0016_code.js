// Get shipment sh_5001 with its parcels and tracking events.
const axios = require('axios');

axios.get('https://api.harbor.example/v2/shipments/sh_5001', {
  headers: {
    Authorization: 'Bearer <token>'
  },
  params: {
    expand: [
      'parcels',
      'events'
    ]
  }
})
  .then((response) => console.log(response.data))
  .catch((error) => console.error(error));
