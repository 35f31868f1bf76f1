// Quote express rates from NL to DE for a 12.5 kg parcel with the first carrier that serves NL at the express level.
const axios = require('axios');
const headers = { Authorization: 'Bearer <token>' };

(async () => {
  const carriers = await axios.get('https://api.harbor.example/v2/carriers', { headers, params: { country: 'NL', service_level: 'express' } });
  const code = carriers.data.data[0].code;
  const rates = await axios.get(`https://api.harbor.example/v2/carriers/${code}/rates`, { headers, params: { origin_country: 'NL', destination_country: 'DE', weight_kg: '12.5 kg', service_level: 'express' } });
  console.log(rates.data);
})();
