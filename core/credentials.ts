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
