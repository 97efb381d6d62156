// Zoning and overlay maps: a map_ version per layer, one district_area fact per mapped polygon
// (by code), districts for codes the map names, the list/map mismatch reported, and one
// map_change event per district whose mapped area changed by more than a redrawing does.
import { DRAWING_TOLERANCE_M } from '../../core/tolerance.ts';
import { ApplicationFailure } from '@temporalio/common';
import { sha256Hex, stableId } from '../../core/ids.ts';
import { inflated } from '../../ingest/gzip.ts';
import { readLayer } from '../../ingest/layers.ts';
import type { DistrictRecord } from '../../ingest/types.ts';
import { applyFacts } from '../bitemporal.ts';
import type { ChangeEventDraft } from '../changes.ts';
import { CitationBatch } from '../citations.ts';
import { Geometry } from '../copy.ts';
import { saveVersionText } from '../documents.ts';
import type { LoadContext, Loader, LoadResult } from './context.ts';
import { applyDistricts, CodeForms, districtIdFor } from './districts.ts';
import { recordMapExtent, recordMapVersion } from './map-version.ts';
import { cutPieces } from './pieces.ts';
import { effectiveOf, matchOrdinance, newlyAdopted, type OrdinanceRef } from './effective.ts';

const TEXT_FORMATS = new Set(['geojson', 'topojson']);

/** A mapped polygon's district codes: one, or several for a polygon that marks an overlap. */
function codesOf(props: Record<string, unknown>, fields: Record<string, string>): string[] {
  const raw = String(props[fields.code ?? 'code'] ?? '').trim();
  if (!raw) return [];
  const overlap = fields.overlap_flag && String(props[fields.overlap_flag] ?? '').toUpperCase() === 'Y';
  return overlap && fields.overlap_separator ? raw.split(fields.overlap_separator).map((c) => c.trim()).filter(Boolean) : [raw];
}

/** Where the map's file names a code, for a citation (text formats only). */
function codeQuote(text: string, field: string, code: string): { quote: string; start: number; end: number } | null {
  const re = new RegExp(`"${field.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}"\\s*:\\s*"${code.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}"`);
  const m = re.exec(text);
  return m ? { quote: m[0], start: m.index, end: m.index + m[0].length } : null;
}

