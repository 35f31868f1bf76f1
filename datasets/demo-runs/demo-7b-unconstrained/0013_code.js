// Ship one 2.5 kg parcel of books from warehouse wh_204 to Ana Ruiz, Calle Mayor 5, 28013 Madrid, ES by express.
const axios = require('axios');

axios.post('https://api.harbor.example/v2/shipments', {
  origin_warehouse_id: warehouseId,
  destination: {
    name: 'Ana Ruiz',
    street: 'Calle Mayor 5',
    city: 'Madrid',
    postal_code: '28013',
    country: 'ES'
  },
  parcels: [
    {
      weight_kg: 2.5,
      contents: 'books'
    }
  ],
  service_level: 'express'
}, {
  headers: {
    Authorization: 'Bearer <token>',
    'Content-Type': 'application/json'
  }
})
  .then((response) => console.log(response.data))
  .catch((error) => console.error(error));
