// District facts (from a district list or the code text) and the change events they imply.
import { sha256Hex, stableId } from '../../core/ids.ts';
import { codeKey } from '../../ingest/district-codes.ts';
import { normalizeCode } from '../../ingest/district-list.ts';
import type { DistrictRecord } from '../../ingest/types.ts';
import { applyFacts, type FactDelta } from '../bitemporal.ts';
import type { ChangeEventDraft } from '../changes.ts';
import type { CitationBatch } from '../citations.ts';
import { isBackfill, type LoadContext } from './context.ts';

export const districtIdFor = (jurisdictionId: string, kind: string, codeNormalized: string) =>
  stableId('district', jurisdictionId, kind, codeNormalized);

/**
 * One form per district code across the sources of a jurisdiction: a code written `RS-1` on the
 * map, `RS 1` in a table header and `RS1` in the list is one district, held under the form first
 * held (so its id never moves), or first seen in this load when none is held yet.
 */
export class CodeForms {
  private constructor(private byKey: Map<string, string>) {}

  static async load(ctx: LoadContext, kind: 'base' | 'overlay'): Promise<CodeForms> {
    return (await CodeForms.byKind(ctx))[kind];
  }

  /** The forms held for both kinds of district, in one read. */
  static async byKind(ctx: LoadContext): Promise<Record<'base' | 'overlay', CodeForms>> {
    const { rows } = await ctx.client.query(
      `SELECT kind, code_normalized AS code, min(lower(known)) AS first FROM district WHERE jurisdiction_id = $1 GROUP BY 1, 2 ORDER BY 3, 2`,
      [ctx.jurisdictionId],
    );
    const forms = { base: new Map<string, string>(), overlay: new Map<string, string>() };
    for (const r of rows) {
      const byKey = forms[r.kind as 'base' | 'overlay'];
      if (byKey && !byKey.has(codeKey(r.code))) byKey.set(codeKey(r.code), r.code);
    }
    return { base: new CodeForms(forms.base), overlay: new CodeForms(forms.overlay) };
  }

  /** The form this code is held under. */
  of(code: string): string {
    const norm = normalizeCode(code);
    const key = codeKey(norm);
    if (!key) return norm;
    const held = this.byKey.get(key);
    if (held) return held;
    this.byKey.set(key, norm);
    return norm;
  }
}

const COLUMNS = ['source_id', 'jurisdiction_id', 'kind', 'code_raw', 'code_normalized', 'local_label', 'type', 'subtype', 'purpose', 'section_ref', 'citation_id', 'source_version_id', 'status'];
const COMPARED = ['code_raw', 'local_label', 'type', 'purpose', 'section_ref'];

export async function applyDistricts(ctx: LoadContext, districts: DistrictRecord[], cites: CitationBatch, validFrom = ctx.effectiveFrom): Promise<FactDelta> {
  const seen = new Map<string, DistrictRecord>();
  for (const d of districts) seen.set(districtIdFor(ctx.jurisdictionId, d.kind, d.code_normalized), d);
  const facts = [...seen].map(([id, d]) => {
    const citationId = cites.add(d.citation);
    const values = [ctx.source.id, ctx.jurisdictionId, d.kind, d.code_raw, d.code_normalized, d.local_label, d.type, null, d.purpose, d.section_ref, citationId, ctx.version.id, 'stated'];
    return { id, content_sha256: sha256Hex(JSON.stringify([d.code_raw, d.local_label, d.type, d.purpose, d.section_ref, d.citation.quote])), valid_from: validFrom, values };
  });
  await cites.write(ctx.client);
  return applyFacts(
    ctx.client,
    { table: 'district', columns: COLUMNS, scope: { where: 't.jurisdiction_id = $1 AND t.source_id = $2', params: [ctx.jurisdictionId, ctx.source.id] }, deltaColumns: ['code_normalized', 'kind', ...COMPARED] },
    facts,
    { now: ctx.now, removeMissing: true, removedOn: validFrom },
  );
}

/** Events for a fact delta: adoption, amendment (one per changed field) and repeal. */
export function deltaEvents(
  ctx: LoadContext,
  delta: FactDelta,
  describe: { layer: ChangeEventDraft['layer']; path: (row: Record<string, unknown>) => string; subject: (id: string, row: Record<string, unknown>) => Record<string, unknown>; compared: string[] },
): ChangeEventDraft[] {
  const base = { jurisdictionId: ctx.jurisdictionId, layer: describe.layer, sourceVersionId: ctx.version.id };
  const events: ChangeEventDraft[] = [];
  for (const r of delta.added) {
    if (isBackfill(ctx, r.valid_from)) continue;
    events.push({ ...base, kind: 'adoption', subject: describe.subject(r.id, r.current!), fieldPath: describe.path(r.current!), previous: null, current: r.current, effectiveDate: r.valid_from });
  }
  for (const r of delta.changed) {
    if (!ctx.priorLoaded) continue;
    for (const field of describe.compared) {
      const before = r.previous?.[field] ?? null;
      const after = r.current?.[field] ?? null;
      if (JSON.stringify(before) === JSON.stringify(after)) continue;
      events.push({ ...base, kind: 'amendment', subject: describe.subject(r.id, r.current!), fieldPath: `${describe.path(r.current!)}.${field}`, previous: before, current: after, effectiveDate: r.valid_from });
    }
  }
  for (const r of delta.removed) {
    if (!ctx.priorLoaded) continue;
    events.push({ ...base, kind: 'repeal', subject: describe.subject(r.id, r.previous!), fieldPath: describe.path(r.previous!), previous: r.previous, current: null, effectiveDate: r.valid_from });
  }
  return events;
}

export function districtEvents(ctx: LoadContext, delta: FactDelta): ChangeEventDraft[] {
  return deltaEvents(ctx, delta, {
    layer: 'district',
    path: (row) => `district.${row.code_normalized}`,
    subject: (id, row) => ({ type: 'district', id, code: row.code_normalized, kind: row.kind }),
    compared: COMPARED,
  });
}
