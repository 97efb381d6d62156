// People and their memberships. A person has one email address (unique, case-insensitive) and
// may belong to several organizations, with one role in each.
import { newId } from '../core/ids.ts';
import type { Role } from '../core/credentials.ts';
import type { Queryable } from './db.ts';

export interface Person {
  id: string;
  email: string;
  password_hash: string;
  first_name: string | null;
  last_name: string | null;
  verified_at: string | null;
}

export interface MembershipRow {
  organization_id: string;
  name: string;
  slug: string;
  role: Role;
}

const PERSON_COLUMNS = 'id, email, password_hash, first_name, last_name, verified_at';

export async function findPersonByEmail(db: Queryable, email: string): Promise<Person | null> {
  const { rows } = await db.query(`SELECT ${PERSON_COLUMNS} FROM person WHERE email = $1`, [email]);
  return rows[0] ?? null;
}

export async function getPerson(db: Queryable, id: string): Promise<Person | null> {
  const { rows } = await db.query(`SELECT ${PERSON_COLUMNS} FROM person WHERE id = $1`, [id]);
  return rows[0] ?? null;
}

export async function createPerson(
  db: Queryable,
  p: { email: string; passwordHash: string; firstName?: string | null; lastName?: string | null; verified: boolean },
): Promise<string> {
  const id = newId('person');
  await db.query(
    `INSERT INTO person (id, email, password_hash, first_name, last_name, verified_at)
     VALUES ($1, $2, $3, $4, $5, CASE WHEN $6 THEN now() END)`,
    [id, p.email, p.passwordHash, p.firstName ?? null, p.lastName ?? null, p.verified],
  );
  return id;
}

/** Redeeming an emailed link proves the address: verified from now on (kept if already). */
export async function markVerified(db: Queryable, personId: string): Promise<void> {
  await db.query('UPDATE person SET verified_at = COALESCE(verified_at, now()) WHERE id = $1', [personId]);
}

export async function setPasswordHash(db: Queryable, personId: string, passwordHash: string): Promise<void> {
  await db.query('UPDATE person SET password_hash = $2 WHERE id = $1', [personId, passwordHash]);
}

export async function membershipRole(db: Queryable, personId: string, organizationId: string): Promise<Role | null> {
  const { rows } = await db.query('SELECT role FROM membership WHERE person_id = $1 AND organization_id = $2', [personId, organizationId]);
  return rows[0]?.role ?? null;
}

/** Add a membership; a person already in the organization keeps the role they have. */
export async function addMembership(db: Queryable, personId: string, organizationId: string, role: Role): Promise<void> {
  await db.query(
    'INSERT INTO membership (person_id, organization_id, role) VALUES ($1, $2, $3) ON CONFLICT (person_id, organization_id) DO NOTHING',
    [personId, organizationId, role],
  );
}

/** The person's organizations, oldest membership first. */
export async function listMemberships(db: Queryable, personId: string): Promise<MembershipRow[]> {
  const { rows } = await db.query(
    `SELECT o.id AS organization_id, o.name, o.slug, m.role
       FROM membership m JOIN organization o ON o.id = m.organization_id
      WHERE m.person_id = $1 ORDER BY m.created_at, o.id`,
    [personId],
  );
  return rows;
}

export async function isMemberByEmail(db: Queryable, organizationId: string, email: string): Promise<boolean> {
  const { rows } = await db.query(
    'SELECT 1 FROM membership m JOIN person p ON p.id = m.person_id WHERE m.organization_id = $1 AND p.email = $2',
    [organizationId, email],
  );
  return rows.length > 0;
}
