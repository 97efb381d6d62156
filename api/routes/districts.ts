// One town by its own names (spec 4.6): its districts in force, one district by its code or id.
// An interval as_of gives each district's history as segments; every answer carries the coverage
// block and each district the map versions drawing it (or why none does).
import { notFound } from '../../core/errors.ts';
import { isId } from '../../core/ids.ts';
import type { TimeValue } from '../../core/time.ts';
import type { Queryable } from '../../store/db.ts';
import { mapsDrawing, zoningMapsHeld } from '../../store/district-maps.ts';
import { heldFor } from '../../store/district-standing.ts';
import { citationsByIds } from '../../store/evidence.ts';
import { controlsFor, permissionsFor } from '../../store/place/law.ts';
import type { Times } from '../../store/place/resolve.ts';
import { collectionParams, type ResourceDef, runCollection, type SqlContext, timeParams } from '../../core/query/index.ts';
import { FIELD_PARAM } from '../fields.ts';
import { knownUses } from '../place/common.ts';
import { precedenceView } from '../place/standing.ts';
import { defineRoutes, type Req } from '../route.ts';
import { type Town, townContext, townExtra } from '../town/context.ts';
import { districtDefinitions } from '../town/definition.ts';
import { runsOf, startsOver } from '../town/timeline.ts';

const RANK = (alias: string) => `CASE (SELECT kind FROM source WHERE id = ${alias}.source_id) WHEN 'code_text' THEN 0 WHEN 'district_list' THEN 1 ELSE 2 END`;
const INCLUDES = ['control', 'permission', 'composition', 'definition'] as const;

/** A district row in force at the walk's time, from the most authoritative source that states it. */
const districts: ResourceDef = {
  name: 'district',
  from: 'district d',
  id: 'd.id',
  select: `d.id, d.jurisdiction_id, d.kind, d.code_raw, d.code_normalized, d.local_label, d.type, d.subtype, d.purpose, d.section_ref,
           d.citation_id, d.status, d.source_version_id, lower(d.valid)::text AS effective_from, upper(d.valid)::text AS effective_through,
           (SELECT kind FROM source WHERE id = d.source_id) AS source_kind`,
  defaultSort: 'code_normalized',
  fields: {
    code_normalized: { sql: 'd.code_normalized', type: 'string', sortable: true, nullable: false },
    code_raw: { sql: 'd.code_raw', type: 'string', sortable: true, nullable: false },
    kind: { sql: 'd.kind', type: 'enum', enum: ['base', 'overlay'] },
    type: { sql: 'd.type', type: 'string', sortable: true },
    local_label: { sql: 'd.local_label', type: 'string' },
    effective_from: { sql: 'lower(d.valid)', type: 'date', sortable: true },
  },
};

export function districtItem(r: Record<string, any>, jurisdictionId: string) {
  return {
    id: r.id,
    jurisdiction: jurisdictionId,
    kind: r.kind,
    code_raw: r.code_raw,
    code_normalized: r.code_normalized,
    local_label: r.local_label,
    type: r.type,
    subtype: r.subtype,
    version: r.source_version_id,
    effective_from: r.effective_from,
    effective_through: r.effective_through,
    href: `/jurisdiction/${jurisdictionId}/district/${encodeURIComponent(r.code_normalized)}`,
    purpose: r.purpose,
    section_ref: r.section_ref,
    citation: { id: r.citation_id },
    source: r.source_kind,
    status: r.status,
  };
}

/** SQL of the valid date and known instant of a request (defaults derived from the pinned snapshot). */
function timeSql(asOf: TimeValue, tz: string) {
  return {
    valid: (c: SqlContext) => (asOf.basis === 'requested' && asOf.kind === 'instant' ? c.bind(asOf.date, 'date') : `(${c.snapshot} AT TIME ZONE ${c.bind(tz)})::date`),
    known: (c: SqlContext) => c.snapshot,
  };
}

