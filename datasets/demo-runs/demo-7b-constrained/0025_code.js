// Delete webhook wh_hook_9.
const axios = require('axios');

axios.delete('https://api.harbor.example/v2/webhooks/wh_hook_9', {
  headers: {
    Authorization: 'Bearer <token>'
  }
})
  .then((response) => console.log(response.data))
  .catch((error) => console.error(error));
