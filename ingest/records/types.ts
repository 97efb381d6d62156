// Records the property-record parsers produce. Pure data: ids and hrefs are assigned by the
// loader; keys here are the publisher's own (parcel key, account key, instrument number).
// Money is integer cents unless a field says otherwise. A value the source does not state is
// null, and its field path is listed in `withheld` where the record has that list.
import type { FullAddress } from '../../core/address.ts';
import type { ParseIssue } from '../types.ts';

export type { ParseIssue };

/** A source line that could not become a record, kept with the reason. */
export interface Rejected {
  line: number; // 1-based physical line (CSV) or 1-based item index (JSON feeds)
  reason: string;
  raw: string;
  /** the record keys the line seems to name, when they can be read (what is held for them is kept) */
  keys?: string[];
}

/** Address in the spec's full form (2.8), minus `point` which no roll states. */
export type { FullAddress } from '../../core/address.ts';

export interface CodeDescription {
  code: string | null;
  description: string | null;
}

export interface Party {
  name: string;
  role: string;
  organization: string | null;
  license: string | null;
}

// ---- assessor roll ----

export interface Assessment {
  fiscal_year: number | null;
  land_value_cents: number | null;
  building_value_cents: number | null;
  total_value_cents: number | null;
  previous_total_value_cents: number | null;
  tax_district: string | null;
  residential_exemption: boolean | null;
}

export interface Tax {
  fiscal_year: number | null;
  amount_cents: number | null;
}

export interface Ownership {
  owners: string[]; // names as printed, owner then co-owner
  mailing_address: FullAddress | null;
}

export interface Structure {
  building_number: string | null;
  style: string | null;
  occupancy: string | null;
  stories: string | null; // as printed ("2.75")
  year_built: number | null;
  living_area_sq_ft: number | null;
  gross_area_sq_ft: number | null;
  units: number | null;
  rooms: number | null;
  bedrooms: number | null;
  full_baths: number | null;
  half_baths: number | null;
  /** other described columns, as printed (non-blank only) */
  attributes: Record<string, string>;
}

/** The last recorded sale (deed transfer) the roll reports. */
export interface RollSale {
  kind: 'sale' | 'transfer';
  consideration_cents: number | null;
  sale_date: string | null;
  book: string | null;
  page: string | null;
  reference_raw: string | null; // the book/page cell as printed
}

export interface PropertyRow {
  line: number; // first source line
  lines: number[]; // every source line folded into this row (one per building)
  account_key: string;
  account_key_basis: 'column' | 'derived';
  parcel_key: string | null;
  map_lot: string | null; // the record's own map-lot (a condominium unit's extends its parcel's)
  fiscal_year: number | null;
  label: string; // the site address as printed
  addresses: FullAddress[];
  address_keys: string[]; // normalized matching keys (see address.ts)
  land_area: { value: number; unit: 'sq_ft' | 'acre' } | null;
  current_use: CodeDescription | null;
  assessor_zoning: { code: string; official: boolean } | null;
  assessment: Assessment;
  tax: Tax;
  ownership: Ownership;
  structures: Structure[];
  sales: RollSale[];
  withheld: string[]; // field paths stated as blank, zero or a placeholder
  invalid: string[]; // field paths whose stated value could not be read (see issues)
}

// ---- recorder index ----

export type TransactionKind = 'sale' | 'transfer' | 'mortgage' | 'assignment';
export type PartyRole = 'grantor' | 'grantee' | 'mortgagor' | 'mortgagee' | 'assignor' | 'assignee';

export interface InstrumentRef {
  instrument_number: string | null;
  book: string | null;
  page: string | null;
}

export interface RecordedInstrument {
  doc_type: 'recorded_instrument';
  natural_key: string; // instrument number, else book/page
  instrument_type: string; // as indexed
  instrument_number: string | null;
  book: string | null;
  page: string | null;
  recorded_on: string | null;
  instrument_date: string | null;
  consideration_cents: number | null;
  parties: Array<{ name: string; role: PartyRole }>;
  parcel_keys: string[];
  addresses: FullAddress[];
  address_keys: string[];
  references: InstrumentRef[];
  lines: number[];
}

export interface TransactionRecord {
  natural_key: string; // the instrument's natural key
  kind: TransactionKind;
  nominal: boolean; // consideration stated at or below the nominal threshold
  consideration_cents: number | null;
  sale_date: string | null; // instrument date, for kind sale only
  recorded_on: string | null;
  instrument_number: string | null;
  book: string | null;
  page: string | null;
  parcel_keys: string[];
  addresses: FullAddress[];
  parties: Array<{ name: string; role: PartyRole }>;
  references: InstrumentRef[];
}

// ---- ordinances and moratoriums ----

export type OrdinanceKind = 'text_amendment' | 'map_amendment' | 'standalone' | 'moratorium';
export type OrdinanceStatus = 'proposed' | 'introduced' | 'adopted' | 'failed';
export type OrdinanceSubject = 'solar' | 'wind' | 'battery_storage' | 'noise';

export interface OrdinanceRecord {
  number: string;
  title: string;
  kind: OrdinanceKind | null;
  kind_raw: string | null;
  status: OrdinanceStatus | null;
  status_raw: string | null;
  subject: OrdinanceSubject | null;
  subject_raw: string | null;
  introduced_on: string | null;
  adopted_on: string | null;
  effective_from: string | null;
  href: string | null; // the ordinance text, resolved against the page's URL
  row_text: string; // the table row as printed, cells joined by " | "
  line: number; // 1-based row index in its table
}

export interface MoratoriumRecord {
  title: string;
  ordinance_number: string | null;
  uses: string[]; // local labels as printed
  effective_from: string | null;
  effective_through: string | null;
  area: { scope: 'jurisdiction' } | { scope: 'district'; codes: string[] } | { scope: 'unknown'; raw: string };
  href: string | null;
  row_text: string;
  line: number;
}

// ---- permits, cases, applications ----

export interface Fee {
  category: string | null;
  total: number | null; // currency units as stated (USD), not cents: the spec's Fee shape
  paid: number | null;
  unpaid: number | null;
  waived: number | null;
  currency: string;
}

export interface Decision {
  outcome: CodeDescription;
  decided_on: string | null;
  effective_from: string | null;
  effective_to: string | null;
  conditions: Array<{ text: string; scope: string | null; timing: string | null; due: string | null }>;
}

export interface LandRecordDates {
  applied: string | null;
  issued: string | null;
  decided: string | null;
  expires: string | null;
  completed: string | null;
}

export interface LandRecordBody {
  object: 'permit' | 'case' | 'application';
  kind?: 'permit';
  number: string;
  type: CodeDescription;
  status: CodeDescription;
  agency: { name: string | null; type: string | null };
  description: string | null;
  parcel_keys: string[];
  addresses: FullAddress[];
  parties: Party[];
  dates: LandRecordDates;
  valuation: { amount: number; currency: string } | null;
  fees: Fee[];
  decision: Decision | null; // null: pending
  zoning?: Array<{ code: string; role: string | null }>; // applications and cases; permits have none (spec 2.8)
  document: { url: string | null } | null;
  line: number; // 1-based index in the feed
}
