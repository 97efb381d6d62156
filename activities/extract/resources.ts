// What each extractable resource reads: its FROM clause, how time selects its rows, and its
// columns (SQL over the FROM, and a type that decides how each format carries it). Pure data.
// Units are the spec's (2.x): areas in square feet, as OGC and tiles serve them.
import type { FieldDef, FieldType, ResourceDef } from '../../core/query/resource.ts';

export type ColumnType = 'text' | 'integer' | 'number' | 'boolean' | 'date' | 'timestamp' | 'json' | 'text[]' | 'geometry';

export interface Column {
  name: string;
  /** SQL over the resource's FROM (for geometry: the PostGIS geometry, SRID 4326) */
  sql: string;
  type: ColumnType;
  enum?: readonly string[];
  /** geometry columns: the one geometry type every value has (the column's PostGIS typmod) */
  geometryType?: 'MultiPolygon';
}

/**
 * bitemporal: `valid` selected by as_of, `known` by known_as_of. detected: known_as_of bounds
 * `detected_at` (as_of does not apply). created: known_as_of bounds `created_at`.
 */
export type TimeModel = 'bitemporal' | 'detected' | 'created';

export interface ExtractResource {
  name: string;
  from: string;
  /** the FROM's alias (bitemporal `valid`/`known` columns live on it) */
  alias: string;
  /** SQL of the row's jurisdiction id, matched against the scope */
  jurisdiction: string;
  time: TimeModel;
  /** a total, stable order, so a re-run writes the same bytes */
  order: string;
  columns: Column[];
  /** columns every selection keeps */
  fixed: string[];
}

const STATUS = ['stated', 'conflicting', 'withheld'] as const;

const text = (name: string, sql: string): Column => ({ name, sql, type: 'text' });
const json = (name: string, sql: string): Column => ({ name, sql, type: 'json' });
const multiPolygon = (sql: string): Column => ({ name: 'geometry', sql, type: 'geometry', geometryType: 'MultiPolygon' });

/** Square feet per square metre; the same factor and rounding as the OGC parcels and tiles. */
export const SQ_FT_PER_M2 = 10.763910417;

/** effective_from/effective_through (valid) and known_from (when the service first held the row). */
function bitemporal(a: string): Column[] {
  return [
    { name: 'effective_from', sql: `lower(${a}.valid)`, type: 'date' },
    { name: 'effective_through', sql: `upper(${a}.valid)`, type: 'date' },
    { name: 'known_from', sql: `lower(${a}.known)`, type: 'timestamp' },
  ];
}

/** Citation, source version and status of a law fact. */
const law = (a: string): Column[] => [
  text('citation', `${a}.citation_id`),
  text('version', `${a}.source_version_id`),
  { name: 'status', sql: `${a}.status`, type: 'text', enum: STATUS },
];

/** id, effective_from and status can never be left out (spec 4.0.7). */
function def(r: Omit<ExtractResource, 'fixed'> & { fixed?: string[] }): ExtractResource {
  const fixed = r.fixed ?? ['id', ...r.columns.filter((c) => c.name === 'effective_from' || c.name === 'status').map((c) => c.name)];
  return { ...r, fixed };
}

