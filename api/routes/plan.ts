// GET /jurisdiction/{id}/plan (spec 1.1, 4.6 town-local browsing): the comprehensive and master
// plans that govern a town, as the store holds them (api/town/plan.ts): those its code text in
// force names, each sentence quoted and cited, and its future land use map versions in force. A
// town with neither is 501 with the reason, from what is held of it.
import { ApiError, invalid } from '../../core/errors.ts';
import { timeParams } from '../../core/query/index.ts';
import { defineRoutes } from '../route.ts';
import { townContext, townExtra } from '../town/context.ts';
import { plansAt } from '../town/plan.ts';

const LAYERS = ['zoning_text', 'future_land_use'];

export const planRoutes = defineRoutes([
  {
    id: 'listPlans',
    method: 'GET',
    path: '/jurisdiction/{jurisdiction}/plan',
    summary: 'The comprehensive and master plans that govern a town: those its code text names, quoted and cited, and its future land use maps',
    description:
      'Each plan in force on as_of. basis code_text: a plan the zoning code names where it implements it, requires consistency with it or says what constitutes it (name, alias[], definition, mention[] each {text, section_ref, citation}, consistency {status stated, required, passage[]} or withheld, adopted_on {status stated, date, passage[]} only where a sentence states the date, adopted_by[]). basis future_land_use_map: a version of a plan map in force, with its effective dates and document. A town with neither is 501 not_available with the reason. as_of must be one date: an interval is 422.',
    tag: 'One town',
    credential: 'key',
    scope: 'law:read',
    form: 'plain',
    collection: true,
    dryRun: true,
    refuses: ['not_available'],
    price: { credits: 1, per: 'call', note: 'One credit.' },
    params: [{ name: 'jurisdiction', in: 'path', type: 'string', required: true }, ...timeParams()],
    handler: async (req) => {
      const db = req.services.pool;
      const town = await townContext(db, req.params.jurisdiction, 'jurisdiction', req.params, LAYERS);
      if (town.asOf.kind !== 'instant') throw invalid('as_of', 'plans are listed at one date; give a date, not an interval (ask once per date of interest)');
      const at = await plansAt(db, town, { asOf: town.asOf.date, knownAsOf: town.known });
      if (at.reason !== null) throw new ApiError('not_available', { field: 'jurisdiction', detail: at.reason });
      return { item: at.plan, page: { size: at.plan.length, next_cursor: null }, extra: townExtra(town) };
    },
  },
]);
