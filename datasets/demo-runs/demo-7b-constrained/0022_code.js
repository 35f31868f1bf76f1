// Quote the rates of carrier "ups" for a 3.2 kg package from the US to Canada.
const axios = require('axios');

axios.get('https://api.harbor.example/v2/carriers/ups/rates', {
  headers: {
    Authorization: 'Bearer <token>'
  },
  params: {
    origin_country: 'US',
    destination_country: 'CA'
  }
})
  .then((response) => console.log(response.data))
  .catch((error) => console.error(error));
