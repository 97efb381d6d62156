// How an assessor roll's columns map onto property fields. Mappings are data (mappings/*.json);
// a source whose columns differ needs a new mapping, not new code.
export type FieldType = 'text' | 'cents' | 'number' | 'integer' | 'year' | 'date' | 'boolean';

/** Every field a roll may state: its type and where it lands in a PropertyRow. */
export const ROLL_FIELDS = {
  account_key: { type: 'text', path: 'account_key' },
  building_number: { type: 'text', path: 'structures[].building_number' },
  parcel_key: { type: 'text', path: 'parcel_key' },
  map_lot: { type: 'text', path: 'map_lot' },
  address: { type: 'text', path: 'label' },
  unit: { type: 'text', path: 'addresses[0].unit' },
  use_code: { type: 'text', path: 'current_use.code' },
  use_description: { type: 'text', path: 'current_use.description' },
  land_area: { type: 'number', path: 'land_area' },
  fiscal_year: { type: 'integer', path: 'fiscal_year' },
  tax_district: { type: 'text', path: 'assessment.tax_district' },
  residential_exemption: { type: 'boolean', path: 'assessment.residential_exemption' },
  land_value: { type: 'cents', path: 'assessment.land_value_cents' },
  building_value: { type: 'cents', path: 'assessment.building_value_cents' },
  total_value: { type: 'cents', path: 'assessment.total_value_cents' },
  previous_total_value: { type: 'cents', path: 'assessment.previous_total_value_cents' },
  tax_amount: { type: 'cents', path: 'tax.amount_cents' },
  owner_name: { type: 'text', path: 'ownership.owners' },
  co_owner_name: { type: 'text', path: 'ownership.owners' },
  owner_address_1: { type: 'text', path: 'ownership.mailing_address.street_line_1' },
  owner_address_2: { type: 'text', path: 'ownership.mailing_address.street_line_2' },
  owner_city: { type: 'text', path: 'ownership.mailing_address.locality' },
  owner_state: { type: 'text', path: 'ownership.mailing_address.region' },
  owner_zip: { type: 'text', path: 'ownership.mailing_address.postal_code' },
  sale_price: { type: 'cents', path: 'sales[0].consideration_cents' },
  sale_date: { type: 'date', path: 'sales[0].sale_date' },
  book_page: { type: 'text', path: 'sales[0].book_page' },
  book: { type: 'text', path: 'sales[0].book' },
  page: { type: 'text', path: 'sales[0].page' },
  zoning: { type: 'text', path: 'assessor_zoning' },
  style: { type: 'text', path: 'structures[].style' },
  occupancy: { type: 'text', path: 'structures[].occupancy' },
  stories: { type: 'text', path: 'structures[].stories' },
  year_built: { type: 'year', path: 'structures[].year_built' },
  living_area: { type: 'number', path: 'structures[].living_area_sq_ft' },
  gross_area: { type: 'number', path: 'structures[].gross_area_sq_ft' },
  units: { type: 'integer', path: 'structures[].units' },
  rooms: { type: 'integer', path: 'structures[].rooms' },
  bedrooms: { type: 'integer', path: 'structures[].bedrooms' },
  full_baths: { type: 'integer', path: 'structures[].full_baths' },
  half_baths: { type: 'integer', path: 'structures[].half_baths' },
} as const satisfies Record<string, { type: FieldType; path: string }>;

export type RollField = keyof typeof ROLL_FIELDS;

/** Fields read per building rather than per account. */
export const STRUCTURE_FIELDS: RollField[] = (Object.keys(ROLL_FIELDS) as RollField[]).filter((f) =>
  ROLL_FIELDS[f].path.startsWith('structures[]'),
);

export interface AssessorMapping {
  name: string;
  title?: string;
  notes?: string[];
  encoding?: 'utf-8' | 'windows-1252' | 'latin1';
  /** field → column header */
  columns: Partial<Record<RollField, string>>;
  /** when no account column: the columns whose values together identify a row */
  account_key_columns?: string[];
  /** fiscal year stated by the publication itself (file name, title) when no column states it */
  fiscal_year?: number;
  land_area_unit: 'sq_ft' | 'acre';
  /** the locality and state of site addresses: the publisher's own jurisdiction */
  site_locality?: { locality: string | null; region: string | null };
  /** whether the roll's zoning column is the official zoning (Cambridge marks it unofficial) */
  zoning_official?: boolean;
  /** cells meaning "no value", by field; "*" applies to every field; blank always counts */
  placeholders?: Partial<Record<RollField | '*', string[]>>;
  /** fields whose blank means "none" (no unit, no co-owner), not "not stated" */
  optional?: RollField[];
  /** other per-building columns kept as printed: attribute name → column header */
  structure_attributes?: Record<string, string>;
  /** at or below this consideration (dollars), a deed is a nominal transfer, not a sale */
  nominal_consideration_dollars?: number;
}

export class MappingError extends Error {}

/** Throws naming every problem: unknown fields, a missing key, a bad land area unit. */
export function checkMapping(m: AssessorMapping): AssessorMapping {
  const problems: string[] = [];
  for (const f of Object.keys(m.columns ?? {})) if (!(f in ROLL_FIELDS)) problems.push(`unknown field ${f}`);
  for (const f of Object.keys(m.placeholders ?? {})) if (f !== '*' && !(f in ROLL_FIELDS)) problems.push(`unknown placeholder field ${f}`);
  if (!m.columns?.account_key && !m.account_key_columns?.length) problems.push('needs columns.account_key or account_key_columns');
  if (!m.columns?.parcel_key) problems.push('needs columns.parcel_key');
  if (!m.columns?.address) problems.push('needs columns.address');
  if (m.land_area_unit !== 'sq_ft' && m.land_area_unit !== 'acre') problems.push('land_area_unit must be sq_ft or acre');
  if (m.columns?.book_page && (m.columns.book || m.columns.page)) problems.push('map book_page or book and page, not both');
  if (problems.length) throw new MappingError(`assessor mapping ${m.name ?? '(unnamed)'}: ${problems.join('; ')}`);
  return m;
}

/** The header columns a mapping needs that a file lacks. */
export function missingColumns(m: AssessorMapping, header: string[]): string[] {
  const have = new Set(header);
  const need = [...Object.values(m.columns), ...(m.account_key_columns ?? []), ...Object.values(m.structure_attributes ?? {})];
  return [...new Set(need.filter((c): c is string => typeof c === 'string' && !have.has(c)))];
}
