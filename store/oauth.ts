// OAuth 2 records (migration 020): clients an organization registers, authorization codes and
// tokens. Secrets, codes and tokens are random and kept only as sha256. A code or refresh token
// presented a second time revokes every token of its grant (RFC 6749 4.1.2, RFC 9700 4.14).
import { CLIENT_SECRET_PREFIX } from '../core/credentials.ts';
import { newId, randomToken, sha256Hex } from '../core/ids.ts';
import type { Queryable } from './db.ts';

export interface ClientRecord {
  id: string;
  organization_id: string;
  name: string;
  confidential: boolean;
  redirect_uris: string[];
  scopes: string[];
  created_at: string;
}

const CLIENT_COLUMNS = 'id, organization_id, name, secret_hash IS NOT NULL AS confidential, redirect_uris, scopes, created_at';

export async function createClient(
  db: Queryable,
  c: { organizationId: string; name: string; confidential: boolean; redirectUris: string[]; scopes: readonly string[]; createdBy: string },
): Promise<ClientRecord & { secret: string | null }> {
  const secret = c.confidential ? `${CLIENT_SECRET_PREFIX}${randomToken(32)}` : null;
  const { rows } = await db.query(
    `INSERT INTO oauth_client (id, organization_id, name, secret_hash, redirect_uris, scopes, created_by)
     VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING ${CLIENT_COLUMNS}`,
    [newId('oauth_client'), c.organizationId, c.name, secret ? sha256Hex(secret) : null, c.redirectUris, c.scopes, c.createdBy],
  );
  return { ...rows[0], secret };
}

/** Live clients of the organization, newest first. */
export async function listClients(db: Queryable, organizationId: string): Promise<ClientRecord[]> {
  const { rows } = await db.query(
    `SELECT ${CLIENT_COLUMNS} FROM oauth_client WHERE organization_id = $1 AND revoked_at IS NULL ORDER BY created_at DESC, id DESC`,
    [organizationId],
  );
  return rows;
}

/** A live client by its client_id, with its secret's hash (null for a public client). */
export async function findClient(db: Queryable, clientId: string): Promise<(ClientRecord & { secret_hash: string | null }) | null> {
  const { rows } = await db.query(`SELECT ${CLIENT_COLUMNS}, secret_hash FROM oauth_client WHERE id = $1 AND revoked_at IS NULL`, [clientId]);
  return rows[0] ?? null;
}

/** Delete a client of the organization (again is no error): it and every token it holds stop at once. False when it has none such. */
export async function revokeClient(db: Queryable, organizationId: string, clientId: string): Promise<boolean> {
  const { rows } = await db.query(
    `WITH c AS (UPDATE oauth_client SET revoked_at = COALESCE(revoked_at, now()) WHERE id = $1 AND organization_id = $2 RETURNING id),
          t AS (UPDATE oauth_token SET revoked_at = now() WHERE client_id IN (SELECT id FROM c) AND revoked_at IS NULL)
     SELECT count(*)::int AS n FROM c`,
    [clientId, organizationId],
  );
  return rows[0].n > 0;
}

export interface CodeRecord {
  grant_id: string;
  client_id: string;
  person_id: string;
  redirect_uri: string;
  redirect_uri_given: boolean;
  scopes: string[];
  code_challenge: string | null;
  code_challenge_method: string | null;
  expires_at: Date;
  used_at: Date | null;
}

