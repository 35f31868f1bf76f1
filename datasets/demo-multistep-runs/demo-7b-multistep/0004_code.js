// Pause the US warehouse named "Newark East" (find it among the US warehouses first).
const axios = require('axios');
const headers = { Authorization: 'Bearer <token>' };

(async () => {
  const list = await axios.get('https://api.harbor.example/v2/warehouses', { headers, params: { region: 'us' } });
  for (const warehouse of list.data.data) {
    await axios.patch(`https://api.harbor.example/v2/warehouses/${warehouse.id}`, { status: 'paused' }, { headers });
  }
})();