export const RESOURCES: Record<string, ExtractResource> = {
  jurisdiction: def({
    name: 'jurisdiction',
    from: 'jurisdiction j',
    alias: 'j',
    jurisdiction: 'j.id',
    time: 'created',
    order: 'j.id',
    columns: [
      text('id', 'j.id'), text('slug', 'j.slug'), text('name', 'j.name'), text('legal_name', 'j.legal_name'), text('type', 'j.type'),
      { name: 'level', sql: 'j.level', type: 'text', enum: ['state', 'county', 'cousub', 'place'] },
      text('fips_key', 'j.fips_key'), text('fips_state', 'j.fips_state'), text('fips_county', 'j.fips_county'), text('fips_cousub', 'j.fips_cousub'),
      text('fips_place', 'j.fips_place'), text('state_postal', 'j.state_postal'), text('gnis_id', 'j.gnis_id'),
      { name: 'population', sql: 'j.population', type: 'integer' }, { name: 'population_year', sql: 'j.population_year', type: 'integer' },
      text('lifecycle_status', 'j.lifecycle_status'), text('timezone', 'j.timezone'), text('parent', 'j.parent_id'), text('boundary_basis', 'j.boundary_basis'),
      { name: 'created_at', sql: 'j.created_at', type: 'timestamp' }, { name: 'updated_at', sql: 'j.updated_at', type: 'timestamp' },
      multiPolygon('j.boundary'),
    ],
  }),
  parcel: def({
    name: 'parcel',
    from: 'parcel p',
    alias: 'p',
    jurisdiction: 'p.jurisdiction_id',
    time: 'bitemporal',
    order: 'p.fact_id',
    columns: [
      text('id', 'p.id'), text('jurisdiction', 'p.jurisdiction_id'), text('parcel_key', 'p.parcel_key'), text('apn', 'p.apn'),
      text('map_version', 'p.map_version_id'), { name: 'area_sq_ft', sql: `round(p.area_m2 * ${SQ_FT_PER_M2})`, type: 'number' }, json('attributes', 'p.attributes'),
      ...bitemporal('p'), multiPolygon('p.geom'),
    ],
  }),
  property: def({
    name: 'property',
    from: 'property t',
    alias: 't',
    jurisdiction: 't.jurisdiction_id',
    time: 'bitemporal',
    order: 't.fact_id',
    columns: [
      text('id', 't.id'), text('jurisdiction', 't.jurisdiction_id'), text('account_key', 't.account_key'), text('parcel_key', 't.parcel_key'),
      { name: 'parcel', sql: 't.parcel_ids', type: 'text[]' }, text('county_fips', 't.county_fips'), text('label', 't.label'),
      json('address', 't.addresses'), text('legal_summary', 't.legal_summary'), json('land_area', 't.land_area'), json('current_use', 't.current_use'),
      json('assessor_zoning', 't.assessor_zoning'), json('assessment', 't.assessment'), json('tax', 't.tax'), json('ownership', 't.ownership'),
      json('structure', 't.structure'), { name: 'fiscal_year', sql: 't.fiscal_year', type: 'integer' }, text('version', 't.source_version_id'),
      ...bitemporal('t'),
    ],
  }),
  district: def({
    name: 'district',
    from: 'district d',
    alias: 'd',
    jurisdiction: 'd.jurisdiction_id',
    time: 'bitemporal',
    order: 'd.fact_id',
    columns: [
      text('id', 'd.id'), text('jurisdiction', 'd.jurisdiction_id'), { name: 'kind', sql: 'd.kind', type: 'text', enum: ['base', 'overlay'] },
      text('code_raw', 'd.code_raw'), text('code_normalized', 'd.code_normalized'), text('local_label', 'd.local_label'), text('type', 'd.type'),
      text('subtype', 'd.subtype'), text('purpose', 'd.purpose'), text('section_ref', 'd.section_ref'),
      { name: 'precedence_rank', sql: 'd.precedence_rank', type: 'integer' }, ...law('d'), ...bitemporal('d'),
    ],
  }),
  district_area: def({
    name: 'district_area',
    from: 'district_area a',
    alias: 'a',
    jurisdiction: 'a.jurisdiction_id',
    time: 'bitemporal',
    order: 'a.fact_id',
    columns: [
      text('id', 'a.id'), text('jurisdiction', 'a.jurisdiction_id'), text('district', 'a.district_id'),
      { name: 'kind', sql: 'a.kind', type: 'text', enum: ['base', 'overlay', 'future_land_use'] }, text('code_raw', 'a.code_raw'),
      text('map_version', 'a.map_version_id'), text('feature_ref', 'a.feature_ref'), json('attributes', 'a.attributes'),
      ...bitemporal('a'), multiPolygon('a.geom'),
    ],
  }),
  permission: def({
    name: 'permission',
    from: 'permission m',
    alias: 'm',
    jurisdiction: 'm.jurisdiction_id',
    time: 'bitemporal',
    order: 'm.fact_id',
    columns: [
      text('id', 'm.id'), text('jurisdiction', 'm.jurisdiction_id'), text('district', 'm.district_id'), text('use_label_raw', 'm.use_label_raw'),
      text('use', 'm.use_slug'), text('symbol', 'm.symbol'),
      { name: 'level', sql: 'm.level', type: 'text', enum: ['by_right', 'permitted_with_standards', 'administrative_approval', 'conditional_use', 'prohibited', 'unknown'] },
      text('process', 'm.process'), text('conditions', 'm.conditions'), text('table_ref', 'm.table_ref'), ...law('m'), ...bitemporal('m'),
    ],
  }),
  control: def({
    name: 'control',
    from: 'control c',
    alias: 'c',
    jurisdiction: 'c.jurisdiction_id',
    time: 'bitemporal',
    order: 'c.fact_id',
    columns: [
      text('id', 'c.id'), text('jurisdiction', 'c.jurisdiction_id'), text('district', 'c.district_id'), text('control_type', 'c.control_type'),
      text('building_type', 'c.building_type'), text('qualifier', 'c.qualifier'), { name: 'min_value', sql: 'c.min_value', type: 'number' },
      { name: 'max_value', sql: 'c.max_value', type: 'number' }, text('unit', 'c.unit'), text('value_text', 'c.value_text'),
      text('conditions', 'c.conditions'), text('table_ref', 'c.table_ref'), ...law('c'), ...bitemporal('c'),
    ],
  }),
  change_event: def({
    name: 'change_event',
    from: 'change_event e',
    alias: 'e',
    jurisdiction: 'e.jurisdiction_id',
    time: 'detected',
    order: 'e.seq',
    fixed: ['id', 'seq'],
    columns: [
      text('id', 'e.id'), { name: 'seq', sql: 'e.seq', type: 'integer' }, text('jurisdiction', 'e.jurisdiction_id'),
      { name: 'kind', sql: 'e.kind', type: 'text', enum: ['adoption', 'amendment', 'repeal', 'map_change'] },
      { name: 'layer', sql: 'e.layer', type: 'text', enum: ['authority', 'district', 'district_map', 'overlay'] },
      json('subject', 'e.subject'), text('field_path', 'e.field_path'), json('previous', 'e.previous'), json('current', 'e.current'),
      { name: 'effective_date', sql: 'e.effective_date', type: 'date' }, { name: 'adopted_on', sql: 'e.adopted_on', type: 'date' },
      { name: 'detected_at', sql: 'e.detected_at', type: 'timestamp' }, text('ordinance', 'e.ordinance_id'), text('version', 'e.source_version_id'),
    ],
  }),
};

export const RESOURCE_NAMES = Object.keys(RESOURCES);

const FIELD_TYPES: Partial<Record<ColumnType, FieldType>> = {
  text: 'string', integer: 'integer', number: 'number', boolean: 'boolean', date: 'date', timestamp: 'timestamp', 'text[]': 'string[]',
};

/** The resource as the collection filter grammar sees it: every column but json and geometry filters. */
export function filterDef(r: ExtractResource): ResourceDef {
  const fields: Record<string, FieldDef> = {};
  for (const c of r.columns) {
    const type = c.enum ? 'enum' : FIELD_TYPES[c.type];
    if (type) fields[c.name] = { sql: c.sql, type, enum: c.enum };
  }
  return { name: `extract:${r.name}`, from: r.from, id: `${r.alias}.id`, select: '', fields, defaultSort: 'id' };
}
