// A clerk's list of ordinances: ordinance facts (ord_) and moratorium facts (mor_), each citing
// its row. The text kept for citations is the rows as read, one a line. A newly adopted
// moratorium or standalone ordinance is a change (adoption); amendments show as the facts they
// change, when the code or map that carries them is read.
import { sourceTier } from '../coverage.ts';
import { sha256Hex, stableId } from '../../core/ids.ts';
import { normalizeLabel } from '../../ingest/labels.ts';
import { parseRecordSource } from '../../ingest/records/index.ts';
import type { MoratoriumRecord, OrdinanceRecord } from '../../ingest/records/types.ts';
import { resolveUrl } from '../../activities/fetch.ts';
import { applyFacts } from '../bitemporal.ts';
import type { ChangeEventDraft } from '../changes.ts';
import { CitationBatch } from '../citations.ts';
import type { Queryable } from '../db.ts';
import { saveVersionText } from '../documents.ts';
import { isBackfill, type LoadContext, type Loader } from './context.ts';
import { districtIdFor } from './districts.ts';

export const ordinanceIdFor = (jurisdictionId: string, number: string) => stableId('ordinance', jurisdictionId, number.trim().toUpperCase());

/** The parsed text: every row as read, one a line; returns the text and each row's offset. */
function rowsText(rows: Array<{ row_text: string }>): { text: string; at: number[] } {
  const at: number[] = [];
  let text = '';
  for (const r of rows) {
    at.push(text.length);
    text += `${r.row_text}\n`;
  }
  return { text, at };
}

async function slugsFor(db: Queryable, jurisdictionId: string, labels: string[]) {
  if (labels.length === 0) return new Map<string, string | null>();
  const { rows } = await db.query('SELECT label_normalized, use_slug FROM use_label WHERE jurisdiction_id = $1 AND label_normalized = ANY($2)', [jurisdictionId, labels.map(normalizeLabel)]);
  return new Map(rows.map((r) => [r.label_normalized as string, r.use_slug as string | null]));
}

