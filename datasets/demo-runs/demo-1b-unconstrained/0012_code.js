// List shipments created after 2024-03-01T00:00:00Z, 50 per page, tagging the request with trace id "req-7781".
const axios = require('axios');

axios.get('https://api.harbor.example/v2/shipments', {
  headers: {
    Authorization: 'Bearer <token>',
    'X-Request-Id': 'req-7781'
  },
  params: {
    created_after: '2024-03-01T00:00:00Z',
    limit: '50'
  }
})
  .then((response) => console.log(response.data))
  .catch((error) => console.error(error));