async function embed(db: Queryable, items: Array<Record<string, any>>, include: string[], t: { asOf: string; knownAsOf: string }, uses?: string[]) {
  const ids = items.map((i) => i.id);
  const controls = include.includes('control') ? await controlsFor(db, ids, t) : [];
  const permissions = include.includes('permission') || uses ? await permissionsFor(db, ids, t, uses) : [];
  const composed = include.includes('composition') ? await compositions(db, items, t) : new Map();
  const cites = await citationsByIds(db, [...items.map((i) => i.citation.id), ...controls.map((c) => c.citation_id), ...permissions.map((p) => p.citation_id)]);
  for (const i of items) {
    i.citation = i.citation.id ? cites.get(i.citation.id) ?? { id: i.citation.id } : null;
    if (include.includes('control')) i.control = controls.filter((c) => c.district_id === i.id).map((c) => ({ ...c, citation: cites.get(c.citation_id) }));
    if (include.includes('permission') || uses) i.permission = permissions.filter((p) => p.district_id === i.id).map((p) => ({ ...p, citation: cites.get(p.citation_id) }));
    if (include.includes('composition')) i.composition = composed.get(i.id);
  }
}

/** How each district composes with others: its precedence as held, else withheld with the reason. */
async function compositions(db: Queryable, items: Array<Record<string, any>>, t: { asOf: string; knownAsOf: string }) {
  const out = new Map<string, unknown>();
  if (items.length === 0) return out;
  const jurisdictionId: string = items[0].jurisdiction;
  const { rows } = await db.query(
    `SELECT DISTINCT ON (d.id) d.id, d.precedence_rank FROM district d
      WHERE d.id = ANY($1::text[]) AND d.valid @> $2::date AND d.known @> $3::timestamptz ORDER BY d.id, ${RANK('d')}`,
    [items.map((i) => i.id), t.asOf, t.knownAsOf],
  );
  const rank = new Map(rows.map((r) => [r.id as string, r.precedence_rank as number | null]));
  const { rows: j } = await db.query('SELECT name FROM jurisdiction WHERE id = $1', [jurisdictionId]);
  const c = { jurisdiction: j[0].name, held: await heldFor(db, jurisdictionId, t), asOf: t.asOf };
  for (const i of items) out.set(i.id, { precedence: precedenceView({ code: i.code_normalized, kind: i.kind, precedence_rank: rank.get(i.id) ?? null, source_kind: i.source }, c) });
  return out;
}

async function oneDistrict(db: Queryable, jurisdictionId: string, ref: string, t: Times) {
  const byId = isId('district', ref);
  const { rows } = await db.query(
    `SELECT ${districts.select} FROM district d
      WHERE d.jurisdiction_id = $1 AND (${byId ? 'd.id = $2' : 'd.code_normalized = upper($2) OR d.code_raw = $2'})
        AND d.valid @> $3::date AND d.known @> $4::timestamptz
      ORDER BY ${RANK('d')}, d.kind LIMIT 1`,
    [jurisdictionId, ref, t.asOf, t.knownAsOf],
  );
  return rows[0] ?? null;
}

/** The districts with these ids in force on the date, each from its most authoritative source. */
async function districtsAt(db: Queryable, ids: string[], t: Times) {
  const { rows } = await db.query(
    `SELECT DISTINCT ON (d.id) ${districts.select} FROM district d
      WHERE d.id = ANY($1::text[]) AND d.valid @> $2::date AND d.known @> $3::timestamptz
      ORDER BY d.id, ${RANK('d')}, d.fact_id DESC`,
    [ids, t.asOf, t.knownAsOf],
  );
  return rows;
}

/** Why no map held draws the district on the date, from the maps held. */
async function noMapReason(db: Queryable, town: Town, t: Times) {
  const held = await zoningMapsHeld(db, town.j.id, t);
  if (held.count === 0) return () => `No zoning map of ${town.j.name} is held as known at ${t.knownAsOf}.`;
  if (held.inForce.length === 0) return () => `No zoning map held for ${town.j.name} is in force before ${held.earliest}.`;
  const maps = held.inForce.map((m) => `${m.id}, ${m.layer}`).join('; ');
  return (code: string) => `None of the zoning maps of ${town.j.name} in force (${maps}) draws ${code}.`;
}

