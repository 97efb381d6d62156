// The codes of one town (spec 4.6, 1.1 town-local browsing): GET /jurisdiction/{id}/code lists the
// codes in force (the code texts held, read as the zoning code, and the building and fire codes
// its authorities say apply, a state's or county's with adoption.level saying so); GET /code/{kind}
// answers one kind for the jurisdiction named by the query, each code text with its sections'
// outline, cited. A kind not held is named with the reason, from what the store holds.
import { ApiError } from '../../core/errors.ts';
import type { Queryable } from '../../store/db.ts';
import { type CodeAuthority, codeAuthorities, codeTextsHeld, codeTextsInForce, outlineOf } from '../../store/codes.ts';
import { citationsByIds } from '../../store/evidence.ts';
import type { Times } from '../../store/place/resolve.ts';
import { MANIFEST_SOURCE } from '../../store/sources.ts';
import { timeParams } from '../../core/query/index.ts';
import { defineRoutes } from '../route.ts';
import { type Town, townContext, townExtra } from '../town/context.ts';
import { runsOf, startsOver } from '../town/timeline.ts';
import { authorityLayers } from '../coverage/authority.ts';
import { whyNoCodeText } from '../town/code-text.ts';

const KINDS = ['zoning', 'subdivision', 'stormwater', 'floodplain', 'building', 'fire'] as const;
type Kind = (typeof KINDS)[number];
const SUBJECT: Partial<Record<Kind, CodeAuthority['subject']>> = { building: 'building_code', fire: 'fire_code' };
const LAYERS = ['zoning_text'];

type View = Record<string, unknown>;
interface CodesAt {
  /** each code in force, keyed by kind and document or authority */
  codes: Map<string, View>;
  /** why each kind asked has none in force */
  missing: Map<Kind, string>;
}

const sourceName = (key: string) => (key === MANIFEST_SOURCE ? 'manifest' : `source ${key}`);
const adoptionLevel = (level: string) => (level === 'state' ? 'state' : level === 'county' ? 'county' : 'local');

/** The codes of the kinds asked in force on the date (with their outlines when asked), and why the others are not. */
async function codesAt(db: Queryable, town: Town, kinds: readonly Kind[], t: Times, outline: boolean): Promise<CodesAt> {
  const j = town.j;
  const codes = new Map<string, View>();
  const href = (kind: Kind) => `/code/${kind}?jurisdiction=${j.slug}`;
  if (kinds.includes('zoning')) {
    for (const c of await codeTextsInForce(db, j.id, t)) {
      const sections = outline ? await outlineOf(db, c.document, t) : null;
      codes.set(`zoning:${c.document}`, {
        kind: 'zoning',
        ...c,
        adoption: { level: 'local', jurisdiction: j.id, name: j.name },
        href: href('zoning'),
        status: 'stated',
        ...(sections
          ? { outline: { status: 'stated', section: sections.map(({ citation_id, ...s }) => ({ ...s, citation: citation_id ? { id: citation_id, href: `/citation/${citation_id}` } : null })) } }
          : {}),
      });
    }
  }
  const subjects = kinds.map((k) => SUBJECT[k]).filter(Boolean);
  const auths = subjects.length ? (await codeAuthorities(db, j.id, t)).filter((a) => subjects.includes(a.subject)) : [];
  const cites = await citationsByIds(db, auths.map((a) => a.citation_id));
  for (const a of auths) {
    const kind: Kind = a.subject === 'building_code' ? 'building' : 'fire';
    const title = a.relationship ?? a.legal_name ?? `${a.governing.name} ${kind} code`;
    const states = `The ${sourceName(a.source)} naming ${a.governing.name} as governing the ${kind} code of ${j.name}`;
    codes.set(`${kind}:${a.id}`, {
      kind,
      title,
      basis: a.basis,
      adoption: { level: adoptionLevel(a.governing.level), jurisdiction: a.governing.id, name: a.governing.name },
      agency: a.agency,
      edition: { status: 'withheld', reason: `${states} states no edition, and no text of that code is held.` },
      effective_from: a.effective_from,
      effective_through: a.effective_through,
      source: a.source === MANIFEST_SOURCE ? 'manifest' : a.source,
      citation: a.citation_id ? (cites.get(a.citation_id) ?? null) : null,
      href: href(kind),
      status: 'stated',
      ...(outline ? { outline: { status: 'withheld', section: [], reason: `No text of the ${title} is held for ${j.name}: the ${sourceName(a.source)} names only who governs it.` } } : {}),
    });
  }
  const missing = new Map<Kind, string>();
  for (const kind of kinds) {
    if (![...codes.values()].some((c) => c.kind === kind)) missing.set(kind, await whyNot(db, town, kind, t));
  }
  return { codes, missing };
}