export function mapLoader(kind: 'base' | 'overlay'): Loader {
  return async (ctx: LoadContext): Promise<LoadResult> => {
    const m = ctx.source.manifest;
    const fields = m.fields ?? {};
    const bytes = inflated(await ctx.bytes());
    const read = await readLayer(bytes, { format: m.format as 'geojson', publishedCrs: m.published_crs ?? null });
    const fatal = read.issues.filter((i) => i.severity === 'error');
    if (fatal.length > 0) throw ApplicationFailure.nonRetryable(fatal.map((i) => `${i.code}: ${i.detail}`).join('; '), 'BadInput');
    ctx.beat({ features: read.feature_count });

    const text = TEXT_FORMATS.has(m.format) ? bytes.toString('utf8') : null;
    if (text) await saveVersionText(ctx.client, ctx.version.id, text, sha256Hex(text));
    const mapVersionId = stableId('map', ctx.source.id, ctx.version.id);

    // districts named by the map (a citation to the file where it is text)
    const cites = text ? new CitationBatch({ jurisdictionId: ctx.jurisdictionId, documentId: ctx.version.documentId, versionId: ctx.version.id, retrievedAt: ctx.version.retrievedAt, text }) : null;
    const forms = await CodeForms.load(ctx, kind);
    const named = new Map<string, DistrictRecord>();
    const areas = [];
    const issues = [...read.issues];
    const seen = new Map<string, number>();
    for (const f of read.features) {
      if (!f.wkb) continue; // reported in read.empty: a district cannot be placed without area
      const codes = codesOf(f.properties, fields);
      if (codes.length === 0) {
        issues.push({ severity: 'warning', code: 'feature_without_code', detail: `feature ${f.index} has no ${fields.code ?? 'code'}; kept under code "UNCODED"` });
        codes.push('UNCODED');
      }
      for (const code of codes) {
        const norm = forms.of(code);
        if (!named.has(norm)) {
          const q = text ? codeQuote(text, fields.code ?? 'code', code) : null;
          named.set(norm, { kind, code_raw: code, code_normalized: norm, local_label: null, type: null, purpose: null, section_ref: (f.properties[fields.section ?? ''] as string) ?? null, citation: q ? { quote: q.quote, locator: { start: q.start, end: q.end, row: code } } : (null as never) });
        }
        const base = stableId('district', ctx.jurisdictionId, kind, 'area', norm, f.geom_sha256);
        const n = (seen.get(base) ?? 0) + 1;
        seen.set(base, n);
        const id = n === 1 ? base : stableId('district', ctx.jurisdictionId, kind, 'area', norm, f.geom_sha256, n);
        areas.push({
          id,
          content_sha256: f.geom_sha256,
          valid_from: ctx.effectiveFrom,
          values: [ctx.source.id, ctx.jurisdictionId, districtIdFor(ctx.jurisdictionId, kind, norm), kind, code, mapVersionId, f.properties[fields.feature_ref ?? ''] ?? null, f.properties, new Geometry(f.wkb), f.geom_sha256],
        });
      }
    }
    // date what changed by the ordinance that changed it (a map amendment naming the district)
    const dating = await dateMapChanges(ctx, forms, areas.map((a) => ({ id: a.id, code: forms.of(String(a.values[4])) })));
    for (const a of areas) a.valid_from = dating.addedOn.get(a.id) ?? a.valid_from;
    await recordMapVersion(ctx, kind === 'base' ? 'district' : 'overlay', read, read.empty.length, dating.versionEffective);
    const withCitation = [...named.values()].filter((d) => d.citation);
    const districtDelta = cites ? await applyDistricts(ctx, withCitation, cites) : null;

    const delta = await applyFacts(
      ctx.client,
      {
        table: 'district_area',
        columns: ['source_id', 'jurisdiction_id', 'district_id', 'kind', 'code_raw', 'map_version_id', 'feature_ref', 'attributes', 'geom', 'geom_sha256'],
        scope: { where: 't.jurisdiction_id = $1 AND t.source_id = $2', params: [ctx.jurisdictionId, ctx.source.id] },
        deltaColumns: ['code_raw', 'district_id'],
      },
      areas,
      { now: ctx.now, removeMissing: true, removedOn: ctx.effectiveFrom, removedOnFor: dating.removedOn },
    );
    await cutPieces(ctx, 'district_area', 64);
    await recordMapExtent(ctx, mapVersionId, 'district_area');
    ctx.beat({ loaded: areas.length });

    const report = await mismatchReport(ctx, kind, [...named.keys()]);
    await ctx.client.query('UPDATE map_version SET report = report || $2 WHERE id = $1', [mapVersionId, report]);
    if (kind === 'base') await deriveBoundary(ctx);

    const changes = await mapEvents(ctx, kind, forms, delta, dating.ordinanceOf);
    return {
      counts: { features: read.feature_count, repaired: read.repaired_count, not_placed: read.empty.length, areas: areas.length, districts_named: named.size, area_added: delta.added.length, area_removed: delta.removed.length, area_unchanged: delta.unchanged, districts_changed: changes.events.length, districts_redrawn: changes.redrawn },
      events: changes.events,
      issues,
      coverage: [
        {
          jurisdictionId: ctx.jurisdictionId,
          layer: kind === 'base' ? 'district_map' : 'overlay',
          held: true,
          tier: read.empty.length === 0 ? 'full' : 'partial',
          sourceId: ctx.source.id,
          retrievedAt: ctx.version.retrievedAt,
          changedAt: delta.added.length + delta.removed.length > 0 ? ctx.now : null,
          earliestRetained: ctx.effectiveFrom,
          detail: { map_version: mapVersionId, features: read.feature_count, repaired: read.repaired_count, not_placed: read.empty, districts: districtDelta ? named.size : 0, ...report },
        },
      ],
    };
  };
}

/** Codes on the map that no district list or code names, and listed codes the map never shows. */
async function mismatchReport(ctx: LoadContext, kind: string, mapCodes: string[]) {
  const { rows } = await ctx.client.query(
    `SELECT DISTINCT code_normalized FROM district
      WHERE jurisdiction_id = $1 AND kind = $2 AND source_id <> $3 AND upper_inf(known) AND upper_inf(valid)`,
    [ctx.jurisdictionId, kind, ctx.source.id],
  );
  const listed = new Set(rows.map((r) => r.code_normalized as string));
  if (listed.size === 0) return { listed_codes: 0 };
  const onMap = new Set(mapCodes);
  return {
    listed_codes: listed.size,
    on_map_not_listed: mapCodes.filter((c) => !listed.has(c)).sort(),
    listed_not_on_map: [...listed].filter((c) => !onMap.has(c)).sort(),
  };
}

