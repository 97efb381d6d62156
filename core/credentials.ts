// What a credential is and may do, known to every room of the code (api, store, bin): the scopes a
// key may hold, the roles of a person in an organization, and the prefixes of tokens.

export const SCOPES = [
  'place:read',
  'law:read',
  'records:read',
  'maps:read',
  'extract:write',
  'alert:write',
  'account:read',
  'account:write',
] as const;
export type Scope = (typeof SCOPES)[number];

export const SCOPE_DESCRIPTIONS: Record<Scope, string> = {
  'place:read': 'Ask about places: /place, /rule, /conformance, /parcel, /v1/zoning',
  'law:read': 'Read law: jurisdictions, districts, permissions, ordinances, citations, documents, answers, the change feed',
  'records:read': 'Read property records, transactions, permits and cases',
  'maps:read': 'Map layers, vector tiles, map images and OGC API Features',
  'extract:write': 'Start and download extracts',
  'alert:write': 'Create and change alerts, monitors, lists, webhooks and saved regions',
  'account:read': 'Read keys, usage and credit (any credential may read itself at /me/actor)',
  'account:write': 'Revoke keys',
};

export type Role = 'owner' | 'admin' | 'member';

export const KEY_PREFIX = 'llk_';
export const SESSION_PREFIX = 'lls_';
/** OAuth 2: an access token (sent as Bearer, like a key), a refresh token, a code, a client's secret. */
export const OAUTH_TOKEN_PREFIX = 'llo_';
export const OAUTH_REFRESH_PREFIX = 'llr_';
export const OAUTH_CODE_PREFIX = 'llc_';
export const CLIENT_SECRET_PREFIX = 'llcs_';
