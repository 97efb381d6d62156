// GET /jurisdiction/{id}/plan (spec 1.1, 4.6 town-local browsing): the comprehensive and master
// plans that govern a town, as the store holds them (api/town/plan.ts): those its code text in
// force names, each sentence quoted and cited, and its future land use map versions in force. A
// town with neither is 501 with the reason, from what is held of it.
import { ApiError } from '../../core/errors.ts';
import { timeParams } from '../../core/query/index.ts';
import { defineRoutes } from '../route.ts';
import { townContext, townExtra } from '../town/context.ts';
import { plansAt } from '../town/plan.ts';
import { runsOf, startsOver } from '../town/timeline.ts';

const LAYERS = ['zoning_text', 'future_land_use'];

export const planRoutes = defineRoutes([
  {
    id: 'listJurisdictionPlans',
    method: 'GET',
    path: '/jurisdiction/{jurisdiction}/plan',
    summary: 'The comprehensive and master plans that govern a town: those its code text names, quoted and cited, and its future land use maps',
    description:
      'Each plan in force on as_of. basis code_text: a plan the zoning code names where it implements it, requires consistency with it or says what constitutes it (name, alias[], definition, mention[] each {text, section_ref, citation}, consistency {status stated, required, passage[]} or withheld, adopted_on {status stated, date, passage[]} only where a sentence states the date, adopted_by[]). basis future_land_use_map: a version of a plan map in force, with its effective dates and document. A town with neither is 501 not_available with the reason. An interval as_of lists each plan in force on some day of it, with segment[] ({from, to, plan}, plan null where it is not in force); 501 when no plan is in force on any day of it.',
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
      if (town.asOf.kind === 'instant') {
        const at = await plansAt(db, town, { asOf: town.asOf.date, knownAsOf: town.known });
        if (at.reason !== null) throw new ApiError('not_available', { field: 'jurisdiction', detail: at.reason });
        return { item: at.plan, page: { size: at.plan.length, next_cursor: null }, extra: townExtra(town) };
      }
      // an interval: each plan in force on some day of it, with the runs over which it read the same
      const { from, to } = town.asOf;
      const starts = await startsOver(db, town.j.id, from, to, town.known);
      const states: Array<Awaited<ReturnType<typeof plansAt>>> = [];
      for (const date of starts) states.push(await plansAt(db, town, { asOf: date, knownAsOf: town.known }));
      if (states.every((s) => s.reason !== null)) throw new ApiError('not_available', { field: 'jurisdiction', detail: `No plan is in force on any day from ${from} to ${to}: on ${to}, ${states[states.length - 1].reason}` });
      const keyOf = (p: Record<string, unknown>) => `${p.basis}:${p.basis === 'future_land_use_map' ? p.map_version : p.name}`;
      const keys = [...new Set(states.flatMap((s) => s.plan.map((p) => keyOf(p as Record<string, unknown>))))];
      const item = keys.map((key) => {
        const values = states.map((s) => (s.plan.find((p) => keyOf(p as Record<string, unknown>) === key) ?? null) as Record<string, unknown> | null);
        const first = values.find((v) => v !== null)!;
        // a withheld reason names the date it was read on ("in force on <date>"): the same plan read on two dates is the same
        const same = (v: unknown, start: string) => JSON.stringify(v).replaceAll(`on ${start}`, 'on');
        const segment = runsOf(starts, to, values, same).map((x) => ({ from: x.from, to: x.to, plan: x.value }));
        return { name: first.name, basis: first.basis, segment };
      });
      const bounds = new Set(item.flatMap((i) => i.segment.map((s) => s.from)));
      return { item, page: { size: item.length, next_cursor: null }, extra: townExtra(town, bounds.size, item.filter((i) => i.segment.length > 1).map((i) => i.name as string)) };
    },
  },
]);
