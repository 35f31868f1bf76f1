// Start a CSV shipments report for March 2024 limited to warehouse wh_204 and delivered or returned shipments.
const axios = require('axios');

axios.post('https://api.harbor.example/v2/reports', {
  type: 'shipments',
  period: {
    from: '2024-03-01',
    to: '2024-03-31'
  },
  format: 'csv',
  filters: {
    warehouse_ids: [
      'wh_204'
    ],
    statuses: [
      'delivered',
      'returned'
    ]
  }
}, {
  headers: {
    Authorization: 'Bearer <token>',
    'Content-Type': 'application/json'
  }
})
  .then((response) => console.log(response.data))
  .catch((error) => console.error(error));
