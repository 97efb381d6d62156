// Credentials: API keys (X-API-Key, Authorization: Bearer, or HTTP Basic with the key as the
// password) and console sessions (Bearer).
// Both are random tokens stored only as sha256 hashes. A credential in a query string is refused.

import { KEY_PREFIX, OAUTH_TOKEN_PREFIX, type Role, SCOPES, type Scope, SESSION_PREFIX } from '../core/credentials.ts';
import { ApiError } from '../core/errors.ts';
import { sha256Hex } from '../core/ids.ts';
import { TtlMap } from '../core/ttl-map.ts';
import { named, type Queryable } from '../store/db.ts';
import { type AccessRecord, findAccess } from '../store/oauth.ts';

export interface Actor {
  /** key: the organization's credential (an API key or an OAuth access token); person: a console session */
  kind: 'key' | 'person';
  organizationId: string;
  scopes: readonly Scope[];
  /** the API key, or the OAuth client whose token this is: calls are counted and limited per it */
  keyId?: string;
  keyName?: string;
  personId?: string;
  email?: string;
  role?: Role;
  expiresAt?: string | null;
  /** set for an OAuth access token */
  oauth?: { tokenId: string; clientId: string; clientName: string };
}


/** Query parameters that look like credentials: refused, never logged. */
export const CREDENTIAL_QUERY_NAMES = ['api_key', 'apikey', 'key', 'access_token', 'token', 'x-api-key'];

/**
 * The credential a call sends: X-API-Key, else Authorization as Bearer <token> or as HTTP Basic
 * with the key as the password (RFC 7617; any user name), the one way GIS clients such as QGIS
 * can send a key. A header that is neither is refused naming Authorization.
 */
export function credentialFromHeaders(headers: Record<string, string | string[] | undefined>): string | null {
  const x = headers['x-api-key'];
  if (typeof x === 'string' && x.trim() !== '') return x.trim();
  const auth = headers.authorization;
  if (typeof auth === 'string') {
    const bearer = /^Bearer\s+(\S+)\s*$/i.exec(auth);
    if (bearer) return bearer[1];
    if (/^Basic(\s|$)/i.test(auth)) return basicKey(auth);
    throw new ApiError('credential_invalid', { field: 'Authorization', detail: 'Authorization must be "Bearer <token>" or HTTP Basic with the API key as the password.' });
  }
  return null;
}

/** The basic security scheme of the OpenAPI documents. */
export const BASIC_SCHEME_TEXT =
  'HTTP Basic (RFC 7617) with an API key as the password and any user name, for clients that can send only Basic (QGIS authentication configurations, GDAL with GDAL_HTTP_AUTH=BASIC). Never in a query string.';

/** Sent with a refused Basic credential, so a client that chose Basic knows to ask again. */
export const BASIC_CHALLENGE = { 'WWW-Authenticate': 'Basic realm="Landlex", charset="UTF-8"' };

/** The password of an HTTP Basic header, which must be an API key (pure). */
export function basicKey(header: string): string {
  const refuse = (detail: string) => new ApiError('credential_invalid', { field: 'Authorization', detail, headers: BASIC_CHALLENGE });
  const m = /^Basic\s+([A-Za-z0-9+/]+={0,2})\s*$/i.exec(header);
  if (!m || m[1].length % 4 === 1) throw refuse('HTTP Basic credentials must be base64 of "user:password", with the API key as the password.');
  const plain = Buffer.from(m[1], 'base64').toString('utf8');
  const colon = plain.indexOf(':');
  if (colon < 0) throw refuse('HTTP Basic credentials must be "user:password" (any user name), with the API key as the password.');
  const key = plain.slice(colon + 1).trim();
  if (!key.startsWith(KEY_PREFIX)) throw refuse(`The HTTP Basic password must be an API key (${KEY_PREFIX}…); the user name may be anything.`);
  return key;
}

/**
 * A refusal of a credential sent in Authorization names that header (resolveCredential names
 * X-API-Key for keys); one sent as Basic carries the Basic challenge.
 */
export function namedForHeader(err: unknown, headers: Record<string, string | string[] | undefined>): unknown {
  if (!(err instanceof ApiError) || err.field !== 'X-API-Key') return err;
  const x = headers['x-api-key'];
  const auth = headers.authorization;
  if ((typeof x === 'string' && x.trim() !== '') || typeof auth !== 'string') return err;
  const basic = /^Basic\s/i.test(auth);
  const detail = basic ? err.detail.replace('The API key', 'The API key sent as the HTTP Basic password') : err.detail;
  return new ApiError(err.code, { field: 'Authorization', detail, headers: basic ? { ...err.headers, ...BASIC_CHALLENGE } : err.headers });
}

