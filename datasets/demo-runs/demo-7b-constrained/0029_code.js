// Quote the rates of carrier "dhl" from Germany to Austria.
const axios = require('axios');

axios.get('https://api.harbor.example/v2/carriers/dhl/rates', {
  headers: {
    Authorization: 'Bearer <token>'
  },
  params: {
    origin_country: 'DE',
    destination_country: 'AT',
    max_price: 20
  }
})
  .then((response) => console.log(response.data))
  .catch((error) => console.error(error));
