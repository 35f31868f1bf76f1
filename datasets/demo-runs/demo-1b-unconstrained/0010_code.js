// Set the stock of SKU "CRATE-L" in warehouse wh_204 to 340 units, 40 of them reserved, stored in aisle "C" on shelf 4.
const axios = require('axios');

axios.put('https://api.harbor.example/v2/warehouses/wh_204/inventory/CRATE-L', {
  qty: 340,
  reserved: 40,
  location: {
    aisle: 'C',
    shelf: 4
  }
}, {
  headers: {
    Authorization: 'Bearer <token>',
    'Content-Type': 'application/json'
  }
})
  .then((response) => console.log(response.data))
  .catch((error) => console.error(error));
