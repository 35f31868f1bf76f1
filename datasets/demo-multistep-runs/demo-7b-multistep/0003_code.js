// Create a PDF label in A6 size for the most recent shipment carried by "dhl_nl" (list its shipments, one per page, first).
const axios = require('axios');
const headers = { Authorization: 'Bearer <token>' };

axios.get('https://api.harbor.example/v2/shipments', { headers, params: { carrier: 'dhl_nl', limit: 1 } })
  .then((list) => axios.post(`https://api.harbor.example/v2/shipments/${list.data.data[0].id}/labels`, { format: 'pdf', size: 'A6' }, { headers }))
  .then((label) => console.log(label.data.url))
  .catch((error) => console.error(error));
