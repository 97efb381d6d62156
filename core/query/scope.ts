// Scope parameters (spec 4.0.4) for searches across towns: exactly one of region, jurisdiction
// (repeatable), state, county or geometry (with buffer in feet). Resolved to jurisdiction ids;
// a region to its members in force at as_of.
// A value that names nothing held is 422 naming the parameter (spec 1.2.3: 404 is for path ids).
import { ApiError, invalid } from '../errors.ts';
import { isId, requireId } from '../ids.ts';
import { stateFips } from '../states.ts';
import type { TimeSpec } from '../time.ts';
import type { Queryable } from '../../store/db.ts';
import { getRegion, getStatisticalArea, inForce, type Membership, regionMembers, statisticalAreasMissing } from '../../store/regions.ts';
import type { Param } from './param.ts';

export const SCOPE_PARAMS: Param[] = [
  { name: 'region', in: 'query', type: 'string', description: 'A rgn_ saved region or sta_ statistical area.' },
  { name: 'jurisdiction', in: 'query', type: 'array', maxItems: 100, description: 'jur_ ids, slugs or fips_keys; repeatable.' },
  { name: 'state', in: 'query', type: 'string', description: 'Two-letter postal code or two-digit FIPS.' },
  { name: 'county', in: 'query', type: 'string', description: "5-digit county FIPS or a county's jur_ id." },
  { name: 'geometry', in: 'query', type: 'string', description: 'WKT or GeoJSON: jurisdictions that intersect it.' },
  { name: 'buffer', in: 'query', type: 'number', min: 0, max: 52_800, description: 'Feet around geometry.' },
];

export interface Scope {
  kind: 'region' | 'jurisdiction' | 'state' | 'county' | 'geometry';
  ids: string[];
  /** what was asked, for coverage notes */
  label: string;
}

const SCOPE_NAMES = ['region', 'jurisdiction', 'state', 'county', 'geometry'];

/**
 * Who asks and when, for a region: only the caller's organization's saved regions are seen (none
 * without one), and membership resolves at `asOf` (default now) in each member's timezone.
 */
export interface ScopeContext {
  organizationId?: string | null;
  asOf?: TimeSpec;
  now?: Date;
}

/** The scope when one is given, or null (every jurisdiction) when none is: for the change feed. */
export async function resolveOptionalScope(db: Queryable, p: Record<string, unknown>, ctx: ScopeContext = {}): Promise<Scope | null> {
  if (SCOPE_NAMES.some((k) => p[k] !== undefined)) return resolveScope(db, p, ctx);
  if (p.buffer !== undefined) throw invalid('buffer', 'buffer applies to geometry');
  return null;
}

/**
 * A rgn_ saved region of the caller's organization or a sta_ statistical area, as the members
 * in force at as_of. Another organization's region reads exactly as one that does not exist.
 */
async function regionScope(db: Queryable, ref: string, ctx: ScopeContext): Promise<Scope> {
  const id = requireId(['region', 'statistical_area'], ref, 'region');
  let name: string;
  let members: Membership[];
  if (id.startsWith('rgn_')) {
    const row = ctx.organizationId ? await getRegion(db, ctx.organizationId, id) : null;
    if (!row) throw invalid('region', `no saved region of this organization has the id ${id}`);
    name = row.name;
    members = (await regionMembers(db, [id])).get(id)!;
  } else {
    const missing = await statisticalAreasMissing(db);
    if (missing) throw new ApiError('not_available', { field: 'region', detail: missing });
    const area = await getStatisticalArea(db, id, (ctx.now ?? new Date()).toISOString());
    if (!area) throw invalid('region', `no statistical area held has the id ${id}`);
    name = area.name;
    members = area.member;
  }
  const ids = [...new Set(members.filter((m) => inForce(m, ctx.asOf, ctx.now)).map((m) => m.jurisdiction_id))];
  return { kind: 'region', ids, label: `region ${name} (${id})` };
}

