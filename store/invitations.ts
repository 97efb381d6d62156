// Invitations to join an organization. Status is pending, accepted or revoked as stored, and
// expired when a pending one is past expires_at.
import { newId } from '../core/ids.ts';
import type { Queryable } from './db.ts';
import { voidInvitationTokens } from './email-tokens.ts';

export interface Invitation {
  id: string;
  organization_id: string;
  email: string;
  role: 'admin' | 'member';
  status: 'pending' | 'accepted' | 'revoked' | 'expired';
  expires_at: string;
  created_at: string;
}

const COLUMNS = `id, organization_id, email, role,
  CASE WHEN status = 'pending' AND expires_at <= now() THEN 'expired' ELSE status END AS status,
  expires_at, created_at`;

/** Revoke earlier pending invitations of the same address; a new one replaces them. */
async function revokePendingFor(db: Queryable, organizationId: string, email: string): Promise<void> {
  const { rows } = await db.query(
    `UPDATE invitation SET status = 'revoked', revoked_at = now()
      WHERE organization_id = $1 AND email = $2 AND status = 'pending' RETURNING id`,
    [organizationId, email],
  );
  for (const r of rows) await voidInvitationTokens(db, r.id);
}

export async function createInvitation(
  db: Queryable,
  i: { organizationId: string; email: string; role: 'admin' | 'member'; invitedBy: string; hours: number },
): Promise<Invitation> {
  await revokePendingFor(db, i.organizationId, i.email);
  const { rows } = await db.query(
    `INSERT INTO invitation (id, organization_id, email, role, invited_by, expires_at)
     VALUES ($1, $2, $3, $4, $5, now() + make_interval(hours => $6)) RETURNING ${COLUMNS}`,
    [newId('invitation'), i.organizationId, i.email, i.role, i.invitedBy, i.hours],
  );
  return rows[0];
}

export async function listInvitations(db: Queryable, organizationId: string): Promise<Invitation[]> {
  const { rows } = await db.query(`SELECT ${COLUMNS} FROM invitation WHERE organization_id = $1 ORDER BY created_at DESC, id DESC`, [
    organizationId,
  ]);
  return rows;
}

/** Lock an invitation for redemption. */
export async function lockInvitation(db: Queryable, id: string): Promise<Invitation | null> {
  const { rows } = await db.query(`SELECT ${COLUMNS} FROM invitation WHERE id = $1 FOR UPDATE`, [id]);
  return rows[0] ?? null;
}

export async function markAccepted(db: Queryable, id: string): Promise<void> {
  await db.query(`UPDATE invitation SET status = 'accepted', accepted_at = now() WHERE id = $1`, [id]);
}

/**
 * Revoke an invitation of the organization; its link stops working at once. Returns the status
 * it had ('revoked' again is no error), or null when the organization has no such invitation.
 */
export async function revokeInvitation(db: Queryable, organizationId: string, id: string): Promise<Invitation['status'] | null> {
  const found = await db.query(`SELECT ${COLUMNS} FROM invitation WHERE id = $1 AND organization_id = $2 FOR UPDATE`, [id, organizationId]);
  const inv: Invitation | undefined = found.rows[0];
  if (!inv) return null;
  if (inv.status === 'pending' || inv.status === 'expired') {
    await db.query(`UPDATE invitation SET status = 'revoked', revoked_at = now() WHERE id = $1`, [id]);
    await voidInvitationTokens(db, id);
  }
  return inv.status;
}
