// Rename warehouse wh_77 to "Lyon Sud" and set its capacity to 800 pallets.
const axios = require('axios');

axios.patch('https://api.harbor.example/v2/warehouses/wh_77', {
  name: 'Lyon Sud',
  capacity_pallets: 900
}, {
  headers: {
    Authorization: 'Bearer <token>',
    'Content-Type': 'application/json'
  }
})
  .then((response) => console.log(response.data))
  .catch((error) => console.error(error));
