// One town by its own names (spec 4.6): its districts in force, one district by its code or id
// (an interval as_of gives its history as segments), the codes in force, and coverage.
import { invalid, notFound } from '../../core/errors.ts';
import { isId } from '../../core/ids.ts';
import { resolveTimes, type TimeValue, timeBlock } from '../../core/time.ts';
import type { Queryable } from '../../store/db.ts';
import { heldFor } from '../../store/district-standing.ts';
import { citationsByIds } from '../../store/evidence.ts';
import { controlsFor, permissionsFor } from '../../store/place/law.ts';
import { collectionParams, type ResourceDef, runCollection, type SqlContext, timeParams } from '../collection/index.ts';
import { FIELD_PARAM } from '../fields.ts';
import { defineRoutes, type Req } from '../route.ts';
import { jurisdictionByRef } from './jurisdiction.ts';
import { knownUses, settledNotice, settleKnown } from '../place/common.ts';
import { segmentsOver } from '../place/segments.ts';
import { precedenceView } from '../place/standing.ts';

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
    if (include.includes('definition')) i.definition = [];
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

async function oneDistrict(db: Queryable, jurisdictionId: string, ref: string, t: { asOf: string; knownAsOf: string }) {
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

export const districtRoutes = defineRoutes([
  {
    id: 'listDistricts',
    method: 'GET',
    path: '/jurisdiction/{jurisdiction}/district',
    summary: "A town's districts in force, base and overlay, with their purpose passages",
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
      const j = await jurisdictionByRef(db, req.params.jurisdiction, 'jurisdiction');
      const resolved = resolveTimes(req.params, j.timezone);
      if (resolved.asOf.kind === 'interval') throw invalid('as_of', 'the list answers at one date; ask one district for its history over an interval');
      // a load of the jurisdiction in flight at the instant asked: answer as known before it
      const settled = await settleKnown(db, resolved.knownAsOf, [j.id]);
      const times = { ...resolved, knownAsOf: settled.knownAsOf };
      const ts = timeSql(times.asOf, j.timezone);
      const p = req.params;
      const r = await runCollection(db, districts, p, req.services.secret, {
        snapshot: (times.knownAsOf.basis === 'requested' || settled.settled) && times.knownAsOf.kind === 'instant' ? times.knownAsOf.instant : null,
        where: [
          (c) => `d.jurisdiction_id = ${c.bind(j.id)}`,
          (c) => `d.valid @> ${ts.valid(c)} AND d.known @> ${ts.known(c)}`,
          (c) => `NOT EXISTS (SELECT 1 FROM district d2 WHERE d2.id = d.id AND d2.source_id <> d.source_id AND d2.valid @> ${ts.valid(c)} AND d2.known @> ${ts.known(c)} AND ${RANK('d2')} < ${RANK('d')})`,
          ...(p.kind ? [(c: SqlContext) => `d.kind = ${c.bind(p.kind)}`] : []),
          ...(p.type ? [(c: SqlContext) => `d.type = ${c.bind(p.type)}`] : []),
        ],
        map: (row) => districtItem(row, j.id),
      });
      const t = { asOf: resolved.asOf.date, knownAsOf: times.knownAsOf.kind === 'instant' ? times.knownAsOf.instant : times.knownAsOf.end };
      await embed(db, r.items, p.include ?? [], t);
      return { item: r.items, page: r.page, extra: { as_of: timeBlock({ ...times, timezone: j.timezone }), ...(settled.settled ? { notice: [settledNotice(settled.settled)] } : {}) } };
    },
  },
  {
    id: 'getDistrict',
    method: 'GET',
    path: '/jurisdiction/{jurisdiction}/district/{district}',
    summary: "One district by the town's own code (percent-encoded) or dst_ id; an interval as_of gives its history",
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
      const j = await jurisdictionByRef(db, req.params.jurisdiction, 'jurisdiction');
      const resolved = resolveTimes(req.params, j.timezone);
      const settled = await settleKnown(db, resolved.knownAsOf, [j.id]);
      const times = { ...resolved, knownAsOf: settled.knownAsOf };
      const notice = settled.settled ? { notice: [settledNotice(settled.settled)] } : {};
      const known = times.knownAsOf.kind === 'instant' ? times.knownAsOf.instant : times.knownAsOf.end;
      const ref: string = req.params.district;
      const include: string[] = req.params.include ?? [];
      const at = async (date: string) => {
        const row = await oneDistrict(db, j.id, ref, { asOf: date, knownAsOf: known });
        if (!row) return null;
        const item = districtItem(row, j.id);
        await embed(db, [item], include, { asOf: date, knownAsOf: known }, uses);
        return item;
      };
      if (times.asOf.kind === 'instant') {
        const item = await at(times.asOf.date);
        if (!item) throw notFound('district', `${ref} in force on ${times.asOf.date}`);
        return { item, extra: { as_of: timeBlock({ ...times, timezone: j.timezone }), ...notice } };
      }
      const segments = await segmentsOver(db, j.id, times.asOf.from, times.asOf.to, known, at);
      if (segments.every((s) => s.value === null)) throw notFound('district', `${ref} between ${times.asOf.from} and ${times.asOf.to}`);
      return {
        item: { segment: segments.map((s) => ({ from: s.from, to: s.to, district: s.value })) },
        extra: { as_of: timeBlock({ ...times, timezone: j.timezone, segmentCount: segments.length }), ...notice },
      };
    },
  },
]);

export type { Req };
