import { describe, expect, it } from 'vitest';
import { loadSpec, resolveEndpoint } from '../openapi/index.js';
import { unwrap } from '../api/result.js';
import { endpointExcerpt } from './review.js';

// Google Sheets' shape: two OAuth 2 schemes (implicit and code flow) that an endpoint may use either of.
const SPEC = `
openapi: 3.0.0
info: { title: sheets, version: v4 }
servers: [{ url: https://sheets.example/v4 }]
paths:
  /spreadsheets/{id}:
    get:
      parameters: [{ name: id, in: path, required: true, schema: { type: string } }]
      responses: { '200': { description: ok } }
      security:
        - Oauth2: [https://www.googleapis.com/auth/drive]
          Oauth2c: [https://www.googleapis.com/auth/drive]
        - Oauth2: [https://www.googleapis.com/auth/spreadsheets]
          Oauth2c: [https://www.googleapis.com/auth/spreadsheets]
components:
  securitySchemes:
    Oauth2:
      type: oauth2
      flows: { implicit: { authorizationUrl: https://accounts.example/auth, scopes: { https://www.googleapis.com/auth/drive: drive } } }
    Oauth2c:
      type: oauth2
      flows: { authorizationCode: { authorizationUrl: https://accounts.example/auth, tokenUrl: https://accounts.example/token, scopes: { https://www.googleapis.com/auth/drive: drive } } }
`;

describe('the spec excerpt beside a sample', () => {
  it('lists each way to authenticate once, though two OAuth schemes read the same', async () => {
    const spec = unwrap(await loadSpec(SPEC, 'sheets.yaml'));
    const endpoint = resolveEndpoint(spec, 'https://sheets.example/v4/spreadsheets/abc', 'get').endpoint!;
    expect(endpointExcerpt(spec, endpoint).auth).toEqual(['oauth2 (Authorization: Bearer <token>)']);
  });
});
