// Response schemas of permits, applications, cases (spec 2.8), meetings and metrics, for the
// OpenAPI document and the check of every answer against it.
import type { JsonSchema } from '../route.ts';

const str = { type: 'string' };
const strOrNull = { type: ['string', 'null'] };
const numOrNull = { type: ['number', 'null'] };
const intOrNull = { type: ['integer', 'null'] };
const dateOrNull = { type: ['string', 'null'], format: 'date' };
const codeDescription = { type: 'object', required: ['code', 'description'], properties: { code: strOrNull, description: strOrNull } };
const outcome = { enum: ['match', 'indeterminate'] };

export const CITATION: JsonSchema = {
  type: ['object', 'null'],
  required: ['id', 'quote'],
  description: 'The public source row the record was read from, quoted verbatim from the retained version (null for a record loaded before citations were kept).',
  properties: { id: { type: 'string', pattern: '^cit_' }, quote: str, locator: { type: 'object' }, document: str, version: str, url: strOrNull, retrieved_at: str, href: str },
};

const jurisdiction = { type: 'object', required: ['id', 'name', 'href'], properties: { id: { type: 'string', pattern: '^jur_' }, name: str, slug: str, type: strOrNull, fips: strOrNull, href: str } };
const within = { type: 'array', items: { type: 'object', required: ['id', 'name'], properties: { id: str, name: str, tier: str, type: strOrNull, fips: strOrNull } } };
const fullAddress = {
  type: 'object',
  required: ['raw'],
  properties: { raw: str, recipient: strOrNull, street_line_1: strOrNull, street_line_2: strOrNull, street_number: strOrNull, street_name: strOrNull, unit: { type: ['string', 'array', 'null'] }, locality: strOrNull, region: strOrNull, postal_code: strOrNull, point: { type: ['object', 'null'] } },
};
const shortAddress = { type: 'object', required: ['formatted'], properties: { formatted: str, city: strOrNull, state: strOrNull, postal_code: strOrNull } };
const party = { type: 'object', required: ['name', 'role'], properties: { name: str, role: str, organization: strOrNull, license: strOrNull } };
const fee = { type: 'object', required: ['currency'], properties: { category: strOrNull, total: numOrNull, paid: numOrNull, unpaid: numOrNull, waived: numOrNull, currency: str } };
const decision = {
  type: ['object', 'null'],
  description: 'null: pending (spec 3.1).',
  required: ['outcome', 'conditions'],
  properties: {
    outcome: codeDescription,
    decided_on: dateOrNull,
    effective_from: dateOrNull,
    effective_to: dateOrNull,
    conditions: { type: 'array', items: { type: 'object', required: ['text'], properties: { text: str, scope: strOrNull, timing: strOrNull, due: strOrNull } } },
  },
};
const parcels = { type: 'array', items: { type: 'object', required: ['id', 'number', 'href'], properties: { id: { type: ['string', 'null'], pattern: '^prc_' }, number: str, href: strOrNull } } };
const zoning = { type: 'array', items: { type: 'object', required: ['id', 'code'], properties: { id: { type: ['string', 'null'], pattern: '^dst_' }, code: str, role: strOrNull, href: str } } };
const document = { type: 'object', required: ['url', 'retrieved'], properties: { url: strOrNull, retrieved: strOrNull, source: strOrNull } };
const dates = (issued: boolean) => ({
  type: 'object',
  required: ['applied', 'decided', 'expires', 'completed', ...(issued ? ['issued'] : [])],
  properties: { applied: dateOrNull, decided: dateOrNull, expires: dateOrNull, completed: dateOrNull, ...(issued ? { issued: dateOrNull } : {}) },
});

const common = {
  number: str,
  type: codeDescription,
  status: codeDescription,
  jurisdiction,
  within,
  agency: { type: 'object', properties: { name: strOrNull, type: strOrNull } },
  description: strOrNull,
  parcels,
  parties: { type: 'array', items: party },
  fees: { type: 'array', items: fee },
  decision,
  document,
  citation: CITATION,
  as_of: { type: 'string', format: 'date' },
  known_as_of: str,
  created_at: str,
  updated_at: str,
  href: str,
  filter_outcome: outcome,
};
const REQUIRED = ['object', 'id', 'number', 'type', 'status', 'jurisdiction', 'parcels', 'dates', 'decision', 'citation', 'href'];
const valuation = { type: ['object', 'null'], required: ['amount', 'currency'], properties: { amount: { type: 'number' }, currency: str } };

