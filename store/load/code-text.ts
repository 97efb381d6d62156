// The zoning code's text: sections, districts, permissions (use tables), controls (dimensional
// tables) and the rule for unlisted uses, every fact citing its passage; change events for
// what a new version adopts, amends and repeals.
import { ApplicationFailure } from '@temporalio/common';
import { sha256Hex, stableId } from '../../core/ids.ts';
import { normalizeLabel } from '../../ingest/labels.ts';
import { heldCells, parseOrdinance } from '../../ingest/ordinance/index.ts';
import type { OrdinanceParse } from '../../ingest/types.ts';
import { applyFacts, type StagedFact } from '../bitemporal.ts';
import type { ChangeEventDraft } from '../changes.ts';
import { CitationBatch } from '../citations.ts';
import { saveVersionText } from '../documents.ts';
import type { LoadContext, Loader } from './context.ts';
import { applyDistricts, CodeForms, deltaEvents, districtEvents, districtIdFor } from './districts.ts';
import { dateFactChanges } from './effective.ts';
import { codeTextTier } from './zoning-coverage.ts';

// a fact is the same fact while what it states is the same: a quote that moves or gains a
// neighbouring cell's change does not make a new fact (its citation still holds in its version)
const hash = (...parts: unknown[]) => sha256Hex(JSON.stringify(parts));
/** A section's own prose: its tables are compared cell by cell as permissions and controls. */
const prose = (body: string) => body.split('\n').filter((l) => !l.trimStart().startsWith('|')).join('\n').trim();

/** The reader's media type for each code-text format (markdown is read as published). */
const CODE_MEDIA_TYPES: Record<string, string> = { pdf: 'application/pdf', html: 'text/html', text: 'text/plain', markdown: 'text/markdown' };

/**
 * What a partial read keeps: the held facts of tables this version shows but could not read
 * (issues `table_unread` naming the table), or every held permission and control when the
 * version stated none at all although earlier ones did.
 */
async function keptFacts(ctx: LoadContext, parsed: OrdinanceParse): Promise<{ permission: string[]; control: string[]; everything: boolean }> {
  const unread = [...new Set(parsed.issues.filter((i) => i.code === 'table_unread' && i.locator?.table).map((i) => i.locator!.table as string))];
  const everything = parsed.permissions.length + parsed.controls.length === 0;
  const held = async (table: 'permission' | 'control') => {
    const { rows } = await ctx.client.query(
      `SELECT id FROM ${table} WHERE jurisdiction_id = $1 AND source_id = $2 AND upper_inf(known) AND upper_inf(valid) AND ($3 OR table_ref = ANY($4::text[]))`,
      [ctx.jurisdictionId, ctx.source.id, everything, unread],
    );
    return rows.map((r) => r.id as string);
  };
  return { permission: await held('permission'), control: await held('control'), everything };
}

/** District codes the jurisdiction's other sources (its map, its list) hold now, as they write them. */
async function otherSourcesCodes(ctx: LoadContext): Promise<string[]> {
  const { rows } = await ctx.client.query(
    `SELECT DISTINCT code_raw FROM district WHERE jurisdiction_id = $1 AND source_id <> $2 AND upper_inf(known) AND upper_inf(valid) ORDER BY 1`,
    [ctx.jurisdictionId, ctx.source.id],
  );
  return rows.map((r) => r.code_raw as string);
}

/** The parse with each district code in the form held for the jurisdiction (the map's `RS-1` for the text's `RS 1`). */
async function inHeldForms(ctx: LoadContext, p: OrdinanceParse): Promise<OrdinanceParse> {
  const forms = await CodeForms.byKind(ctx);
  const kindOf = new Map(p.districts.map((d) => [d.code_normalized, d.kind]));
  const of = (code: string) => forms[kindOf.get(code) ?? 'base'].of(code);
  return {
    ...p,
    districts: p.districts.map((d) => ({ ...d, code_normalized: of(d.code_normalized) })),
    permissions: p.permissions.map((x) => ({ ...x, district_code: of(x.district_code) })),
    indeterminate: (p.indeterminate ?? []).map((x) => ({ ...x, district_code: of(x.district_code) })),
    controls: p.controls.map((x) => ({ ...x, district_code: of(x.district_code) })),
  };
}