/** Each district's map versions, definition and includes on the date. */
async function decorate(db: Queryable, town: Town, items: Array<Record<string, any>>, include: string[], t: Times, uses?: string[]) {
  if (items.length === 0) return;
  await embed(db, items, include, t, uses);
  const drawn = await mapsDrawing(db, items.map((i) => i.id), t);
  const why = items.some((i) => !drawn.has(i.id)) ? await noMapReason(db, town, t) : null;
  for (const i of items) {
    const maps = drawn.get(i.id) ?? [];
    i.map = maps.length
      ? { status: 'stated', drawn_by: maps.map(({ district_id, ...m }) => ({ ...m, href: `/map?jurisdiction=${town.j.slug}&layer=${m.layer}` })) }
      : { status: 'withheld', drawn_by: [], reason: why!(i.code_normalized) };
  }
  if (include.includes('definition')) {
    const defs = await districtDefinitions(db, town.j, items as never, t, (await heldFor(db, town.j.id, t)).text);
    for (const i of items) i.definition = defs.get(i.id);
  }
}

const LAYERS = ['zoning_text', 'district_list', 'district_map', 'overlay'];

const DEFINITION_NOTE =
  'Each district carries map: the map versions drawing it on the date (id, layer, effective dates, document, version, href), or status withheld with the reason. include=definition adds definition: the passages of the code text held saying what the district is (its own section and purpose subsections; definitions sections whose term is its name or code), cited, or status withheld with the reason.';

