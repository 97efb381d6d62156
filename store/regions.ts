// Saved regions (rgn_, an organization's named sets of jurisdictions) and statistical areas
// (sta_, public data loaded from a source): their rows, their memberships with valid time, and
// which members are in force on the dates asked.
import { resolveAsOf, type TimeSpec } from '../core/time.ts';
import { type Pool, type Queryable, withTransaction } from './db.ts';

export interface RegionRow {
  id: string;
  organization_id: string;
  name: string;
  description: string | null;
  version: number;
  created_at: Date;
  updated_at: Date;
}

/** One membership: the jurisdiction and the dates it is a member (inclusive; null unbounded). */
export interface Membership {
  jurisdiction_id: string;
  name: string;
  slug: string;
  fips_key: string;
  timezone: string;
  from: string | null;
  through: string | null;
}

/** A member as written to the store. */
export interface NewMember {
  jurisdiction_id: string;
  from: string | null;
  through: string | null;
}

const MEMBER_COLUMNS = `j.id AS jurisdiction_id, j.name, j.slug, j.fips_key, j.timezone,
  lower(m.valid)::text AS "from", (upper(m.valid) - 1)::text AS through`;

/** One of the organization's regions; another organization's is not found. */
export async function getRegion(db: Queryable, organizationId: string, id: string): Promise<RegionRow | null> {
  const { rows } = await db.query('SELECT * FROM region WHERE id = $1 AND organization_id = $2', [id, organizationId]);
  return rows[0] ?? null;
}

/** The memberships of regions, by region id, in jurisdiction name order. */
export async function regionMembers(db: Queryable, ids: string[]): Promise<Map<string, Membership[]>> {
  const { rows } = await db.query(
    `SELECT m.region_id, ${MEMBER_COLUMNS} FROM region_member m JOIN jurisdiction j ON j.id = m.jurisdiction_id
      WHERE m.region_id = ANY($1::text[]) ORDER BY m.region_id, j.name, j.id, lower(m.valid) NULLS FIRST`,
    [ids],
  );
  const out = new Map<string, Membership[]>(ids.map((id) => [id, []]));
  for (const { region_id, ...m } of rows) out.get(region_id)!.push(m as Membership);
  return out;
}

/** Jurisdictions by id, slug or fips_key: each reference asked and the id it names (absent if none). */
export async function jurisdictionRefs(db: Queryable, refs: string[]): Promise<Map<string, string>> {
  const { rows } = await db.query('SELECT id, slug, fips_key FROM jurisdiction WHERE id = ANY($1) OR slug = ANY($1) OR fips_key = ANY($1)', [refs]);
  const out = new Map<string, string>();
  for (const r of rows) for (const k of [r.id, r.slug, r.fips_key]) if (refs.includes(k)) out.set(k, r.id);
  return out;
}

async function writeMembers(db: Queryable, regionId: string, members: NewMember[]) {
  await db.query('DELETE FROM region_member WHERE region_id = $1', [regionId]);
  await db.query(
    `INSERT INTO region_member (region_id, jurisdiction_id, valid)
     SELECT $1, x.jurisdiction_id, daterange(x."from", x.through, '[]') FROM jsonb_to_recordset($2::jsonb) AS x(jurisdiction_id text, "from" date, through date)`,
    [regionId, JSON.stringify(members)],
  );
}

/** A unique-name violation (two regions of one organization with one name). */
export const isNameTaken = (err: unknown) => (err as { code?: string; constraint?: string })?.code === '23505' && (err as { constraint?: string }).constraint === 'region_org_name';

export async function insertRegion(pool: Pool, r: { id: string; organizationId: string; name: string; description: string | null; members: NewMember[] }): Promise<RegionRow> {
  return withTransaction(pool, async (c) => {
    const { rows } = await c.query('INSERT INTO region (id, organization_id, name, description) VALUES ($1, $2, $3, $4) RETURNING *', [r.id, r.organizationId, r.name, r.description]);
    await writeMembers(c, r.id, r.members);
    return rows[0];
  });
}