interface KeyRow {
  id: string;
  organization_id: string;
  name: string;
  scopes: string[];
  expires_at: string | null;
  revoked_at: string | null;
}

/**
 * API keys by hash, kept a short while so a call does not look its key up every time. A change
 * to a key anywhere (revoked, expiry or scopes changed) is announced by a trigger (migration 010)
 * and drops it at once; the revoking process drops it before it answers. The lifetime bounds
 * what a missed announcement could leave. Unknown keys are never kept: a new key works at once.
 */
export class CredentialCache {
  private keys = new TtlMap<KeyRow>(30_000, 10_000);

  get(hash: string): KeyRow | null {
    return this.keys.get(hash) ?? null;
  }

  set(hash: string, row: KeyRow) {
    this.keys.set(hash, row);
  }

  /** Forget a key by its id (it changed). */
  drop(keyId: string) {
    this.keys.dropWhere((row) => row.id === keyId);
  }

  clear() {
    this.keys.clear();
  }
}

export const KEY_CHANGED_CHANNEL = 'landlex_key_changed';

/**
 * An OAuth access token acts as a key of its organization, with the token's scopes (so routes for
 * a console session or a person refuse it as they refuse keys); a person's token names the person.
 * Refusals carry RFC 6750's challenge.
 */
function oauthActor(t: AccessRecord | null): Actor {
  const refuse = (code: 'credential_invalid' | 'credential_expired', detail: string) =>
    new ApiError(code, { field: 'Authorization', detail, headers: { 'WWW-Authenticate': `Bearer error="invalid_token", error_description="${detail}"` } });
  if (!t || t.revoked) throw refuse('credential_invalid', 'The OAuth access token is not valid (unknown or revoked).');
  if (new Date(t.access_expires_at) <= new Date()) throw refuse('credential_expired', 'The OAuth access token has expired; refresh it or authorize again.');
  return {
    kind: 'key',
    organizationId: t.organization_id,
    keyId: t.client_id,
    keyName: `oauth: ${t.client_name}`,
    ...(t.person_id ? { personId: t.person_id, email: t.email! } : {}),
    scopes: t.scopes as Scope[],
    expiresAt: new Date(t.access_expires_at).toISOString(),
    oauth: { tokenId: t.id, clientId: t.client_id, clientName: t.client_name },
  };
}

/** Look up a key, session or OAuth access token. Unknown or revoked is credential_invalid; past expiry is credential_expired. */
export async function resolveCredential(db: Queryable, token: string, cache?: CredentialCache): Promise<Actor> {
  const hash = sha256Hex(token);
  if (token.startsWith(OAUTH_TOKEN_PREFIX)) return oauthActor(await findAccess(db, hash));
  if (token.startsWith(SESSION_PREFIX)) {
    const { rows } = await db.query(
      `SELECT s.person_id, s.organization_id, s.expires_at, s.revoked_at, p.email, m.role
         FROM session s JOIN person p ON p.id = s.person_id
         JOIN membership m ON m.person_id = s.person_id AND m.organization_id = s.organization_id
        WHERE s.token_hash = $1`,
      [hash],
    );
    const s = rows[0];
    if (!s || s.revoked_at) throw new ApiError('credential_invalid', { field: 'Authorization', detail: 'The session token is not valid.' });
    if (new Date(s.expires_at) <= new Date()) throw new ApiError('credential_expired', { field: 'Authorization', detail: 'The session has expired; sign in again.' });
    return {
      kind: 'person',
      organizationId: s.organization_id,
      personId: s.person_id,
      email: s.email,
      role: s.role,
      scopes: SCOPES,
      expiresAt: new Date(s.expires_at).toISOString(),
    };
  }
  let k = cache?.get(hash) ?? null;
  if (!k) {
    const { rows } = await db.query(named('api-key-by-hash', 'SELECT id, organization_id, name, scopes, expires_at, revoked_at FROM api_key WHERE key_hash = $1', [hash]));
    k = (rows[0] as KeyRow | undefined) ?? null;
    if (k && cache) cache.set(hash, k);
  }
  if (!k || k.revoked_at) throw new ApiError('credential_invalid', { field: 'X-API-Key', detail: 'The API key is not valid (unknown or revoked).' });
  if (k.expires_at && new Date(k.expires_at) <= new Date()) {
    throw new ApiError('credential_expired', { field: 'X-API-Key', detail: 'The API key has expired.' });
  }
  return {
    kind: 'key',
    organizationId: k.organization_id,
    keyId: k.id,
    keyName: k.name,
    scopes: k.scopes as Scope[],
    expiresAt: k.expires_at ? new Date(k.expires_at).toISOString() : null,
  };
}