/** Without a published boundary, a town's extent is the union of its base zoning map. */
async function deriveBoundary(ctx: LoadContext) {
  await ctx.client.query(
    `UPDATE jurisdiction j SET boundary = u.geom, boundary_basis = 'union of the zoning district map', updated_at = now()
       FROM (SELECT ST_Multi(ST_CollectionExtract(ST_MakeValid(ST_UnaryUnion(ST_Collect(geom))), 3)) AS geom
               FROM district_area WHERE jurisdiction_id = $1 AND kind = 'base' AND upper_inf(known) AND upper_inf(valid)) u
      WHERE j.id = $1 AND (j.boundary_basis IS NULL OR j.boundary_basis = 'union of the zoning district map') AND u.geom IS NOT NULL`,
    [ctx.jurisdictionId],
  );
  await ctx.client.query('DELETE FROM jurisdiction_piece WHERE jurisdiction_id = $1', [ctx.jurisdictionId]);
  await ctx.client.query(
    `INSERT INTO jurisdiction_piece (jurisdiction_id, geom)
     SELECT id, ST_Subdivide(boundary, 128) FROM jurisdiction WHERE id = $1 AND boundary IS NOT NULL`,
    [ctx.jurisdictionId],
  );
}

/** A district whose polygons were replaced changed only where its old and new drawings differ by a strip at least this wide. */
export const MAP_CHANGE_MIN_WIDTH_M = DRAWING_TOLERANCE_M;

/**
 * Each touched district's mapped area the day before its change and on the day it took effect,
 * and whether the two differ by more than a redrawing: their symmetric difference, measured in
 * the district's UTM zone, still has area after shrinking by half the minimum width.
 */
const DISTRICT_DIFF_SQL = `
WITH t AS (SELECT * FROM unnest($1::text[], $2::date[]) AS t(district_id, day)),
s AS (
  SELECT t.district_id, b.g AS before_g, b.n AS before_n, a.g AS after_g, a.n AS after_n
    FROM t
    CROSS JOIN LATERAL (SELECT ST_UnaryUnion(ST_Collect(ST_CollectionExtract(ST_MakeValid(x.geom), 3))) AS g, count(*)::int AS n
                          FROM district_area x
                         WHERE x.district_id = t.district_id AND x.source_id = $3
                           AND ((upper_inf(x.known) AND x.valid @> (t.day - 1))
                             -- a map replaced the day it took effect: before is what was known for that day until this load
                             OR (x.known @> ($5::timestamptz - interval '1 microsecond') AND x.valid @> t.day
                                 AND NOT EXISTS (SELECT 1 FROM district_area y WHERE y.district_id = t.district_id AND y.source_id = $3
                                                    AND upper_inf(y.known) AND y.valid @> (t.day - 1))))) b
    CROSS JOIN LATERAL (SELECT ST_UnaryUnion(ST_Collect(ST_CollectionExtract(ST_MakeValid(x.geom), 3))) AS g, count(*)::int AS n
                          FROM district_area x
                         WHERE x.district_id = t.district_id AND x.source_id = $3 AND upper_inf(x.known) AND x.valid @> t.day) a),
z AS (
  SELECT s.*, CASE WHEN ST_Y(c) < 0 THEN 32700 ELSE 32600 END + least(60, floor((ST_X(c) + 180) / 6)::int + 1) AS srid
    FROM s, LATERAL (SELECT ST_Centroid(coalesce(s.after_g, s.before_g)) AS c) p)
SELECT z.district_id, z.before_n, z.after_n,
       round(ST_Area(z.before_g::geography)::numeric, 1)::float AS before_m2,
       round(ST_Area(z.after_g::geography)::numeric, 1)::float AS after_m2,
       round(ST_Area(d.diff)::numeric, 1)::float AS differs_m2,
       (z.before_g IS NULL OR z.after_g IS NULL OR NOT ST_IsEmpty(ST_Buffer(d.diff, -$4::float8 / 2))) AS changed
  FROM z, LATERAL (
    SELECT CASE WHEN z.before_g IS NULL OR z.after_g IS NULL THEN ST_Transform(coalesce(z.after_g, z.before_g), z.srid)
           ELSE ST_SymDifference(ST_CollectionExtract(ST_MakeValid(ST_Transform(z.before_g, z.srid)), 3),
                                 ST_CollectionExtract(ST_MakeValid(ST_Transform(z.after_g, z.srid)), 3), 0.01) END AS diff) d`;

