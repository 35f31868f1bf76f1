// Cancel the newest shipment that has not left yet (status "created"; list them one per page to find it) because the customer asked for it.
const axios = require('axios');
const headers = { Authorization: 'Bearer <token>' };

(async () => {
  const response = await axios.post('https://api.harbor.example/v2/shipments/latest/cancel', { reason: 'customer_request' }, { headers });
  console.log(response.data);
})();