export const loadOrdinances: Loader = async (ctx) => {
  const m = ctx.source.manifest;
  const parsed = parseRecordSource('amendment_list', await ctx.bytes(), m.mapping ?? 'ordinance_list_html', { url: resolveUrl(m.url) });
  if (parsed.kind !== 'amendment_list') throw new Error('unexpected parse');
  const { ordinances, moratoriums, issues, rejected } = parsed.result;
  const { text, at } = rowsText([...ordinances, ...moratoriums]);
  await saveVersionText(ctx.client, ctx.version.id, text, sha256Hex(text));
  const cites = new CitationBatch({ jurisdictionId: ctx.jurisdictionId, documentId: ctx.version.documentId, versionId: ctx.version.id, retrievedAt: ctx.version.retrievedAt, text });
  const j = ctx.jurisdictionId;
  const cite = (r: OrdinanceRecord | MoratoriumRecord, i: number, extra: { adopted_on?: string | null; effective_from?: string | null; effective_through?: string | null }) =>
    cites.add({ quote: r.row_text, locator: { start: at[i], end: at[i] + r.row_text.length, line: i + 1, row: 'number' in r ? r.number : r.title, table: 'number' in r ? 'ordinances' : 'moratoria' } }, extra);

  const ordinanceFacts = ordinances.map((o, i) => ({
    id: ordinanceIdFor(j, o.number),
    content_sha256: sha256Hex(JSON.stringify([o.title, o.kind, o.status, o.subject, o.introduced_on, o.adopted_on, o.effective_from, o.href])),
    // an ordinance is a record of the clerk: in force (valid) from when the list states it, known from now
    valid_from: o.effective_from ?? o.adopted_on ?? o.introduced_on ?? ctx.effectiveFrom,
    values: [ctx.source.id, j, o.number, o.title, o.kind ?? 'standalone', o.status ?? 'proposed', o.subject ? [o.subject] : [], o.introduced_on, o.adopted_on, o.effective_from, cite(o, i, { adopted_on: o.adopted_on, effective_from: o.effective_from }), ctx.version.id, { kind_raw: o.kind_raw, status_raw: o.status_raw, subject_raw: o.subject_raw, href: o.href }],
  }));

  const labels = await slugsFor(ctx.client, j, moratoriums.flatMap((x) => x.uses));
  const moratoriumFacts = [];
  for (const [k, mo] of moratoriums.entries()) {
    let area: string | null = null;
    if (mo.area.scope === 'district') {
      const ids = mo.area.codes.map((c) => districtIdFor(j, 'base', c.toUpperCase()));
      const { rows } = await ctx.client.query(
        `SELECT ST_AsText(ST_Multi(ST_Union(geom))) AS g FROM district_area WHERE district_id = ANY($1) AND upper_inf(known) AND upper_inf(valid)`,
        [ids],
      );
      area = rows[0]?.g ?? null;
    }
    if (mo.area.scope === 'unknown') issues.push({ severity: 'warning', code: 'moratorium_area_unknown', detail: `${mo.title}: area "${mo.area.raw}" is not a district or the whole town; kept as town-wide is NOT assumed`, locator: { line: mo.line } });
    const slugs = mo.uses.map((u) => labels.get(normalizeLabel(u)) ?? null);
    moratoriumFacts.push({
      id: stableId('moratorium', j, mo.ordinance_number ?? mo.title),
      content_sha256: sha256Hex(JSON.stringify([mo.title, mo.uses, mo.area, mo.effective_from, mo.effective_through])),
      valid_from: mo.effective_from ?? ctx.effectiveFrom,
      valid_to: mo.effective_through ? addDay(mo.effective_through) : null,
      values: [ctx.source.id, j, mo.ordinance_number ? ordinanceIdFor(j, mo.ordinance_number) : null, mo.title, slugs.filter((s): s is string => Boolean(s)), mo.uses, area, mo.area.scope === 'unknown' ? 'area_unknown' : 'adopted', cite(mo, ordinances.length + k, { effective_from: mo.effective_from, effective_through: mo.effective_through }), ctx.version.id],
    });
  }
  await cites.write(ctx.client);

  const scope = { where: 't.jurisdiction_id = $1 AND t.source_id = $2', params: [j, ctx.source.id] };
  const ordDelta = await applyFacts(
    ctx.client,
    { table: 'ordinance', columns: ['source_id', 'jurisdiction_id', 'number', 'title', 'kind', 'status', 'subject', 'introduced_on', 'adopted_on', 'effective_from', 'citation_id', 'source_version_id', 'detail'], scope, deltaColumns: ['number', 'title', 'kind', 'status', 'adopted_on', 'effective_from'] },
    ordinanceFacts,
    { now: ctx.now, removeMissing: false },
  );
  const morDelta = await applyFacts(
    ctx.client,
    { table: 'moratorium', columns: ['source_id', 'jurisdiction_id', 'ordinance_id', 'title', 'uses', 'use_labels', 'area', 'status', 'citation_id', 'source_version_id'], scope, deltaColumns: ['title', 'uses', 'use_labels', 'ordinance_id'] },
    moratoriumFacts,
    { now: ctx.now, removeMissing: false },
  );

  const events: ChangeEventDraft[] = [];
  const adopted = new Map(ordinances.map((o) => [ordinanceIdFor(j, o.number), o]));
  for (const r of morDelta.added) {
    if (isBackfill(ctx, r.valid_from)) continue;
    const ord = r.current?.ordinance_id ? adopted.get(String(r.current.ordinance_id)) : undefined;
    events.push({ jurisdictionId: j, kind: 'adoption', layer: 'district', subject: { type: 'moratorium', id: r.id, title: r.current?.title }, fieldPath: 'moratorium', previous: null, current: r.current, effectiveDate: r.valid_from, adoptedOn: ord?.adopted_on ?? null, ordinanceId: (r.current?.ordinance_id as string) ?? null, sourceVersionId: ctx.version.id });
  }
  for (const r of [...ordDelta.added, ...ordDelta.changed]) {
    const o = r.current!;
    const becameAdopted = o.status === 'adopted' && r.previous?.status !== 'adopted';
    if (!becameAdopted || o.kind !== 'standalone' || isBackfill(ctx, r.valid_from)) continue;
    events.push({ jurisdictionId: j, kind: 'adoption', layer: 'district', subject: { type: 'ordinance', id: r.id, number: o.number, title: o.title }, fieldPath: `ordinance.${o.number}`, previous: r.previous, current: o, effectiveDate: (o.effective_from as string) ?? r.valid_from, adoptedOn: (o.adopted_on as string) ?? null, ordinanceId: r.id, sourceVersionId: ctx.version.id });
  }
  return {
    counts: { ordinances: ordinances.length, moratoriums: moratoriums.length, rejected: rejected.length, ordinance_added: ordDelta.added.length, ordinance_changed: ordDelta.changed.length, moratorium_added: morDelta.added.length },
    events,
    issues: [...issues, ...rejected.map((r) => ({ severity: 'warning' as const, code: 'row_rejected', detail: `line ${r.line}: ${r.reason}` }))],
    coverage: [{ jurisdictionId: j, layer: 'ordinance', ...sourceTier(ordinances.length + moratoriums.length, rejected.length), sourceId: ctx.source.id, retrievedAt: ctx.version.retrievedAt, changedAt: ordDelta.added.length + ordDelta.changed.length + morDelta.added.length > 0 ? ctx.now : null, earliestRetained: ctx.effectiveFrom, detail: { ordinances: ordinances.length, moratoriums: moratoriums.length, rejected } }],
  };
};

function addDay(date: string): string {
  const d = new Date(`${date}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() + 1);
  return d.toISOString().slice(0, 10);
}
