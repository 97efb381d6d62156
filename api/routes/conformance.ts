// GET /conformance and POST /place/proposal: would this proposal (uses, dimensions) be allowed
// here, rule by rule, with citations.
import { ApiError, invalid } from '../../core/errors.ts';
import { newId } from '../../core/ids.ts';
import { timeParams } from '../../core/query/index.ts';
import { LOCATION_PARAMS, parsePoint } from '../location/params.ts';
import { knownUses } from '../place/common.ts';
import { assess, type Proposal } from '../place/conformance.ts';
import { defineRoutes } from '../route.ts';
import type { Services } from '../services.ts';
import { ruleAnswer } from './rule.ts';
import { parseTimeText } from '../../core/time.ts';

const VALUE = /^(-?\d+(?:\.\d+)?)\s*([a-z_0-9]+)$/;

function parseProposed(raw: string[]): Record<string, { value: number; unit: string }> {
  const out: Record<string, { value: number; unit: string }> = {};
  for (const pair of raw) {
    const m = /^proposed\[([a-z_.0-9]+)\]=(.*)$/.exec(pair);
    if (!m) throw invalid('proposed', `${pair.split('=')[0]} is not proposed[<control_type>]`);
    const v = VALUE.exec(m[2].trim());
    if (!v) throw invalid(`proposed[${m[1]}]`, `${JSON.stringify(m[2])} is not a number with a unit (e.g. 15ft, 3stories, 40percent)`);
    out[m[1]] = { value: Number(v[1]), unit: v[2] };
  }
  return out;
}

async function conformance(services: Services, params: Record<string, any>, asked: Proposal, useField: (i: number) => string) {
  if (asked.uses.length === 0 && Object.keys(asked.dimensions).length === 0) throw invalid('use', 'propose a use or a dimension to check');
  // a use the vocabulary does not hold is refused here, never judged by the unlisted-use rule
  const proposal = { ...asked, uses: (await knownUses(services.pool, asked.uses, useField)) ?? [] };
  const { context: _c, ...rule } = await ruleAnswer(services, { ...params, include: ['moratorium'], use: undefined });
  if (!rule.item || !rule.item.share) {
    // the resolution says why: the place it found, and what it could not tell
    const r = (rule.extra as { resolution?: { state?: string; grain?: string; detail?: string | null } } | undefined)?.resolution;
    const why = r?.detail ?? (r?.grain ? `the location resolves to a ${r.grain}` : 'the location names no place held');
    throw new ApiError(r?.state === 'ambiguous' ? 'location_ambiguous' : 'location_insufficient_precision', { field: 'location', detail: `${why}; a proposal is judged against the rules of one place` });
  }
  const report = 'segment' in rule.item ? null : assess(rule.item, proposal);
  if (!report) throw invalid('as_of', 'a proposal is judged at one date; give a date, not an interval');
  return {
    item: { ...report, proposal: { use: proposal.uses, building_type: proposal.buildingType, dimension: proposal.dimensions }, not_consulted: (rule.item as Record<string, unknown>).not_consulted },
    extra: rule.extra,
    meta: rule.meta,
    charge: rule.charge,
  };
}

const PRICE = { credits: 1, per: 'call' as const, repeatFreeHours: 24, note: 'One credit per place, free again for a day.' };

export const conformanceRoutes = defineRoutes([
  {
    id: 'getConformance',
    method: 'GET',
    path: '/conformance',
    summary: 'Would this use and these dimensions be allowed here, rule by rule',
    tag: 'Ask about a place',
    credential: 'key',
    scope: 'place:read',
    form: 'plain',
    dryRun: true,
    price: PRICE,
    params: [
      ...LOCATION_PARAMS,
      ...timeParams(),
      { name: 'use', in: 'query', type: 'array', maxItems: 20, description: 'Proposed uses (vocabulary slugs).' },
      { name: 'building_type', in: 'query', type: 'string' },
      { name: 'proposed', in: 'query', type: 'string', prefix: true, parse: parseProposed, description: 'proposed[<control_type>]=<number><unit>, e.g. proposed[dimensional.setback_front]=15ft.' },
    ],
    handler: async (req) => {
      const a = await conformance(req.services, req.params, { uses: req.params.use ?? [], buildingType: req.params.building_type ?? null, dimensions: req.params.proposed ?? {} }, () => 'use');
      return { ...a, answerId: newId('answer') };
    },
  },
  {
    id: 'createProposal',
    method: 'POST',
    path: '/place/proposal',
    summary: 'Would this proposal be allowed: the same answer as /conformance, with the proposal in the body',
    tag: 'Ask about a place',
    credential: 'key',
    scope: 'place:read',
    form: 'plain',
    dryRun: true,
    price: PRICE,
    body: {
      type: 'object',
      additionalProperties: false,
      required: ['location'],
      properties: {
        location: {
          type: 'object',
          additionalProperties: false,
          properties: {
            address: { type: 'string', minLength: 1, maxLength: 500 },
            point: { type: 'string', minLength: 1, maxLength: 60 },
            geometry: { type: ['string', 'object'], minLength: 1 },
            parcel: { type: 'array', minItems: 1, maxItems: 50, items: { type: 'string', minLength: 1, maxLength: 40 } },
            apn: { type: 'string', minLength: 1, maxLength: 100 },
            fips: { type: 'string', minLength: 1, maxLength: 10 },
            location_token: { type: 'string', minLength: 1, maxLength: 8000 },
          },
        },
        as_of: { type: 'string', minLength: 1, maxLength: 100 },
        use: { type: 'array', items: { type: 'string', minLength: 1, maxLength: 200 }, maxItems: 20 },
        building_type: { type: 'string', minLength: 1, maxLength: 100 },
        dimension: {
          type: 'object',
          maxProperties: 50,
          additionalProperties: { type: 'object', required: ['value', 'unit'], additionalProperties: false, properties: { value: { type: 'number' }, unit: { type: 'string', minLength: 1, maxLength: 20 } } },
        },
      },
    },
    handler: async (req) => {
      const b = req.body;
      const l = b.location;
      const params = {
        ...l,
        point: l.point ? parsePoint(l.point, 'location.point') : undefined,
        geometry: l.geometry === undefined ? undefined : typeof l.geometry === 'string' ? l.geometry : JSON.stringify(l.geometry),
        as_of: b.as_of ? parseTimeText(b.as_of, 'as_of') : undefined,
      };
      const a = await conformance(req.services, params, { uses: b.use ?? [], buildingType: b.building_type ?? null, dimensions: b.dimension ?? {} }, (i) => `use[${i}]`);
      return { ...a, answerId: newId('answer') };
    },
  },
]);