/** One map_change per district whose mapped area changed (after the first load); redrawn ones are counted. */
async function mapEvents(ctx: LoadContext, kind: string, forms: CodeForms, delta: Awaited<ReturnType<typeof applyFacts>>, ordinanceOf: Map<string, OrdinanceRef | null>): Promise<{ events: ChangeEventDraft[]; redrawn: number }> {
  if (!ctx.priorLoaded) return { events: [], redrawn: 0 };
  const touched = new Map<string, { code: string; effective: string }>();
  for (const r of [...delta.added, ...delta.removed]) {
    const row = (r.current ?? r.previous)!;
    touched.set(row.district_id as string, { code: row.code_raw as string, effective: r.valid_from });
  }
  if (touched.size === 0) return { events: [], redrawn: 0 };
  const ids = [...touched.keys()];
  const { rows } = await ctx.client.query(DISTRICT_DIFF_SQL, [ids, ids.map((id) => touched.get(id)!.effective), ctx.source.id, MAP_CHANGE_MIN_WIDTH_M, ctx.now]);
  const layer = kind === 'base' ? 'district_map' : 'overlay';
  const events: ChangeEventDraft[] = [];
  for (const r of rows.sort((a, b) => a.district_id.localeCompare(b.district_id))) {
    if (!r.changed) continue;
    const t = touched.get(r.district_id)!;
    const code = forms.of(t.code);
    events.push({
      jurisdictionId: ctx.jurisdictionId,
      kind: 'map_change',
      layer,
      subject: { type: 'district', id: r.district_id, code, kind },
      fieldPath: `${layer}.${code}.area`,
      previous: r.before_n ? { area_m2: r.before_m2, polygons: r.before_n } : null,
      current: r.after_n ? { area_m2: r.after_m2, polygons: r.after_n, differs_m2: r.differs_m2 } : { differs_m2: r.differs_m2 },
      effectiveDate: t.effective,
      adoptedOn: ordinanceOf.get(code)?.adopted_on ?? null,
      ordinanceId: ordinanceOf.get(code)?.id ?? null,
      sourceVersionId: ctx.version.id,
    });
  }
  return { events, redrawn: rows.length - events.length };
}

/**
 * Which mapped polygons this version adds and removes, by district, and the date each district's
 * change took effect (from the map amendment that names it; else the version's date).
 */
async function dateMapChanges(ctx: LoadContext, forms: CodeForms, staged: Array<{ id: string; code: string }>) {
  const { rows } = await ctx.client.query(
    `SELECT id, code_raw FROM district_area WHERE jurisdiction_id = $1 AND source_id = $2 AND upper_inf(known) AND upper_inf(valid)`,
    [ctx.jurisdictionId, ctx.source.id],
  );
  const current = new Map(rows.map((r) => [r.id as string, forms.of(r.code_raw)]));
  const stagedIds = new Set(staged.map((s) => s.id));
  const added = staged.filter((s) => !current.has(s.id));
  const removed = [...current].filter(([id]) => !stagedIds.has(id)).map(([id, code]) => ({ id, code }));
  const changedCodes = new Set([...added, ...removed].map((x) => x.code));
  const candidates = changedCodes.size ? await newlyAdopted(ctx, ['map_amendment']) : [];
  const ordinanceOf = new Map<string, OrdinanceRef | null>();
  for (const code of changedCodes) ordinanceOf.set(code, matchOrdinance(candidates, [code]));
  const dateOf = (code: string) => effectiveOf(ctx, ordinanceOf.get(code) ?? null);
  const addedOn = new Map(added.filter(() => ctx.priorLoaded).map((a) => [a.id, dateOf(a.code)]));
  const removedOn = new Map(removed.map((r) => [r.id, dateOf(r.code)]));
  const dates = [...changedCodes].map(dateOf).sort();
  return { addedOn, removedOn, ordinanceOf, versionEffective: ctx.priorLoaded && dates.length ? dates[0] : ctx.effectiveFrom };
}
