// Jurisdictions: the collection definition, the item shape (spec 2.6) and lookups.
import type { ResourceDef, SqlContext } from '../core/query/index.ts';
import type { Queryable } from './db.ts';

export const JURISDICTION_TYPES = ['state', 'county', 'city', 'town', 'township', 'village', 'borough'] as const;
export const JURISDICTION_LEVELS = ['state', 'county', 'cousub', 'place'] as const;
export type JurisdictionLevel = (typeof JURISDICTION_LEVELS)[number];

/** Name folded for matching: lower case, every run of punctuation or space one space. */
export const NORMALIZED_NAME = `trim(regexp_replace(lower(j.name), '[^[:alnum:]]+', ' ', 'g'))`;
export const normalizeName = (s: string) => s.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, ' ').trim();
/** Trigram similarity at or above which a name matches q (besides containing it). */
export const NAME_SIMILARITY = 0.3;

const COLUMNS = `j.id, j.slug, j.name, j.legal_name, j.type, j.level, j.fips_state, j.fips_county, j.fips_cousub,
  j.fips_place, j.fips_key, j.gnis_id, j.population, j.population_year, j.lifecycle_status, j.timezone,
  j.state_postal, j.parent_id, j.created_at, j.updated_at`;

export const jurisdictionResource: ResourceDef = {
  name: 'jurisdiction',
  from: 'jurisdiction j',
  id: 'j.id',
  select: COLUMNS,
  defaultSort: 'name',
  snapshotColumn: 'j.created_at',
  fields: {
    id: { sql: 'j.id', type: 'string', nullable: false },
    slug: { sql: 'j.slug', type: 'string', nullable: false },
    name: { sql: 'j.name', type: 'string', sortable: true, nullable: false },
    legal_name: { sql: 'j.legal_name', type: 'string' },
    type: { sql: 'j.type', type: 'enum', enum: JURISDICTION_TYPES, nullable: false },
    level: { sql: 'j.level', type: 'enum', enum: JURISDICTION_LEVELS, nullable: false },
    fips: { sql: `split_part(j.fips_key, ':', 3)`, type: 'string', sortable: true, nullable: false, description: 'GEOID of the jurisdiction at its level' },
    fips_key: { sql: 'j.fips_key', type: 'string', nullable: false },
    state: { sql: 'j.state_postal::text', type: 'string', nullable: false },
    county: { sql: 'j.fips_county::text', type: 'string', description: '3-digit county code' },
    gnis_id: { sql: 'j.gnis_id', type: 'string' },
    population: { sql: 'j.population', type: 'integer', sortable: true },
    population_year: { sql: 'j.population_year', type: 'integer' },
    lifecycle_status: { sql: 'j.lifecycle_status', type: 'string', nullable: false },
    timezone: { sql: 'j.timezone', type: 'string', nullable: false },
    parent: { sql: 'j.parent_id', type: 'string' },
    created_at: { sql: 'j.created_at', type: 'timestamp', sortable: true, nullable: false },
    updated_at: { sql: 'j.updated_at', type: 'timestamp', nullable: false },
    relevance: {
      sql: (c: SqlContext) => `(1 - similarity(${NORMALIZED_NAME}, ${c.bind(normalizeName(c.query ?? ''), 'text')}))::real`,
      type: 'number',
      cast: 'real',
      sortable: true,
      filterable: false,
      nullable: false,
      requiresQuery: true,
      description: 'Closeness of the name to q, best first',
    },
  },
};

export interface JurisdictionRow {
  id: string;
  slug: string;
  name: string;
  legal_name: string | null;
  type: string;
  level: JurisdictionLevel;
  fips_state: string;
  fips_county: string | null;
  fips_cousub: string | null;
  fips_place: string | null;
  fips_key: string;
  gnis_id: string | null;
  population: number | null;
  population_year: number | null;
  lifecycle_status: string;
  timezone: string;
  state_postal: string;
  parent_id: string | null;
  created_at: Date;
  updated_at: Date;
}

/** The jurisdiction of spec 2.6, with href, timezone and parent beside it. */
export function jurisdictionItem(r: JurisdictionRow) {
  return {
    id: r.id,
    slug: r.slug,
    name: r.name,
    legal_name: r.legal_name,
    type: r.type,
    gnis_id: r.gnis_id,
    population: r.population,
    population_year: r.population_year,
    lifecycle_status: r.lifecycle_status,
    fips: {
      level: r.level,
      code: r.fips_key.split(':')[2],
      state: r.fips_state,
      key: r.fips_key,
      county: r.fips_county,
      cousub: r.fips_cousub,
      place: r.fips_place,
    },
    timezone: r.timezone,
    parent: r.parent_id,
    href: `/jurisdiction/${r.id}`,
    created_at: r.created_at,
    updated_at: r.updated_at,
  };
}

export type JurisdictionItem = ReturnType<typeof jurisdictionItem>;

export async function findJurisdiction(db: Queryable, by: 'id' | 'slug' | 'fips_key', value: string): Promise<JurisdictionRow | null> {
  const column = { id: 'j.id', slug: 'j.slug', fips_key: 'j.fips_key' }[by];
  const { rows } = await db.query(`SELECT ${COLUMNS} FROM jurisdiction j WHERE ${column} = $1`, [value]);
  return rows[0] ?? null;
}

/** Parents from the nearest up (town, county, state), by parent_id. */
export async function containment(db: Queryable, id: string) {
  const { rows } = await db.query(
    `WITH RECURSIVE up AS (
       SELECT p.id, p.parent_id, 1 AS depth FROM jurisdiction c JOIN jurisdiction p ON p.id = c.parent_id WHERE c.id = $1
       UNION ALL
       SELECT p.id, p.parent_id, up.depth + 1 FROM up JOIN jurisdiction p ON p.id = up.parent_id WHERE up.depth < 12
     )
     SELECT j.id, j.name, j.slug, j.type, j.level, j.fips_key FROM up JOIN jurisdiction j ON j.id = up.id ORDER BY up.depth`,
    [id],
  );
  return rows.map((r) => ({ ...r, href: `/jurisdiction/${r.id}` }));
}

/** Agencies held for the jurisdiction's current authorities (as stated by their sources). */
export async function agencies(db: Queryable, id: string, timezone: string) {
  const { rows } = await db.query(
    `SELECT DISTINCT ON (a.subject) a.subject, a.agency, a.legal_name, a.citation_id, a.governing_jurisdiction_id
       FROM authority a
      WHERE a.jurisdiction_id = $1 AND a.agency IS NOT NULL
        AND a.valid @> (now() AT TIME ZONE $2)::date AND a.known @> now()
      ORDER BY a.subject, lower(a.valid) DESC`,
    [id, timezone],
  );
  return rows.map((r) => ({
    subject: r.subject,
    agency: r.agency,
    legal_name: r.legal_name,
    governing_jurisdiction: r.governing_jurisdiction_id,
    citation: r.citation_id,
  }));
}
