// The feature collections, derived from the schema (sql/migrations/004_law.sql, 005_records.sql):
// what each reads, its id and geometry columns, and its properties with their types. Items,
// queryables, the collection documents and the OpenAPI description are all written from these.
import { factIdIs } from '../store/fact-id.ts';

export type PropType = 'string' | 'number' | 'integer' | 'date' | 'object';

export interface Property {
  name: string;
  /** SQL over the collection's FROM (aliases t, j, d) */
  sql: string;
  type: PropType;
  title: string;
  /** objects are served but cannot be filtered on */
  queryable: boolean;
}

/** SQL expressions of the two times every bitemporal row is selected at. */
export interface SqlTimes {
  /** valid date (date); may read j.timezone */
  date: string;
  /** knowledge instant (timestamptz) */
  known: string;
}

export interface Collection {
  id: string;
  title: string;
  description: string;
  /** FROM clause: the table as t, its jurisdiction as j where bitemporal */
  from: (t: SqlTimes) => string;
  /** the FROM clause without joins that add properties but never rows: counts read it when no condition names them */
  countFrom?: (t: SqlTimes) => string;
  /** conditions every row meets (kind, geometry present, in force at the times) */
  where: (t: SqlTimes) => string[];
  /** keyset order: the feature id first, then a tiebreak when the table holds fact rows */
  keys: Array<{ sql: string; cast: 'text' | 'bigint' }>;
  geometry: string;
  geometryFormat: string;
  /** rows carry valid and known times (datetime and known_as_of apply) */
  bitemporal: boolean;
  /** map_version.layer whose first effective date opens the temporal extent */
  versionLayer: string | null;
  properties: Property[];
}

const p = (name: string, sql: string, type: PropType, title: string): Property => ({ name, sql, type, title, queryable: type !== 'object' });

const inForce = (t: SqlTimes) => [`t.valid @> ${t.date}`, `t.known @> ${t.known}`];

// The district facts of an area's district: one row per id, from the most authoritative source.
const districtFacts = (t: SqlTimes) => `LEFT JOIN LATERAL (
    SELECT d.code_normalized, NULLIF(d.local_label, '') AS label, d.type
      FROM district d JOIN source s ON s.id = d.source_id
     WHERE ${factIdIs('d', 't.district_id')} AND d.jurisdiction_id = t.jurisdiction_id AND d.valid @> ${t.date} AND d.known @> ${t.known}
     ORDER BY CASE s.kind WHEN 'code_text' THEN 0 WHEN 'district_list' THEN 1 ELSE 2 END, d.fact_id
     LIMIT 1) d ON true`;

const areaProperties: Property[] = [
  p('jurisdiction', 't.jurisdiction_id', 'string', 'Jurisdiction (jur_ id)'),
  p('district', 't.district_id', 'string', 'District (dst_ id)'),
  p('code', 't.code_raw', 'string', 'District code as the map writes it'),
  p('code_normalized', 'd.code_normalized', 'string', 'District code, normalized'),
  p('label', 'd.label', 'string', "The code's own name for the district"),
  p('type', 'd.type', 'string', 'District type (residential, commercial, mixed_use, industrial, institutional, open_space, special)'),
  p('map_version', 't.map_version_id', 'string', 'Map layer version (map_ id)'),
  p('feature_ref', 't.feature_ref', 'string', "The publisher's own feature id"),
  p('effective_from', 'lower(t.valid)', 'date', 'In force from (inclusive)'),
  p('effective_through', 'upper(t.valid)', 'date', 'In force until (exclusive); null while in force'),
  p('attributes', 't.attributes', 'object', "The publisher's attributes, as published"),
];

const areaCollection = (id: string, kind: 'base' | 'overlay', title: string, description: string, versionLayer: string): Collection => ({
  id,
  title,
  description,
  from: (t) => `district_area t JOIN jurisdiction j ON j.id = t.jurisdiction_id ${districtFacts(t)}`,
  // the district facts (alias d) are a LEFT JOIN of at most one row: they never change a count
  countFrom: () => 'district_area t JOIN jurisdiction j ON j.id = t.jurisdiction_id',
  where: (t) => [`t.kind = '${kind}'`, ...inForce(t)],
  keys: [
    { sql: 't.id', cast: 'text' },
    { sql: 't.fact_id', cast: 'bigint' },
  ],
  geometry: 't.geom',
  geometryFormat: 'geometry-multipolygon',
  bitemporal: true,
  versionLayer,
  properties: areaProperties,
});

