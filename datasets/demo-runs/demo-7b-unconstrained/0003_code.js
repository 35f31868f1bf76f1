// Create a warehouse named "Rotterdam North" at Havenweg 12, 3011 Rotterdam, NL (recipient name "Harbor NL") with room for 1200 pallets.
const axios = require('axios');

axios.post('https://api.harbor.example/v2/warehouses', {
  name: 'Rotterdam North',
  address: {
    name: 'Harbor NL',
    street: 'Havenweg 12',
    city: 'Rotterdam',
    postal_code: '3011',
    country: 'NL'
  },
  capacity_pallets: 1200
}, {
  headers: {
    Authorization: 'Bearer <token>',
    'Content-Type': 'application/json'
  }
})
  .then((response) => console.log(response.data))
  .catch((error) => console.error(error));
