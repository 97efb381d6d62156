// One-use tokens sent by email (verification, password reset, invitation): random, stored only
// as sha256, redeemed at most once and only before they expire.
import { randomToken, sha256Hex } from '../core/ids.ts';
import type { Queryable } from './db.ts';

export type TokenPurpose = 'verify' | 'reset' | 'invite';

/** How long each kind of link works. */
export const TOKEN_HOURS: Record<TokenPurpose, number> = { verify: 72, reset: 1, invite: 7 * 24 };

export async function issueEmailToken(
  db: Queryable,
  t: { purpose: TokenPurpose; personId?: string | null; invitationId?: string | null; hours?: number },
): Promise<string> {
  const token = randomToken(32);
  await db.query(
    `INSERT INTO email_token (token_hash, purpose, person_id, invitation_id, expires_at)
     VALUES ($1, $2, $3, $4, now() + make_interval(hours => $5))`,
    [sha256Hex(token), t.purpose, t.personId ?? null, t.invitationId ?? null, t.hours ?? TOKEN_HOURS[t.purpose]],
  );
  return token;
}

/**
 * Use a token up: null when it is unknown, of another purpose, used or expired. Call it in the
 * transaction that acts on it, so a failure later leaves the token usable.
 */
export async function redeemEmailToken(
  db: Queryable,
  token: string,
  purpose: TokenPurpose,
): Promise<{ personId: string | null; invitationId: string | null } | null> {
  const { rows } = await db.query(
    `UPDATE email_token SET used_at = now()
      WHERE token_hash = $1 AND purpose = $2 AND used_at IS NULL AND expires_at > now()
      RETURNING person_id, invitation_id`,
    [sha256Hex(token), purpose],
  );
  return rows[0] ? { personId: rows[0].person_id, invitationId: rows[0].invitation_id } : null;
}

/** Spend every outstanding token of a person for one purpose (a reset makes older links void). */
export async function voidPersonTokens(db: Queryable, personId: string, purpose: TokenPurpose): Promise<void> {
  await db.query('UPDATE email_token SET used_at = now() WHERE person_id = $1 AND purpose = $2 AND used_at IS NULL', [personId, purpose]);
}

/** Spend the link of an invitation (revoked or replaced). */
export async function voidInvitationTokens(db: Queryable, invitationId: string): Promise<void> {
  await db.query('UPDATE email_token SET used_at = now() WHERE invitation_id = $1 AND used_at IS NULL', [invitationId]);
}