export const COLLECTIONS: Collection[] = [
  areaCollection('districts', 'base', 'Zoning districts', 'Base zoning district polygons in force, with the code, label and type the ordinance gives each district.', 'district'),
  areaCollection('overlays', 'overlay', 'Overlay districts', 'Overlay district polygons in force, with the code, label and type the ordinance gives each.', 'overlay'),
  {
    id: 'parcels',
    title: 'Parcels',
    description: "Parcels as the assessor's map publishes them. A parcel whose published polygon has no area is not a feature here (it keeps its record at /parcel).",
    from: () => 'parcel t JOIN jurisdiction j ON j.id = t.jurisdiction_id',
    where: (t) => ['t.geom IS NOT NULL', ...inForce(t)],
    keys: [
      { sql: 't.id', cast: 'text' },
      { sql: 't.fact_id', cast: 'bigint' },
    ],
    geometry: 't.geom',
    geometryFormat: 'geometry-multipolygon',
    bitemporal: true,
    versionLayer: 'parcel',
    properties: [
      p('jurisdiction', 't.jurisdiction_id', 'string', 'Jurisdiction (jur_ id)'),
      p('parcel_key', 't.parcel_key', 'string', "The publisher's parcel id (e.g. map-lot)"),
      p('apn', 't.apn', 'string', 'Assessor parcel number'),
      p('area_sq_ft', 'round(t.area_m2 * 10.763910417)', 'number', 'Area in square feet, computed from the polygon'),
      p('map_version', 't.map_version_id', 'string', 'Map layer version (map_ id)'),
      p('effective_from', 'lower(t.valid)', 'date', 'In force from (inclusive)'),
      p('effective_through', 'upper(t.valid)', 'date', 'In force until (exclusive); null while in force'),
      p('attributes', 't.attributes', 'object', "The publisher's attributes, as published"),
    ],
  },
  {
    id: 'jurisdictions',
    title: 'Jurisdictions',
    description: 'Jurisdictions held, with their boundaries. A jurisdiction whose boundary is not held has a null geometry. Boundaries carry no valid time: datetime does not apply.',
    from: () => 'jurisdiction t',
    where: () => [],
    keys: [{ sql: 't.id', cast: 'text' }],
    geometry: 't.boundary',
    geometryFormat: 'geometry-multipolygon',
    bitemporal: false,
    versionLayer: null,
    properties: [
      p('slug', 't.slug', 'string', 'Slug'),
      p('name', 't.name', 'string', 'Name'),
      p('legal_name', 't.legal_name', 'string', 'Legal name'),
      p('type', 't.type', 'string', 'city, town, township, county, state, village or borough'),
      p('level', 't.level', 'string', 'state, county, cousub or place'),
      p('fips_key', 't.fips_key', 'string', 'us:<level>:<geoid>'),
      p('state', 't.state_postal', 'string', 'Two-letter postal code of the state'),
      p('population', 't.population', 'integer', 'Population'),
      p('population_year', 't.population_year', 'integer', 'Year of the population figure'),
      p('timezone', 't.timezone', 'string', 'IANA timezone'),
      p('parent', 't.parent_id', 'string', 'Parent jurisdiction (jur_ id)'),
      p('boundary_basis', 't.boundary_basis', 'string', 'Where the boundary came from'),
    ],
  },
];

export function collectionById(id: string): Collection | undefined {
  return COLLECTIONS.find((c) => c.id === id);
}

/** A queryable as the CQL2 compiler sees it: the feature id and the geometry are queryables too. */
export interface Queryable {
  name: string;
  sql: string;
  type: Exclude<PropType, 'object'> | 'geometry';
}

export function queryablesOf(c: Collection): Queryable[] {
  return [
    { name: 'id', sql: c.keys[0].sql, type: 'string' },
    { name: 'geometry', sql: c.geometry, type: 'geometry' },
    ...c.properties.filter((x) => x.queryable).map((x) => ({ name: x.name, sql: x.sql, type: x.type as Queryable['type'] })),
  ];
}

const SCHEMA_TYPES: Record<Exclude<PropType, 'object'>, Record<string, string>> = {
  string: { type: 'string' },
  number: { type: 'number' },
  integer: { type: 'integer' },
  date: { type: 'string', format: 'date' },
};

/** The queryables document (Part 3): a JSON Schema of the properties a filter may name. */
export function queryablesSchema(c: Collection, selfUrl: string): Record<string, unknown> {
  const properties: Record<string, unknown> = {
    id: { title: 'Feature id', type: 'string', 'x-ogc-role': 'id' },
    geometry: { title: 'Geometry', format: c.geometryFormat, 'x-ogc-role': 'primary-geometry' },
  };
  for (const x of c.properties) if (x.queryable) properties[x.name] = { title: x.title, ...SCHEMA_TYPES[x.type as Exclude<PropType, 'object'>] };
  return {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    $id: selfUrl,
    type: 'object',
    title: c.title,
    properties,
    additionalProperties: false,
  };
}
