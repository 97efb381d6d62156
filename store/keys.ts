// API keys: random, shown once, stored as sha256; revoked keys stay so audit entries resolve.
import { newId, randomToken, sha256Hex } from '../core/ids.ts';
import { KEY_PREFIX, type Scope } from '../core/credentials.ts';
import type { Queryable } from './db.ts';

export interface KeyRecord {
  id: string;
  name: string;
  key_prefix: string;
  scopes: string[];
  usage_count: number;
  created_at: string;
  last_used_at: string | null;
  expires_at: string | null;
}

export const KEY_COLUMNS = `id, name, key_prefix, scopes, usage_count, created_at, last_used_at, expires_at`;

export async function mintKey(
  db: Queryable,
  k: { organizationId: string; name: string; scopes: readonly Scope[]; createdBy: string | null; expiresInDays?: number | null },
): Promise<KeyRecord & { key: string }> {
  const secret = `${KEY_PREFIX}${randomToken(30)}`;
  const { rows } = await db.query(
    `INSERT INTO api_key (id, organization_id, name, key_prefix, key_hash, scopes, created_by, expires_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, CASE WHEN $8::int IS NULL THEN NULL ELSE now() + make_interval(days => $8::int) END)
     RETURNING ${KEY_COLUMNS}`,
    [newId('key'), k.organizationId, k.name, secret.slice(0, 12), sha256Hex(secret), k.scopes, k.createdBy, k.expiresInDays ?? null],
  );
  return { ...rows[0], key: secret };
}

/** Live keys of the organization (neither revoked nor expired), newest first; never the secret. */
export async function listLiveKeys(db: Queryable, organizationId: string): Promise<KeyRecord[]> {
  const { rows } = await db.query(
    `SELECT ${KEY_COLUMNS} FROM api_key
      WHERE organization_id = $1 AND revoked_at IS NULL AND (expires_at IS NULL OR expires_at > now())
      ORDER BY created_at DESC, id DESC`,
    [organizationId],
  );
  return rows;
}

/** Revoke a key of the organization (again is no error); false when it has no such key. */
export async function revokeKey(db: Queryable, organizationId: string, keyId: string): Promise<boolean> {
  const { rowCount } = await db.query(
    'UPDATE api_key SET revoked_at = COALESCE(revoked_at, now()) WHERE id = $1 AND organization_id = $2',
    [keyId, organizationId],
  );
  return (rowCount ?? 0) > 0;
}

export async function getKey(db: Queryable, organizationId: string, keyId: string): Promise<(KeyRecord & { created_by: string | null }) | null> {
  const { rows } = await db.query(`SELECT ${KEY_COLUMNS}, created_by FROM api_key WHERE id = $1 AND organization_id = $2`, [keyId, organizationId]);
  return rows[0] ?? null;
}