/** Why no code of the kind is in force on the date, from what the store holds. */
async function whyNot(db: Queryable, town: Town, kind: Kind, t: Times): Promise<string> {
  const name = town.j.name;
  const subject = SUBJECT[kind];
  if (subject) {
    const any = (await codeAuthorities(db, town.j.id, { asOf: null, knownAsOf: t.knownAsOf })).filter((a) => a.subject === subject);
    if (any.length === 0) return `No source held for ${name}, its manifest included, names who governs its ${kind} code (as known at ${t.knownAsOf}).`;
    const spans = any.map((a) => `${a.effective_from} to ${a.effective_through ?? 'now'}`).join(', ');
    return `The ${kind} code authority held for ${name} is in force ${spans}; not on ${t.asOf}.`;
  }
  const held = await codeTextsHeld(db, town.j.id, t.knownAsOf);
  if (kind !== 'zoning') {
    return `No ${kind} code of ${name} is held: ${held.titles.length ? `the code texts held (${held.titles.join('; ')}) are read as its zoning code` : 'no code text of it is held'}.`;
  }
  return whyNoCodeText(town, held, t);
}

/** The coverage block with the authority layer read from the authority rows (as /coverage does). */
async function coverageWithAuthority(db: Queryable, town: Town) {
  if (!town.coverage) return town.coverage;
  const { layer: _l, ...authority } = ((await authorityLayers(db, [town.j.id])).get(town.j.id) ?? {}) as Record<string, unknown>;
  return { ...town.coverage, layer: { ...town.coverage.layer, authority } };
}

