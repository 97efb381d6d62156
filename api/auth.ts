// Credentials: API keys (X-API-Key, or Authorization: Bearer) and console sessions (Bearer).
// Both are random tokens stored only as sha256 hashes. A credential in a query string is refused.
import { ApiError } from '../core/errors.ts';
import { sha256Hex } from '../core/ids.ts';
import { named, type Queryable } from '../store/db.ts';
import { TtlMap } from '../core/ttl-map.ts';
import { OAUTH_TOKEN_PREFIX, type Role, SCOPES, type Scope, SESSION_PREFIX } from '../core/credentials.ts';
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

export function credentialFromHeaders(headers: Record<string, string | string[] | undefined>): string | null {
  const x = headers['x-api-key'];
  if (typeof x === 'string' && x.trim() !== '') return x.trim();
  const auth = headers.authorization;
  if (typeof auth === 'string') {
    const m = /^Bearer\s+(\S+)\s*$/i.exec(auth);
    if (!m) throw new ApiError('credential_invalid', { field: 'Authorization', detail: 'Authorization must be "Bearer <token>".' });
    return m[1];
  }
  return null;
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
