// GET /process/{type} (spec 1.1, 4.6 town-local browsing): a permit process as the code text held
// for the jurisdiction states it (api/town/process.ts): who decides, the hearing, the notice and
// the appeal, quoted and cited. The type is the town's own name for the process; one no section
// in force names is 404 (as an unknown district code is); a town whose code text is not held, or
// not in force then, is 501 with the reason.
import { ApiError, invalid, notFound } from '../../core/errors.ts';
import { codeTextsHeld, codeTextsInForce } from '../../store/codes.ts';
import type { Times } from '../../store/place/resolve.ts';
import { timeParams } from '../../core/query/index.ts';
import { defineRoutes } from '../route.ts';
import { type Town, townContext, townExtra } from '../town/context.ts';
import { processAt, wordsOf } from '../town/process.ts';
import { runsOf, startsOver } from '../town/timeline.ts';
import { whyNoCodeText } from '../town/code-text.ts';

const LAYERS = ['zoning_text'];

export const processRoutes = defineRoutes([
  {
    id: 'getProcess',
    method: 'GET',
    path: '/process/{type}',
    summary: 'A permit process as the code text states it: who decides, the hearing, the notice and the appeal, each quoted and cited',
    description:
      'type is the process as the town names it (special_permit, site-plan-approval, variance: words, any case, _ or - between them). The process is read from the section headed with that name (else the shortest heading containing it; basis heading) and the sections under it, or, where no heading names it, from the sentences naming it (basis mention). decides (with body: the boards and officials those passages name), hearing, notice and appeal are each {status stated, passage[]} or {status withheld, reason}; see lists the sections the passages refer to, related the other sections whose headings name the process. An interval as_of answers item.segment[] ({from, to, process}).',
    tag: 'One town',
    credential: 'key',
    scope: 'law:read',
    form: 'plain',
    dryRun: true,
    refuses: ['not_available'],
    price: { credits: 1, per: 'call', note: 'One credit.' },
    params: [
      {
        name: 'type',
        in: 'path',
        type: 'string',
        required: true,
        parse: ([raw], name) => {
          const words = wordsOf(raw);
          if (!/^[A-Za-z][A-Za-z0-9 _.&'-]{0,79}$/.test(raw) || words.length === 0) throw invalid(name, `${JSON.stringify(raw)} is not a process name: words of letters and digits, joined by _ or - (special_permit)`);
          return raw;
        },
      },
      { name: 'jurisdiction', in: 'query', type: 'string', required: true, description: 'The jurisdiction: a jur_ id, slug or fips_key.' },
      ...timeParams(),
    ],
    handler: async (req) => {
      const db = req.services.pool;
      const type: string = req.params.type;
      const words = wordsOf(type);
      const town = await townContext(db, req.params.jurisdiction, 'jurisdiction', req.params, LAYERS, true);
      const j = { id: town.j.id, name: town.j.name, slug: town.j.slug, href: `/jurisdiction/${town.j.id}` };
      const at = async (t: Times) => ((await codeTextsInForce(db, town.j.id, t)).length ? processAt(db, town.j, words, t) : undefined);
      const refuse = async (t: Times): Promise<never> => {
        throw new ApiError('not_available', { field: 'jurisdiction', detail: whyNoCodeText(town as Town, await codeTextsHeld(db, town.j.id, t.knownAsOf), t) });
      };
      if (town.asOf.kind === 'instant') {
        const t = { asOf: town.asOf.date, knownAsOf: town.known };
        const view = await at(t);
        if (view === undefined) return refuse(t);
        if (view === null) throw notFound('process', `${type} in the code text held for ${town.j.name} in force on ${t.asOf}`, 'type');
        return { item: { type, jurisdiction: j, ...view }, extra: townExtra(town) };
      }
      const { from, to } = town.asOf;
      const starts = await startsOver(db, town.j.id, from, to, town.known);
      const values = [];
      for (const date of starts) values.push(await at({ asOf: date, knownAsOf: town.known }));
      if (values.every((v) => v === undefined)) return refuse({ asOf: to, knownAsOf: town.known });
      if (values.every((v) => !v)) throw notFound('process', `${type} in the code text held for ${town.j.name} between ${from} and ${to}`, 'type');
      const segment = runsOf(starts, to, values.map((v) => v ?? null)).map((x) => ({ from: x.from, to: x.to, process: x.value }));
      return { item: { type, jurisdiction: j, segment }, extra: townExtra(town, segment.length, segment.length > 1 ? [type] : []) };
    },
  },
]);