export const codeRoutes = defineRoutes([
  {
    id: 'listCodes',
    method: 'GET',
    path: '/jurisdiction/{jurisdiction}/code',
    summary: 'Codes in force: zoning and others, and which building and fire code editions apply',
    description:
      'Each code in force on as_of: a code text held (kind zoning: document, the latest version a section in force was read from, section_count, effective_from the earliest date a section in force took effect) or a building or fire code an authority states (adoption.level state, county or local; edition withheld with the reason). layer[] names each kind asked with none in force, and why. An interval as_of lists the codes in force on some day of it, each with segment[] ({from, to, code}, code null where it is not in force).',
    tag: 'One town',
    credential: 'key',
    scope: 'law:read',
    form: 'plain',
    collection: true,
    dryRun: true,
    price: { credits: 1, per: 'call', note: 'One credit.' },
    params: [
      { name: 'jurisdiction', in: 'path', type: 'string', required: true },
      { name: 'kind', in: 'query', type: 'array', items: { type: 'string', enum: KINDS } },
      ...timeParams(),
    ],
    handler: async (req) => {
      const db = req.services.pool;
      const town = await townContext(db, req.params.jurisdiction, 'jurisdiction', req.params, LAYERS);
      const kinds: Kind[] = req.params.kind ?? [...KINDS];
      const coverage = await coverageWithAuthority(db, town);
      const layerOf = (missing: Map<Kind, string>) => [...missing].map(([layer, reason]) => ({ layer, held: false, reason }));
      if (town.asOf.kind === 'instant') {
        const at = await codesAt(db, town, kinds, { asOf: town.asOf.date, knownAsOf: town.known }, false);
        const item = [...at.codes.values()];
        return { item, page: { size: item.length, next_cursor: null }, extra: { ...townExtra(town), coverage, layer: layerOf(at.missing) } };
      }
      const { from, to } = town.asOf;
      const starts = await startsOver(db, town.j.id, from, to, town.known);
      const states: CodesAt[] = [];
      for (const date of starts) states.push(await codesAt(db, town, kinds, { asOf: date, knownAsOf: town.known }, false));
      const keys = [...new Set(states.flatMap((s) => [...s.codes.keys()]))];
      const item = keys.map((key) => {
        const segment = runsOf(starts, to, states.map((s) => s.codes.get(key) ?? null)).map((x) => ({ from: x.from, to: x.to, code: x.value }));
        const any = segment.find((x) => x.code)!.code!;
        return { kind: any.kind, href: any.href, segment };
      });
      const never = new Map([...states[states.length - 1].missing].filter(([k]) => states.every((s) => s.missing.has(k))));
      const bounds = new Set(item.flatMap((i) => i.segment.map((s) => s.from)));
      const changed = item.filter((i) => i.segment.length > 1).map((i) => i.kind as string);
      return { item, page: { size: item.length, next_cursor: null }, extra: { ...townExtra(town, bounds.size, [...new Set(changed)]), coverage, layer: layerOf(never) } };
    },
  },
  {
    id: 'getCode',
    method: 'GET',
    path: '/code/{kind}',
    summary: "One kind of code of a jurisdiction, in force on as_of: each code text with its sections' outline, cited",
    description:
      'jurisdiction (required) is a jur_ id, slug or fips_key; one naming nothing is 422. item: {kind, jurisdiction, code[]}, each code as GET /jurisdiction/{id}/code lists it, with outline: {status, section[]} (ref, heading, parent_ref, depth, effective dates, citation) for a code text, or status withheld with the reason for a code whose text is not held. An interval as_of answers item.segment[] ({from, to, code[]}). A kind with no code in force (on any day of an interval) is 501 not_available with the reason.',
    tag: 'One town',
    credential: 'key',
    scope: 'law:read',
    form: 'plain',
    dryRun: true,
    refuses: ['not_available'],
    price: { credits: 1, per: 'call', note: 'One credit.' },
    params: [
      { name: 'kind', in: 'path', type: 'string', required: true, enum: KINDS },
      { name: 'jurisdiction', in: 'query', type: 'string', required: true, description: 'The jurisdiction: a jur_ id, slug or fips_key.' },
      ...timeParams(),
    ],
    handler: async (req) => {
      const db = req.services.pool;
      const kind: Kind = req.params.kind;
      const town = await townContext(db, req.params.jurisdiction, 'jurisdiction', req.params, LAYERS, true);
      const coverage = await coverageWithAuthority(db, town);
      const j = { id: town.j.id, name: town.j.name, slug: town.j.slug, href: `/jurisdiction/${town.j.id}` };
      if (town.asOf.kind === 'instant') {
        const at = await codesAt(db, town, [kind], { asOf: town.asOf.date, knownAsOf: town.known }, true);
        if (at.codes.size === 0) throw new ApiError('not_available', { field: 'kind', detail: at.missing.get(kind) });
        return { item: { kind, jurisdiction: j, code: [...at.codes.values()] }, extra: { ...townExtra(town), coverage } };
      }
      const { from, to } = town.asOf;
      const starts = await startsOver(db, town.j.id, from, to, town.known);
      const states: CodesAt[] = [];
      for (const date of starts) states.push(await codesAt(db, town, [kind], { asOf: date, knownAsOf: town.known }, true));
      if (states.every((s) => s.codes.size === 0)) throw new ApiError('not_available', { field: 'kind', detail: `${states[states.length - 1].missing.get(kind)} (No day of ${from} to ${to} has one.)` });
      const segment = runsOf(starts, to, states.map((s) => [...s.codes.values()])).map((x) => ({ from: x.from, to: x.to, code: x.value }));
      return { item: { kind, jurisdiction: j, segment }, extra: { ...townExtra(town, segment.length, segment.length > 1 ? [kind] : []), coverage } };
    },
  },
]);
