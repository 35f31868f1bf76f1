// Create a shipment from wh_9 to Tom Berg, Storgatan 1, Stockholm, SE with two parcels of 1 kg and 4 kg (the second 40x30x20 cm), insured for 250 EUR, idempotency key "ship-5521".
const axios = require('axios');

axios.post('https://api.harbor.example/v2/shipments', {
  origin_warehouse_id: 'wh_9',
  destination: {
    name: 'Tom Berg',
    street: 'Storgatan 1',
    city: 'Stockholm',
    country: 'SE'
  },
  parcels: [
    {
      weight_kg: 1
    },
    {
      weight_kg: 4,
      dimensions_cm: {
        length: 40,
        width: 30,
        height: 20
      }
    }
  ],
  insurance: {
    amount: 250,
    currency: 'EUR'
  }
}, {
  headers: {
    Authorization: 'Bearer <token>',
    'Content-Type': 'application/json',
    'Idempotency-Key': 'ship-5521'
  }
})
  .then((response) => console.log(response.data))
  .catch((error) => console.error(error));
