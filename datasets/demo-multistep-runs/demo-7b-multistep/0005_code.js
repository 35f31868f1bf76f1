// Set the stock of SKU "BOX-S" to 40 in the APAC warehouse named "Singapore Jurong", then read that warehouse back.
const axios = require('axios');
const headers = { Authorization: 'Bearer <token>' };

(async () => {
  await axios.get('https://api.harbor.example/v2/warehouses', { headers, params: { region: 'apac' } });
  const result = await axios.put('https://api.harbor.example/v2/warehouses/wh_sin_01/inventory/BOX-S', { quantity: 40 }, { headers });
  console.log(result.data);
})();
