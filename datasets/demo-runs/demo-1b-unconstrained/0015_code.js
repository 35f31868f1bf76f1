// Create an overnight shipment with reference "PO-1182" from wh_204 to Lea Kim, 9 Rue Oberkampf, Paris, FR: one 0.8 kg parcel; notify lea@example.com.
const axios = require('axios');

axios.post('https://api.harbor.example/v2/shipments', {
  origin_warehouse_id: 'wh_204',
  destination: {
    name: 'Lea Kim',
    street: '9 Rue Oberkampf',
    city: 'Paris',
    country: 'FR'
  },
  parcels: [
    {
      weight_kg: 0.8
    }
  ],
  service_level: 'overnight',
  reference: 'PO-1182',
  notify_emails: [
    'lea@example.com'
  ]
}, {
  headers: {
    Authorization: 'Bearer <token>',
    'Content-Type': 'application/json'
  }
})
  .then((response) => console.log(response.data))
  .catch((error) => console.error(error));