async function useSlugs(ctx: LoadContext): Promise<Map<string, string | null>> {
  const { rows } = await ctx.client.query('SELECT label_normalized, use_slug FROM use_label WHERE jurisdiction_id = $1', [ctx.jurisdictionId]);
  return new Map(rows.map((r) => [r.label_normalized, r.use_slug]));
}

export const loadCodeText: Loader = async (ctx) => {
  const m = ctx.source.manifest;
  const read: OrdinanceParse = await parseOrdinance(await ctx.bytes(), { mediaType: CODE_MEDIA_TYPES[m.format] ?? 'text/markdown', hints: m.hints, districtCodes: await otherSourcesCodes(ctx) });
  const parsed = await inHeldForms(ctx, read);
  const fatal = parsed.issues.filter((i) => i.severity === 'error');
  if (fatal.length > 0 && parsed.sections.length === 0) throw ApplicationFailure.nonRetryable(fatal.map((i) => `${i.code}: ${i.detail}`).join('; '), 'BadInput');
  ctx.beat({ sections: parsed.sections.length });
  await saveVersionText(ctx.client, ctx.version.id, parsed.text, sha256Hex(parsed.text));
  const cites = new CitationBatch({ jurisdictionId: ctx.jurisdictionId, documentId: ctx.version.documentId, versionId: ctx.version.id, retrievedAt: ctx.version.retrievedAt, text: parsed.text });
  const j = ctx.jurisdictionId;
  const scope = { where: 't.jurisdiction_id = $1 AND t.source_id = $2', params: [j, ctx.source.id] };
  const opts = { now: ctx.now, removeMissing: true, removedOn: ctx.effectiveFrom };
  const from = ctx.effectiveFrom;

  const districtDelta = await applyDistricts(ctx, parsed.districts, cites);
  const kindOf = new Map(parsed.districts.map((d) => [d.code_normalized, d.kind]));
  const districtOf = (code: string) => districtIdFor(j, kindOf.get(code) ?? 'base', code);

  const sections: StagedFact[] = parsed.sections.map((s) => ({
    id: stableId('section', j, ctx.source.id, s.ref),
    content_sha256: hash(s.heading, prose(s.body)),
    valid_from: from,
    values: [ctx.source.id, j, ctx.version.documentId, s.ref, s.heading, s.parent_ref, s.depth, s.ordinal, s.body, sha256Hex(prose(s.body)), cites.add(s.citation, { effective_from: from }), ctx.version.id],
  }));
  const slugs = await useSlugs(ctx);
  const unmapped = new Set<string>();
  const cells = heldCells(parsed);
  const permissions: StagedFact[] = cells.map((p) => {
    const label = p.use_label_normalized || normalizeLabel(p.use_label_raw);
    const slug = slugs.get(label) ?? null;
    if (!slug) unmapped.add(p.use_label_raw);
    // a cell that states nothing is held as `unknown`, status `withheld`, its reason in `conditions`
    const silent = p.level === 'indeterminate';
    const level = silent ? 'unknown' : p.level;
    return {
      id: stableId('permission', j, p.district_code, label, p.table_ref),
      content_sha256: hash(p.use_label_raw, p.symbol, level, p.process, p.conditions, slug),
      valid_from: from,
      values: [ctx.source.id, j, districtOf(p.district_code), p.use_label_raw, label, slug, p.symbol, level, p.process, p.conditions, p.table_ref, cites.add(p.citation, { effective_from: from }), ctx.version.id, silent ? 'withheld' : 'stated'],
    };
  });
  const controls: StagedFact[] = parsed.controls.map((c) => ({
    id: stableId('control', j, c.district_code, c.control_type, c.building_type, c.qualifier, c.table_ref),
    content_sha256: hash(c.min, c.max, c.unit, c.value_text, c.conditions),
    valid_from: from,
    values: [ctx.source.id, j, districtOf(c.district_code), c.control_type, c.building_type, c.qualifier, c.min, c.max, c.unit, c.value_text, c.conditions, c.table_ref, cites.add(c.citation, { effective_from: from }), ctx.version.id, 'stated'],
  }));
  const unlisted: StagedFact[] = parsed.unlisted_uses
    ? [{ id: stableId('permission', j, ctx.source.id, 'unlisted'), content_sha256: hash(parsed.unlisted_uses.result, parsed.unlisted_uses.process), valid_from: from, values: [ctx.source.id, j, parsed.unlisted_uses.result, parsed.unlisted_uses.process, cites.add(parsed.unlisted_uses.citation, { effective_from: from }), ctx.version.id] }]
    : [];
  const citationCount = cites.size;
  await cites.write(ctx.client);
  ctx.beat({ citations: citationCount });

  // date each change by the text amendment that names its section, table or district
  const codeOf = new Map(parsed.districts.map((d) => [districtIdFor(j, d.kind, d.code_normalized), d.code_normalized]));
  const codeOfId = (id: unknown) => codeOf.get(String(id)) ?? String(id);
  const anchorsOf = (facts: StagedFact[], anchors: (i: number) => string[]) => facts.map((f, i) => ({ id: f.id, content_sha256: f.content_sha256, anchors: anchors(i) }));
  const datings = [
    await dateFactChanges(ctx, 'section', anchorsOf(sections, (i) => [parsed.sections[i].ref]), (r) => [String(r.ref)]),
    await dateFactChanges(ctx, 'permission', anchorsOf(permissions, (i) => [cells[i].district_code, cells[i].table_ref ?? '']), (r) => [codeOfId(r.district_id), String(r.table_ref ?? '')]),
    await dateFactChanges(ctx, 'control', anchorsOf(controls, (i) => [parsed.controls[i].district_code, parsed.controls[i].table_ref ?? '']), (r) => [codeOfId(r.district_id), String(r.table_ref ?? '')]),
  ];
  for (const [facts, d] of [[sections, datings[0]], [permissions, datings[1]], [controls, datings[2]]] as const) for (const f of facts) f.valid_from = d.validFrom.get(f.id) ?? f.valid_from;
  const ordinanceOf = new Map(datings.flatMap((d) => [...d.ordinanceOf]));
  const removedOnFor = (d: (typeof datings)[number], keep: string[] = []) => ({ ...opts, removedOnFor: d.removedOn, keep });
  const kept = await keptFacts(ctx, parsed);

  const sectionDelta = await applyFacts(ctx.client, { table: 'section', columns: ['source_id', 'jurisdiction_id', 'document_id', 'ref', 'heading', 'parent_ref', 'depth', 'ordinal', 'body', 'body_sha256', 'citation_id', 'source_version_id'], scope, deltaColumns: ['ref', 'heading', 'body_sha256'] }, sections, removedOnFor(datings[0]));
  const permissionDelta = await applyFacts(ctx.client, { table: 'permission', columns: ['source_id', 'jurisdiction_id', 'district_id', 'use_label_raw', 'use_label_normalized', 'use_slug', 'symbol', 'level', 'process', 'conditions', 'table_ref', 'citation_id', 'source_version_id', 'status'], scope, deltaColumns: ['district_id', 'use_label_raw', 'use_label_normalized', 'use_slug', 'symbol', 'level', 'conditions', 'table_ref'] }, permissions, removedOnFor(datings[1], kept.permission));
  const controlDelta = await applyFacts(ctx.client, { table: 'control', columns: ['source_id', 'jurisdiction_id', 'district_id', 'control_type', 'building_type', 'qualifier', 'min_value', 'max_value', 'unit', 'value_text', 'conditions', 'table_ref', 'citation_id', 'source_version_id', 'status'], scope, deltaColumns: ['district_id', 'control_type', 'building_type', 'qualifier', 'min_value', 'max_value', 'unit', 'value_text', 'table_ref'] }, controls, removedOnFor(datings[2], kept.control));
  const unlistedDelta = await applyFacts(ctx.client, { table: 'unlisted_use_rule', columns: ['source_id', 'jurisdiction_id', 'result', 'process', 'citation_id', 'source_version_id'], scope, deltaColumns: ['result', 'process'] }, unlisted, opts);
  ctx.beat({ facts: 'loaded' });

  const code = (row: Record<string, unknown>) => codeOfId(row.district_id);
  const events: ChangeEventDraft[] = [
    ...districtEvents(ctx, districtDelta),
    ...deltaEvents(ctx, sectionDelta, { layer: 'district', path: (r) => `section.${r.ref}`, subject: (id, r) => ({ type: 'section', id, ref: r.ref }), compared: ['heading', 'body_sha256'] }),
    ...deltaEvents(ctx, permissionDelta, {
      layer: 'district',
      path: (r) => `district.${code(r)}.permission.${r.use_slug ?? r.use_label_normalized}`,
      subject: (id, r) => ({ type: 'permission', id, district: code(r), use: r.use_slug, use_label: r.use_label_raw }),
      compared: ['symbol', 'level', 'conditions'],
    }),
    ...deltaEvents(ctx, controlDelta, {
      layer: 'district',
      path: (r) => `district.${code(r)}.control.${r.control_type}${r.building_type ? `.${r.building_type}` : ''}${r.qualifier ? `.${normalizeLabel(String(r.qualifier)).replace(/ /g, '_')}` : ''}`,
      subject: (id, r) => ({ type: 'control', id, district: code(r), control_type: r.control_type, building_type: r.building_type }),
      compared: ['min_value', 'max_value', 'unit', 'value_text'],
    }),
    ...deltaEvents(ctx, unlistedDelta, { layer: 'district', path: () => 'unlisted_uses', subject: (id) => ({ type: 'unlisted_uses', id }), compared: ['result', 'process'] }),
  ];
  for (const e of events) {
    const o = ordinanceOf.get(String(e.subject.id));
    if (o) Object.assign(e, { ordinanceId: o.id, adoptedOn: o.adopted_on });
  }
  const issues = [...parsed.issues, ...[...unmapped].map((label) => ({ severity: 'warning' as const, code: 'label_unmapped', detail: `use label kept raw, not mapped to the vocabulary: ${label}` }))];
  const keptCount = kept.permission.length + kept.control.length;
  if (keptCount > 0) {
    const why = kept.everything ? 'this version stated no permission or control' : 'their tables could not be read in this version';
    issues.push({ severity: 'warning', code: 'facts_kept', detail: `${kept.permission.length} permissions and ${kept.control.length} controls of the earlier version are kept: ${why}` });
  }
  const silent = cells.length - parsed.permissions.length;
  const counts = {
    sections: sections.length,
    districts: parsed.districts.length,
    permissions: parsed.permissions.length,
    controls: controls.length,
    citations: citationCount,
    unmapped_labels: unmapped.size,
    fact_added: sectionDelta.added.length + permissionDelta.added.length + controlDelta.added.length + districtDelta.added.length,
    fact_changed: sectionDelta.changed.length + permissionDelta.changed.length + controlDelta.changed.length + districtDelta.changed.length,
    fact_removed: sectionDelta.removed.length + permissionDelta.removed.length + controlDelta.removed.length + districtDelta.removed.length,
    facts_kept: keptCount,
    cells_indeterminate: silent,
  };
  const entry = { sections: sections.length, permissions: parsed.permissions.length, cells_indeterminate: silent, controls: controls.length, tables_unread: issues.filter((i) => i.code === 'table_unread').length, errors: fatal.length };
  return {
    counts,
    events,
    issues,
    coverage: [
      {
        jurisdictionId: j,
        layer: 'zoning_text',
        ...codeTextTier(entry),
        sourceId: ctx.source.id,
        retrievedAt: ctx.version.retrievedAt,
        changedAt: counts.fact_added + counts.fact_changed + counts.fact_removed > 0 ? ctx.now : null,
        earliestRetained: from,
        detail: { ...counts, ...entry, issues_by_code: Object.fromEntries([...new Set(issues.map((i) => i.code))].map((c) => [c, issues.filter((i) => i.code === c).length])) },
      },
    ],
  };
};