/**
 * Change a region when its version is still `expected` (null: any). The row after, or `missing`
 * (no such region of the organization) or `stale` (it changed since the version read).
 */
export async function updateRegion(
  pool: Pool,
  organizationId: string,
  id: string,
  expected: number[] | null,
  change: { name?: string; description?: string | null; members?: NewMember[] },
): Promise<RegionRow | 'missing' | 'stale'> {
  return withTransaction(pool, async (c) => {
    const { rows } = await c.query('SELECT version FROM region WHERE id = $1 AND organization_id = $2 FOR UPDATE', [id, organizationId]);
    if (!rows[0]) return 'missing';
    if (expected && !expected.includes(rows[0].version)) return 'stale';
    const { rows: after } = await c.query(
      `UPDATE region SET name = COALESCE($2, name), description = CASE WHEN $3 THEN $4 ELSE description END, version = version + 1, updated_at = now()
        WHERE id = $1 RETURNING *`,
      [id, change.name ?? null, change.description !== undefined, change.description ?? null],
    );
    if (change.members) await writeMembers(c, id, change.members);
    return after[0];
  });
}

/** Delete a region when its version is still `expected` (null: any). */
export async function deleteRegion(pool: Pool, organizationId: string, id: string, expected: number[] | null): Promise<'deleted' | 'missing' | 'stale'> {
  return withTransaction(pool, async (c) => {
    const { rows } = await c.query('SELECT version FROM region WHERE id = $1 AND organization_id = $2 FOR UPDATE', [id, organizationId]);
    if (!rows[0]) return 'missing';
    if (expected && !expected.includes(rows[0].version)) return 'stale';
    await c.query('DELETE FROM region WHERE id = $1', [id]);
    return 'deleted';
  });
}

/**
 * Whether a membership is in force at `as_of`, read in the member's own timezone: on the date of
 * an instant, or on any day of an interval (a member for part of it is in scope).
 */
export function inForce(m: Pick<Membership, 'timezone' | 'from' | 'through'>, asOf: TimeSpec | undefined, now = new Date()): boolean {
  const t = resolveAsOf(asOf, m.timezone, now);
  const [first, last] = t.kind === 'instant' ? [t.date, t.date] : [t.from, t.to];
  return (m.from === null || m.from <= last) && (m.through === null || m.through >= first);
}

export interface StatisticalArea {
  id: string;
  kind: string;
  code: string;
  name: string;
  source_id: string;
  citation_id: string | null;
  member: Membership[];
}

/** A statistical area with its memberships as known at `knownAt` (an ISO instant), or null. */
export async function getStatisticalArea(db: Queryable, id: string, knownAt: string): Promise<StatisticalArea | null> {
  const { rows } = await db.query('SELECT id, kind, code, name, source_id, citation_id FROM statistical_area WHERE id = $1', [id]);
  if (!rows[0]) return null;
  const { rows: member } = await db.query(
    `SELECT ${MEMBER_COLUMNS} FROM statistical_area_member m JOIN jurisdiction j ON j.id = m.jurisdiction_id
      WHERE m.statistical_area_id = $1 AND m.known @> $2::timestamptz ORDER BY j.name, j.id, lower(m.valid) NULLS FIRST`,
    [id, knownAt],
  );
  return { ...rows[0], member };
}

/** Why no statistical area can be read, from the store; null when some are held. */
export async function statisticalAreasMissing(db: Queryable): Promise<string | null> {
  const { rows } = await db.query(
    `SELECT (SELECT count(*) FROM statistical_area)::int AS areas,
            (SELECT count(*) FROM source)::int AS sources,
            (SELECT string_agg(DISTINCT kind, ', ' ORDER BY kind) FROM source) AS kinds`,
  );
  const r = rows[0];
  if (r.areas > 0) return null;
  const held = r.sources ? `the ${r.sources} source${r.sources === 1 ? '' : 's'} held (${r.kinds})` : 'no source is held';
  return `No statistical area is held: none has been loaded from any source, and ${r.sources ? `${held} state none` : held}.`;
}
