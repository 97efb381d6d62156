// Response schemas of the searches over law (ordinances, moratoriums, law hits, sections), for
// the OpenAPI document and the check of every answer against it.
import type { JsonSchema } from '../route.ts';

const str = { type: 'string' };
const strOrNull = { type: ['string', 'null'] };
const dateOrNull = { type: ['string', 'null'], format: 'date' };
const jurisdiction = { type: 'object', required: ['id'], properties: { id: { type: 'string', pattern: '^jur_' }, name: str, slug: str, href: str } };
const citation = {
  type: ['object', 'null'],
  required: ['id'],
  properties: { id: { type: 'string', pattern: '^cit_' }, quote: str, section_ref: strOrNull, locator: { type: 'object' }, document: str, version: str, url: strOrNull, href: str },
};
const segment = {
  type: 'array',
  description: 'Over an interval as_of: the maximal runs of days over which the status was the same (null where not on record).',
  items: { type: 'object', required: ['from', 'to'], properties: { from: { type: 'string', format: 'date' }, to: { type: 'string', format: 'date' }, status: strOrNull } },
};
const outcome = { enum: ['match', 'indeterminate'] };

export const ORDINANCE: JsonSchema = {
  type: 'object',
  required: ['id', 'jurisdiction', 'title', 'kind', 'href'],
  properties: {
    id: { type: 'string', pattern: '^ord_' },
    jurisdiction,
    number: strOrNull,
    title: str,
    kind: { enum: ['text_amendment', 'map_amendment', 'standalone', 'moratorium'] },
    status: { enum: ['proposed', 'introduced', 'adopted', 'failed', null], description: 'On the (last) date asked; null before it was introduced.' },
    subject: { type: 'array', items: str },
    introduced_on: dateOrNull,
    adopted_on: dateOrNull,
    effective_from: dateOrNull,
    url: { type: ['string', 'null'], description: "The publisher's page of the ordinance's own text, as the clerk's list links it." },
    href: str,
    citation,
    moratorium: { type: 'array', items: { type: 'string', pattern: '^mor_' } },
    text: { type: 'object', required: ['held'], properties: { held: { type: 'boolean' }, version: str, instructions: { type: 'integer' }, read_at: str } },
    control: { type: 'array', items: { type: 'object' } },
    permission: { type: 'array', items: { type: 'object' } },
    notice: { type: 'array', items: { type: 'object' } },
    instruction: { type: 'array', items: { type: 'object' } },
    segment,
    filter_outcome: outcome,
  },
};

export const MORATORIUM: JsonSchema = {
  type: 'object',
  required: ['id', 'jurisdiction', 'title', 'href'],
  properties: {
    id: { type: 'string', pattern: '^mor_' },
    jurisdiction,
    title: str,
    status: { enum: ['proposed', 'adopted', 'in_force', 'expired', null] },
    ordinance: { type: ['object', 'null'] },
    subject: { type: 'array', items: str },
    use: { type: 'array', items: { type: 'object', required: ['label', 'slug'], properties: { label: str, slug: strOrNull } } },
    area: { type: 'object', required: ['kind'], properties: { kind: { enum: ['jurisdiction', 'part', 'unknown'] } } },
    effective_from: dateOrNull,
    effective_through: dateOrNull,
    adopted_on: dateOrNull,
    href: str,
    citation,
    segment,
    filter_outcome: outcome,
  },
};

export const LAW_HIT: JsonSchema = {
  type: 'object',
  required: ['id', 'kind', 'jurisdiction', 'title', 'status', 'href'],
  properties: {
    id: { type: 'string', pattern: '^(ord|sec|mor)_' },
    kind: { enum: ['ordinance', 'section', 'moratorium'] },
    jurisdiction,
    title: str,
    status: str,
    effective_from: dateOrNull,
    effective_through: dateOrNull,
    adopted_on: dateOrNull,
    citation,
    snippet: strOrNull,
    match: { type: 'array', items: { type: 'object', properties: { start: { type: 'integer' }, end: { type: 'integer' } } } },
    rank: { type: ['number', 'null'] },
    ordinance: strOrNull,
    href: str,
    segment,
    filter_outcome: outcome,
  },
};

export const SECTION: JsonSchema = {
  type: 'object',
  required: ['id', 'jurisdiction', 'ref', 'href'],
  properties: {
    id: { type: 'string', pattern: '^sec_' },
    jurisdiction,
    ref: str,
    heading: strOrNull,
    parent_ref: strOrNull,
    depth: { type: 'integer' },
    document: str,
    version: str,
    status: str,
    effective_from: dateOrNull,
    effective_through: dateOrNull,
    body: str,
    citation,
    snippet: strOrNull,
    href: str,
    segment,
    filter_outcome: outcome,
  },
};
