// Organizations, their owners and their credit.
import { newId } from '../core/ids.ts';
import type { Queryable } from './db.ts';

export function slugify(name: string): string {
  return (
    name
      .normalize('NFKD')
      .replace(/[\u0300-\u036f]/g, '')
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-+|-+$/g, '')
      .slice(0, 48) || 'org'
  );
}

export interface NewOrganization {
  name: string;
  owner: { email: string; passwordHash: string; firstName?: string | null; lastName?: string | null; verified: boolean };
  credits: number;
  includedCredits?: number;
}

/** Create an organization, its owner and its credit account. Call inside a transaction. */
export async function createOrganization(db: Queryable, o: NewOrganization): Promise<{ organizationId: string; personId: string }> {
  const organizationId = newId('organization');
  const personId = newId('person');
  const slug = `${slugify(o.name)}-${organizationId.slice(-6)}`;
  await db.query('INSERT INTO organization (id, name, slug, included_credits) VALUES ($1, $2, $3, $4)', [
    organizationId,
    o.name,
    slug,
    o.includedCredits ?? 0,
  ]);
  await db.query(
    `INSERT INTO person (id, email, password_hash, first_name, last_name, verified_at)
     VALUES ($1, $2, $3, $4, $5, CASE WHEN $6 THEN now() END)`,
    [personId, o.owner.email, o.owner.passwordHash, o.owner.firstName ?? null, o.owner.lastName ?? null, o.owner.verified],
  );
  await db.query(`INSERT INTO membership (person_id, organization_id, role) VALUES ($1, $2, 'owner')`, [personId, organizationId]);
  await db.query('INSERT INTO credit_account (organization_id) VALUES ($1)', [organizationId]);
  if (o.credits > 0) await grantCredit(db, organizationId, o.credits, 'grant', { reason: 'initial' });
  return { organizationId, personId };
}

/** Add credit (a grant, a purchase or an adjustment) and write the ledger entry. */
export async function grantCredit(
  db: Queryable,
  organizationId: string,
  amount: number,
  kind: 'grant' | 'purchase' | 'adjustment',
  detail: Record<string, unknown> = {},
): Promise<number> {
  const { rows } = await db.query(
    `UPDATE credit_account SET balance = balance + $2, available = available + $2, updated_at = now()
      WHERE organization_id = $1 RETURNING balance`,
    [organizationId, amount],
  );
  if (!rows[0]) throw new Error(`No credit account for ${organizationId}`);
  await db.query('INSERT INTO credit_ledger (organization_id, kind, amount, balance_after, detail) VALUES ($1, $2, $3, $4, $5)', [
    organizationId,
    kind,
    amount,
    rows[0].balance,
    detail,
  ]);
  return rows[0].balance;
}
