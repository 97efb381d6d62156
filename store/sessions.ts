// Console sessions: a random lls_ token, kept only as its sha256, for one person in one
// organization, until it expires or is revoked.
import { randomToken, sha256Hex } from '../core/ids.ts';
import { SESSION_PREFIX } from '../core/credentials.ts';
import type { Queryable } from './db.ts';

export async function createSession(
  db: Queryable,
  s: { personId: string; organizationId: string; ttlSeconds: number },
): Promise<{ token: string; expiresAt: string }> {
  const token = `${SESSION_PREFIX}${randomToken(32)}`;
  const { rows } = await db.query(
    `INSERT INTO session (token_hash, person_id, organization_id, expires_at)
     VALUES ($1, $2, $3, now() + make_interval(secs => $4)) RETURNING expires_at`,
    [sha256Hex(token), s.personId, s.organizationId, s.ttlSeconds],
  );
  return { token, expiresAt: new Date(rows[0].expires_at).toISOString() };
}

/** End every live session of a person (a password change); returns how many. */
export async function revokeSessionsOf(db: Queryable, personId: string): Promise<number> {
  const { rowCount } = await db.query(
    'UPDATE session SET revoked_at = now() WHERE person_id = $1 AND revoked_at IS NULL AND expires_at > now()',
    [personId],
  );
  return rowCount ?? 0;
}