export const PERMIT: JsonSchema = {
  type: 'object',
  required: REQUIRED,
  properties: { object: { const: 'permit' }, id: { type: 'string', pattern: '^pmt_' }, ...common, addresses: { type: 'array', items: fullAddress }, dates: dates(true), valuation },
};

export const APPLICATION: JsonSchema = {
  type: 'object',
  required: [...REQUIRED, 'kind'],
  properties: { object: { const: 'application' }, id: { type: 'string', pattern: '^apl_' }, kind: { const: 'permit' }, ...common, addresses: { type: 'array', items: shortAddress }, dates: dates(true), valuation, zoning },
};

export const PERMIT_OR_APPLICATION: JsonSchema = { anyOf: [PERMIT, APPLICATION] };

export const CASE: JsonSchema = {
  type: 'object',
  required: REQUIRED,
  properties: { object: { const: 'case' }, id: { type: 'string', pattern: '^cas_' }, ...common, addresses: { type: 'array', items: fullAddress }, dates: dates(false), zoning },
};

const recordRef = { type: 'object', required: ['number', 'id'], properties: { number: str, id: strOrNull, href: strOrNull } };

export const MEETING: JsonSchema = {
  type: 'object',
  required: ['id', 'jurisdiction', 'body', 'date', 'status', 'agenda', 'decision', 'citation'],
  properties: {
    id: { type: 'string', pattern: '^mtg_' },
    key: str,
    jurisdiction,
    body: { type: 'object', required: ['name', 'type'], properties: { name: str, type: strOrNull } },
    date: { type: 'string', format: 'date' },
    time: strOrNull,
    timezone: str,
    location: strOrNull,
    status: { enum: ['scheduled', 'held', 'cancelled', 'postponed', null] },
    status_raw: strOrNull,
    agenda: { type: 'array', items: { type: 'object', required: ['title'], properties: { item: strOrNull, title: str, case: { oneOf: [recordRef, { type: 'null' }] }, ordinance: { oneOf: [recordRef, { type: 'null' }] } } } },
    decision: {
      type: 'array',
      items: {
        type: 'object',
        required: ['outcome'],
        properties: {
          item: strOrNull,
          case: { oneOf: [recordRef, { type: 'null' }] },
          ordinance: { oneOf: [recordRef, { type: 'null' }] },
          outcome: codeDescription,
          text: strOrNull,
          vote: { type: ['object', 'null'], properties: { yes: intOrNull, no: intOrNull, abstain: intOrNull, absent: intOrNull } },
        },
      },
    },
    document: { type: 'object', properties: { agenda_url: strOrNull, minutes_url: strOrNull } },
    citation: CITATION,
    filter_outcome: outcome,
  },
};

export const METRIC: JsonSchema = {
  type: 'object',
  required: ['metric', 'jurisdiction', 'status', 'derivation'],
  properties: {
    metric: str,
    jurisdiction,
    status: { enum: ['stated', 'withheld'] },
    value: { type: ['number', 'null'] },
    unit: str,
    group: { type: 'array', items: { type: 'object', required: ['key', 'value'], properties: { key: { type: ['string', 'number', 'null'] }, value: { type: ['number', 'null'] }, count: intOrNull } } },
    reason: str,
    as_of: { type: 'string', format: 'date' },
    known_as_of: str,
    derivation: {
      type: 'object',
      required: ['statement', 'tables', 'counted', 'as_of', 'known_as_of'],
      properties: { statement: str, tables: { type: 'array', items: str }, counted: str, excluded: { type: 'object' }, as_of: str, known_as_of: str, sql: str },
    },
  },
};

export const COVERAGE_ROW: JsonSchema = {
  type: 'object',
  required: ['jurisdiction', 'layer', 'held', 'tier'],
  properties: {
    jurisdiction,
    layer: str,
    held: { type: 'boolean' },
    tier: { enum: ['full', 'partial', 'none'] },
    reason: str,
    last_retrieved_at: strOrNull,
    last_changed_at: strOrNull,
    earliest_retained: strOrNull,
    source: { type: 'array', items: { type: 'object' } },
    filter_outcome: outcome,
  },
};
