// The oauth2 security scheme of the OpenAPI documents (api/openapi.ts, ogc/openapi.ts).
import { SCOPE_DESCRIPTIONS, SCOPES } from '../../core/credentials.ts';

/** OAuth 2 (spec 4.1): its tokens are sent as a bearer token, on every operation a key can call, scoped like keys. */
export function oauth2Scheme(serverUrl: string) {
  const base = serverUrl.replace(/\/+$/, '');
  const scopes = Object.fromEntries(SCOPES.map((s) => [s, SCOPE_DESCRIPTIONS[s]]));
  return {
    type: 'oauth2',
    description: `OAuth 2 access tokens (Authorization: Bearer llo_…), scoped like API keys. Server metadata: ${base}/.well-known/oauth-authorization-server`,
    flows: {
      authorizationCode: { authorizationUrl: `${base}/oauth/authorize`, tokenUrl: `${base}/oauth/token`, refreshUrl: `${base}/oauth/token`, scopes },
      clientCredentials: { tokenUrl: `${base}/oauth/token`, scopes },
    },
  };
}