export const districtRoutes = defineRoutes([
  {
    id: 'listDistricts',
    method: 'GET',
    path: '/jurisdiction/{jurisdiction}/district',
    summary: "A town's districts in force, base and overlay, with their purpose passages; an interval as_of gives each one's segments",
    description: `${DEFINITION_NOTE} An interval as_of lists the districts in force on some day of it, each with segment[] ({from, to, district}, district null where it is not in force).`,
    tag: 'One town',
    credential: 'key',
    scope: 'law:read',
    form: 'plain',
    collection: true,
    dryRun: true,
    price: { credits: 1, per: 'call', note: 'One credit per page.' },
    fields: { fixed: ['id'] },
    params: [
      { name: 'jurisdiction', in: 'path', type: 'string', required: true },
      ...timeParams(),
      { name: 'kind', in: 'query', type: 'string', enum: ['base', 'overlay'] },
      { name: 'type', in: 'query', type: 'string' },
      { name: 'include', in: 'query', type: 'array', items: { type: 'string', enum: INCLUDES } },
      ...collectionParams(districts),
      FIELD_PARAM,
    ],
    handler: async (req) => {
      const db = req.services.pool;
      const p = req.params;
      const town = await townContext(db, p.jurisdiction, 'jurisdiction', p, LAYERS);
      const { j, asOf, knownAsOf } = town;
      const include: string[] = p.include ?? [];
      const pinned = (knownAsOf.basis === 'requested' || town.settled) && knownAsOf.kind === 'instant' ? knownAsOf.instant : null;
      const filters = [
        (c: SqlContext) => `d.jurisdiction_id = ${c.bind(j.id)}`,
        ...(p.kind ? [(c: SqlContext) => `d.kind = ${c.bind(p.kind)}`] : []),
        ...(p.type ? [(c: SqlContext) => `d.type = ${c.bind(p.type)}`] : []),
      ];
      if (asOf.kind === 'instant') {
        const ts = timeSql(asOf, j.timezone);
        const r = await runCollection(db, districts, p, req.services.secret, {
          snapshot: pinned,
          where: [
            ...filters,
            (c) => `d.valid @> ${ts.valid(c)} AND d.known @> ${ts.known(c)}`,
            (c) => `NOT EXISTS (SELECT 1 FROM district d2 WHERE d2.id = d.id AND d2.source_id <> d.source_id AND d2.valid @> ${ts.valid(c)} AND d2.known @> ${ts.known(c)} AND ${RANK('d2')} < ${RANK('d')})`,
          ],
          map: (row) => districtItem(row, j.id),
        });
        await decorate(db, town, r.items, include, { asOf: asOf.date, knownAsOf: r.snapshot ?? town.known });
        return { item: r.items, page: r.page, extra: townExtra(town) };
      }
      // an interval: the districts in force on some day of it (each once, from its most authoritative
      // source, latest first), and for each the segments over which it was the same
      const during = (c: SqlContext, a: string) => `${a}.valid && daterange(${c.bind(asOf.from, 'date')}, ${c.bind(asOf.to, 'date')}, '[]') AND ${a}.known @> ${c.snapshot}`;
      const r = await runCollection(db, districts, p, req.services.secret, {
        snapshot: pinned,
        where: [
          ...filters,
          (c) => during(c, 'd'),
          (c) =>
            `NOT EXISTS (SELECT 1 FROM district d2 WHERE d2.id = d.id AND ${during(c, 'd2')}
               AND (${RANK('d2')} < ${RANK('d')} OR (${RANK('d2')} = ${RANK('d')} AND (coalesce(lower(d2.valid), '-infinity'), d2.fact_id) > (coalesce(lower(d.valid), '-infinity'), d.fact_id))))`,
        ],
        map: (row) => ({ id: row.id, kind: row.kind, code_raw: row.code_raw, code_normalized: row.code_normalized, href: districtItem(row, j.id).href }),
      });
      const known = r.snapshot ?? town.known;
      const ids = r.items.map((i) => i.id);
      const starts = ids.length ? await startsOver(db, j.id, asOf.from, asOf.to, known) : [asOf.from];
      const states: Array<Map<string, Record<string, any>>> = [];
      for (const date of starts) {
        const items = (await districtsAt(db, ids, { asOf: date, knownAsOf: known })).map((row) => districtItem(row, j.id));
        await decorate(db, town, items, include, { asOf: date, knownAsOf: known });
        states.push(new Map(items.map((i) => [i.id, i])));
      }
      const item = r.items.map((i) => ({ ...i, segment: runsOf(starts, asOf.to, states.map((s) => s.get(i.id) ?? null)).map((x) => ({ from: x.from, to: x.to, district: x.value })) }));
      const bounds = new Set(item.flatMap((i) => i.segment.map((s) => s.from)));
      const changed = item.filter((i) => i.segment.length > 1).map((i) => i.code_normalized);
      return { item, page: r.page, extra: townExtra(town, bounds.size, changed) };
    },
  },
  {
    id: 'getDistrict',
    method: 'GET',
    path: '/jurisdiction/{jurisdiction}/district/{district}',
    summary: "One district by the town's own code (percent-encoded) or dst_ id; an interval as_of gives its history",
    description: `${DEFINITION_NOTE} An interval as_of answers item.segment[] ({from, to, district}, district null where it is not in force).`,
    tag: 'One town',
    credential: 'key',
    scope: 'law:read',
    form: 'plain',
    dryRun: true,
    price: { credits: 1, per: 'call', note: 'One credit.' },
    params: [
      { name: 'jurisdiction', in: 'path', type: 'string', required: true },
      { name: 'district', in: 'path', type: 'string', required: true },
      ...timeParams(),
      { name: 'use', in: 'query', type: 'array', description: 'Only permissions for these uses (vocabulary slugs).' },
      { name: 'include', in: 'query', type: 'array', items: { type: 'string', enum: INCLUDES } },
    ],
    handler: async (req) => {
      const db = req.services.pool;
      const uses = await knownUses(db, req.params.use);
      const town = await townContext(db, req.params.jurisdiction, 'jurisdiction', req.params, LAYERS);
      const { j, asOf, known } = town;
      const ref: string = req.params.district;
      const include: string[] = req.params.include ?? [];
      const at = async (date: string) => {
        const row = await oneDistrict(db, j.id, ref, { asOf: date, knownAsOf: known });
        if (!row) return null;
        const item = districtItem(row, j.id);
        await decorate(db, town, [item], include, { asOf: date, knownAsOf: known }, uses);
        return item;
      };
      if (asOf.kind === 'instant') {
        const item = await at(asOf.date);
        if (!item) throw notFound('district', `${ref} in force on ${asOf.date}`);
        return { item, extra: townExtra(town) };
      }
      const starts = await startsOver(db, j.id, asOf.from, asOf.to, known);
      const values = [];
      for (const date of starts) values.push(await at(date));
      const segments = runsOf(starts, asOf.to, values);
      if (segments.every((s) => s.value === null)) throw notFound('district', `${ref} between ${asOf.from} and ${asOf.to}`);
      const code = values.find((v) => v)!.code_normalized;
      return { item: { segment: segments.map((s) => ({ from: s.from, to: s.to, district: s.value })) }, extra: townExtra(town, segments.length, segments.length > 1 ? [code] : []) };
    },
  },
]);

export type { Req };
