// Show the stock of SKU "PAL-1200" in the EU warehouse named "Rotterdam North" (look the warehouse up by name first).
const axios = require('axios');
const headers = { Authorization: 'Bearer <token>' };

(async () => {
  const warehouses = await axios.get('https://api.harbor.example/v2/warehouses', { headers, params: { region: 'eu' } });
  const warehouse = warehouses.data.data.find((w) => w.name === 'Rotterdam North');
  const stock = await axios.get(`https://api.harbor.example/v2/warehouses/${warehouse.id}/inventory`, { headers, params: { sku: 'PAL-1200' } });
  console.log(stock.data);
})();
