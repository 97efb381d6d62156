// Response schemas of the property records (GET /property, /property/{id}, /transaction), for the
// OpenAPI document and the check of every answer against it.
import type { FieldRules } from '../fields.ts';
import type { JsonSchema } from '../route.ts';

const str = { type: 'string' };
const strOrNull = { type: ['string', 'null'] };
const dateOrNull = { type: ['string', 'null'], format: 'date' };
const intOrNull = { type: ['integer', 'null'] };
const status = { enum: ['stated', 'withheld'] };
const why = { type: 'array', items: { type: 'object', required: ['field', 'reason'], properties: { field: str, reason: str } } };
const jurisdiction = { type: 'object', required: ['id'], properties: { id: { type: 'string', pattern: '^jur_' }, name: str, slug: str, href: str } };
const source = {
  type: 'object',
  required: ['key', 'kind'],
  description: 'The retained version the record was read from (a roll’s or index’s rows are not quoted).',
  properties: { key: str, kind: str, document: strOrNull, version: strOrNull, version_number: intOrNull, retrieved_at: strOrNull, url: strOrNull },
};
/** A value the record states, or withheld with why. */
const stated = (properties: Record<string, unknown>) => ({ type: 'object', required: ['status'], properties: { ...properties, status, reason: str, withheld: why } });
const money = { type: 'object', required: ['amount_cents', 'status'], properties: { amount_cents: intOrNull, currency: { const: 'USD' }, status, reason: str } };

export const TRANSACTION: JsonSchema = {
  type: 'object',
  required: ['id', 'object', 'kind', 'jurisdiction', 'consideration', 'party', 'property', 'source', 'status'],
  properties: {
    id: { type: 'string', pattern: '^txn_' },
    object: { const: 'transaction' },
    kind: { enum: ['sale', 'transfer', 'mortgage', 'assignment'] },
    nominal: { type: 'boolean', description: 'A deed stating consideration at or below the nominal threshold ($100): a transfer, not a sale.' },
    jurisdiction,
    recorded_on: dateOrNull,
    sale_date: dateOrNull,
    consideration: money,
    instrument: {
      type: 'object',
      properties: { document: strOrNull, type: strOrNull, number: strOrNull, book: strOrNull, page: strOrNull, image: { enum: ['public', 'not_redistributed'] }, href: strOrNull },
    },
    party: { type: 'array', items: { type: 'object', required: ['name', 'role'], properties: { name: str, role: str } } },
    property: { type: 'array', items: { type: 'string', pattern: '^pty_' } },
    parcel_key: { type: 'array', items: str },
    address: { type: 'array', items: { type: 'object' } },
    reference: { type: 'array', items: { type: 'object' } },
    source,
    status: { const: 'stated' },
    withheld: why,
    filter_outcome: { enum: ['match', 'indeterminate'] },
  },
};

export const PROPERTY: JsonSchema = {
  type: 'object',
  required: ['id', 'object', 'jurisdiction', 'label', 'parcel', 'source', 'source_freshness', 'href', 'status'],
  properties: {
    id: { type: 'string', pattern: '^pty_' },
    object: { const: 'property' },
    jurisdiction,
    county_fips: strOrNull,
    label: str,
    parcel: { type: 'array', items: { type: 'string', pattern: '^prc_' } },
    parcel_key: strOrNull,
    account_key: str,
    address: { type: 'array', items: { type: 'object' } },
    legal_summary: strOrNull,
    fiscal_year: intOrNull,
    effective_from: dateOrNull,
    effective_through: dateOrNull,
    land_area: stated({ value: { type: ['number', 'null'] }, unit: { enum: ['sq_ft', 'acre', null] }, source: str }),
    current_use: stated({ code: strOrNull, description: strOrNull }),
    assessor_zoning: stated({ code: str, official: { type: 'boolean' }, note: str }),
    distance: stated({ value: { type: ['number', 'null'] }, unit: { const: 'ft' }, basis: str }),
    assessment: stated({
      fiscal_year: intOrNull,
      land_value_cents: intOrNull,
      building_value_cents: intOrNull,
      total_value_cents: intOrNull,
      previous_total_value_cents: intOrNull,
      tax_district: strOrNull,
      residential_exemption: { type: ['boolean', 'null'] },
    }),
    tax: stated({ fiscal_year: intOrNull, amount_cents: intOrNull }),
    ownership: stated({
      basis: { enum: ['assessor_roll', 'recorded_instrument'] },
      owners: { type: 'array', items: str },
      on_record_since: dateOrNull,
      mailing_address: { type: ['object', 'null'] },
      last_sale: { type: 'object' },
      transaction: { type: 'object' },
      roll: { type: 'object' },
      source,
    }),
    structure: stated({ item: { type: 'array', items: { type: 'object' } } }),
    transaction: { type: 'array', items: TRANSACTION },
    transaction_total: { type: 'integer', minimum: 0 },
    source,
    source_freshness: {
      type: 'object',
      description: 'Keyed by the date each source version the answer read was retrieved (in the jurisdiction’s timezone): the keys of those sources.',
      additionalProperties: { type: 'array', items: str },
    },
    coverage: { type: 'object', properties: { jurisdiction: str, layer: { type: 'object' }, href: str } },
    href: str,
    status: { const: 'stated' },
    segment: {
      type: 'array',
      description: 'GET /property/{id} over an interval as_of: the maximal runs of days over which the record (and the sections included) was the same; on_record false where no roll was in force.',
      items: { type: 'object', required: ['from', 'to', 'on_record'], properties: { from: { type: 'string', format: 'date' }, to: { type: 'string', format: 'date' }, on_record: { type: 'boolean' } } },
    },
    filter_outcome: { enum: ['match', 'indeterminate'] },
  },
};

export const PROPERTY_FIELDS: FieldRules = {
  fixed: ['id'],
  known: Object.keys(PROPERTY.properties as Record<string, unknown>),
};