export async function resolveScope(db: Queryable, p: Record<string, any>, ctx: ScopeContext = {}): Promise<Scope> {
  const given = SCOPE_NAMES.filter((k) => p[k] !== undefined);
  if (given.length === 0) throw invalid('jurisdiction', 'name one scope: jurisdiction, state, county, geometry or region');
  if (given.length > 1) throw invalid(given[1], `give one scope, not ${given.join(' and ')}`);
  if (p.buffer !== undefined && !p.geometry) throw invalid('buffer', 'buffer applies to geometry');
  if (p.region) return regionScope(db, String(p.region), ctx);
  if (p.jurisdiction) {
    const wanted = p.jurisdiction as string[];
    const { rows } = await db.query('SELECT id, slug, fips_key FROM jurisdiction WHERE id = ANY($1) OR slug = ANY($1) OR fips_key = ANY($1)', [wanted]);
    const missing = wanted.filter((w) => !rows.some((r) => r.id === w || r.slug === w || r.fips_key === w));
    if (missing.length) throw invalid('jurisdiction', `not a jurisdiction held: ${missing.join(', ')}`);
    return { kind: 'jurisdiction', ids: rows.map((r) => r.id), label: wanted.join(',') };
  }
  if (p.state) {
    const fips = stateFips(p.state, 'state');
    const { rows } = await db.query('SELECT id FROM jurisdiction WHERE fips_state = $1', [fips]);
    return { kind: 'state', ids: rows.map((r) => r.id), label: `state ${p.state}` };
  }
  if (p.county) {
    const raw = String(p.county);
    let rows: Array<{ id: string }>;
    if (raw.startsWith('jur_')) {
      if (!isId('jurisdiction', raw)) throw new ApiError('id_malformed', { field: 'county', detail: `${JSON.stringify(raw)} is not a well-formed jur_ id` });
      const c = await db.query(`SELECT level, fips_state, fips_county FROM jurisdiction WHERE id = $1`, [raw]);
      if (!c.rows[0]) throw invalid('county', `no jurisdiction held has the id ${raw}`);
      if (c.rows[0].level !== 'county') throw invalid('county', `${raw} is a ${c.rows[0].level}, not a county`);
      rows = (await db.query('SELECT id FROM jurisdiction WHERE fips_state = $1 AND fips_county = $2', [c.rows[0].fips_state, c.rows[0].fips_county])).rows;
    } else if (/^\d{5}$/.test(raw)) {
      rows = (await db.query('SELECT id FROM jurisdiction WHERE fips_state = $1 AND fips_county = $2', [raw.slice(0, 2), raw.slice(2)])).rows;
    } else throw invalid('county', `${JSON.stringify(raw)} is not a 5-digit county FIPS or a county's jur_ id`);
    return { kind: 'county', ids: rows.map((r) => r.id), label: `county ${raw}` };
  }
  const text = String(p.geometry).trim();
  const { rows } = await db
    .query(
      `WITH g AS (SELECT CASE WHEN $2 THEN ST_SetSRID(ST_GeomFromGeoJSON($1), 4326) ELSE ST_GeomFromText($1, 4326) END AS geom)
       SELECT j.id FROM jurisdiction j, g
        WHERE j.boundary IS NOT NULL AND ST_DWithin(j.boundary::geography, g.geom::geography, $3::float8)`,
      [text, text.startsWith('{'), (p.buffer ?? 0) * 0.3048],
    )
    .catch((err: Error & { code?: string }) => {
      // a timeout or a lost connection is not the caller's geometry; PostgreSQL's words never reach the caller
      if (err.code && /^(08|53|57)/.test(err.code)) throw err;
      throw invalid('geometry', 'is not valid WKT or GeoJSON (Point through MultiPolygon, GeoJSON in lon,lat)');
    });
  return { kind: 'geometry', ids: rows.map((r) => r.id), label: 'geometry' };
}