export async function saveCode(
  db: Queryable,
  c: { code: string; clientId: string; personId: string; redirectUri: string; redirectUriGiven: boolean; scopes: string[]; challenge: string | null; method: string | null; expiresAt: Date },
): Promise<string> {
  const grantId = newId('oauth_grant');
  await db.query(
    `INSERT INTO oauth_code (code_hash, grant_id, client_id, person_id, redirect_uri, redirect_uri_given, scopes, code_challenge, code_challenge_method, expires_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
    [sha256Hex(c.code), grantId, c.clientId, c.personId, c.redirectUri, c.redirectUriGiven, c.scopes, c.challenge, c.method, c.expiresAt],
  );
  return grantId;
}

export async function findCode(db: Queryable, code: string): Promise<CodeRecord | null> {
  const { rows } = await db.query('SELECT * FROM oauth_code WHERE code_hash = $1', [sha256Hex(code)]);
  return rows[0] ?? null;
}

/** Mark a code used; false when it already was (two requests racing: one wins). */
export async function useCode(db: Queryable, code: string): Promise<boolean> {
  const { rowCount } = await db.query('UPDATE oauth_code SET used_at = now() WHERE code_hash = $1 AND used_at IS NULL', [sha256Hex(code)]);
  return (rowCount ?? 0) > 0;
}

/** Revoke every token of a grant (a code or refresh token replayed). */
export async function revokeGrant(db: Queryable, grantId: string): Promise<void> {
  await db.query('UPDATE oauth_token SET revoked_at = now() WHERE grant_id = $1 AND revoked_at IS NULL', [grantId]);
}

export async function saveToken(
  db: Queryable,
  t: {
    grantId: string;
    clientId: string;
    organizationId: string;
    personId: string | null;
    accessToken: string;
    accessExpiresAt: Date;
    refreshToken: string | null;
    refreshExpiresAt: Date | null;
    scopes: string[];
  },
): Promise<void> {
  await db.query(
    `INSERT INTO oauth_token (id, grant_id, client_id, organization_id, person_id, access_hash, access_expires_at, refresh_hash, refresh_expires_at, scopes)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
    [
      newId('oauth_token'),
      t.grantId,
      t.clientId,
      t.organizationId,
      t.personId,
      sha256Hex(t.accessToken),
      t.accessExpiresAt,
      t.refreshToken ? sha256Hex(t.refreshToken) : null,
      t.refreshExpiresAt,
      t.scopes,
    ],
  );
}

export interface RefreshRecord {
  grant_id: string;
  client_id: string;
  organization_id: string;
  person_id: string | null;
  scopes: string[];
  refresh_expires_at: Date;
  refresh_used_at: Date | null;
  revoked_at: Date | null;
  /** the person still belongs to the organization (true for client credentials) */
  member: boolean;
}

export async function findRefresh(db: Queryable, refreshToken: string): Promise<RefreshRecord | null> {
  const { rows } = await db.query(
    `SELECT t.grant_id, t.client_id, t.organization_id, t.person_id, t.scopes, t.refresh_expires_at, t.refresh_used_at, t.revoked_at,
            (t.person_id IS NULL OR m.person_id IS NOT NULL) AS member
       FROM oauth_token t LEFT JOIN membership m ON m.person_id = t.person_id AND m.organization_id = t.organization_id
      WHERE t.refresh_hash = $1`,
    [sha256Hex(refreshToken)],
  );
  return rows[0] ?? null;
}

/** Mark a refresh token exchanged (rotation); false when it already was, or was revoked. */
export async function useRefresh(db: Queryable, refreshToken: string): Promise<boolean> {
  const { rowCount } = await db.query(
    'UPDATE oauth_token SET refresh_used_at = now() WHERE refresh_hash = $1 AND refresh_used_at IS NULL AND revoked_at IS NULL',
    [sha256Hex(refreshToken)],
  );
  return (rowCount ?? 0) > 0;
}

export interface AccessRecord {
  id: string;
  client_id: string;
  client_name: string;
  organization_id: string;
  person_id: string | null;
  email: string | null;
  scopes: string[];
  access_expires_at: Date;
  /** revoked: the token, its client, or the person's membership is gone */
  revoked: boolean;
}

/** An access token by the sha256 of its value. */
export async function findAccess(db: Queryable, accessHash: string): Promise<AccessRecord | null> {
  const { rows } = await db.query(
    `SELECT t.id, t.client_id, c.name AS client_name, t.organization_id, t.person_id, p.email, t.scopes, t.access_expires_at,
            (t.revoked_at IS NOT NULL OR c.revoked_at IS NOT NULL OR (t.person_id IS NOT NULL AND m.person_id IS NULL)) AS revoked
       FROM oauth_token t JOIN oauth_client c ON c.id = t.client_id
       LEFT JOIN person p ON p.id = t.person_id
       LEFT JOIN membership m ON m.person_id = t.person_id AND m.organization_id = t.organization_id
      WHERE t.access_hash = $1`,
    [accessHash],
  );
  return rows[0] ?? null;
}

/**
 * RFC 7009: revoke the token (access or refresh) if the client holds it. Revoking a refresh
 * token revokes its grant (every token issued from the same authorization); an access token
 * alone stops. Unknown, another client's, or already revoked: nothing happens.
 */
export async function revokeByClient(db: Queryable, clientId: string, token: string): Promise<void> {
  const hash = sha256Hex(token);
  const { rows } = await db.query(
    `UPDATE oauth_token SET revoked_at = COALESCE(revoked_at, now())
      WHERE client_id = $1 AND (access_hash = $2 OR refresh_hash = $2)
      RETURNING grant_id, refresh_hash = $2 AS was_refresh`,
    [clientId, hash],
  );
  if (rows[0]?.was_refresh) await revokeGrant(db, rows[0].grant_id);
}
