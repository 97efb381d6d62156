// The ingestion workflows as plain functions over an activities interface. Temporal binds them
// with proxyActivities (workflows/ingest.ts); the in-process runner binds them to the real
// activities (workflows/inprocess.ts). No Node built-ins here: this code is bundled.
import type { FetchResult } from '../activities/fetch.ts';
import type { LoadSummary, SourceRef, VersionStep } from '../activities/ingest.ts';

export interface IngestActs {
  listJurisdictions(): Promise<string[]>;
  syncJurisdiction(slug: string): Promise<{ jurisdictionId: string; sources: SourceRef[] }>;
  derivedSources(jurisdictionId: string): Promise<SourceRef[]>;
  fetchSource(sourceId: string): Promise<FetchResult>;
  recordVersion(sourceId: string, fetched: FetchResult): Promise<VersionStep>;
  loadVersion(sourceId: string, versionId: string): Promise<LoadSummary>;
}

export interface SourceOutcome {
  source: string;
  kind: string;
  state: 'loaded' | 'unchanged' | 'failed';
  stage?: 'fetch' | 'version' | 'load';
  versionId: string | null;
  newVersion: boolean;
  counts: Record<string, number>;
  newEvents: number;
  issues: Array<{ severity: string; code: string; detail: string }>;
  error: string | null;
}

export interface JurisdictionOutcome {
  jurisdiction: string;
  jurisdictionId: string;
  sources: SourceOutcome[];
}

/** The root cause's message, whether thrown in-process or wrapped by Temporal. */
export function reason(err: unknown): string {
  let e = err as { message?: string; cause?: unknown } | undefined;
  while (e?.cause) e = e.cause as typeof e;
  return e?.message ?? String(err);
}

const KIND_ORDER = ['amendment_list', 'district_list', 'code_text', 'district_map', 'overlay_map', 'parcel_layer', 'assessor_roll', 'recorder_index', 'permit_feed', 'case_feed', 'meeting_feed', 'ordinance_text'];

/** Ordinances first (they date the changes of the code and maps), lists and code before maps (maps link to districts), parcels before rolls (rolls join parcels). */
export function loadOrder(sources: SourceRef[]): SourceRef[] {
  return [...sources].sort((a, b) => KIND_ORDER.indexOf(a.kind) - KIND_ORDER.indexOf(b.kind) || a.key.localeCompare(b.key));
}

export async function ingestSource(acts: IngestActs, src: SourceRef): Promise<SourceOutcome> {
  const out: SourceOutcome = { source: src.key, kind: src.kind, state: 'unchanged', versionId: null, newVersion: false, counts: {}, newEvents: 0, issues: [], error: null };
  let fetched: FetchResult;
  try {
    fetched = await acts.fetchSource(src.id);
  } catch (err) {
    return { ...out, state: 'failed', stage: 'fetch', error: reason(err) };
  }
  const v = await acts.recordVersion(src.id, fetched);
  out.versionId = v.versionId;
  out.newVersion = v.isNew;
  if (!v.needsLoad || !v.versionId) return out;
  try {
    const loaded = await acts.loadVersion(src.id, v.versionId);
    return { ...out, state: 'loaded', counts: loaded.counts, newEvents: loaded.newEvents, issues: loaded.issues };
  } catch (err) {
    return { ...out, state: 'failed', stage: 'load', error: reason(err) };
  }
}

export async function ingestJurisdiction(
  acts: IngestActs,
  slug: string,
  runSource: (src: SourceRef) => Promise<SourceOutcome> = (src) => ingestSource(acts, src),
): Promise<JurisdictionOutcome> {
  const j = await acts.syncJurisdiction(slug);
  const sources: SourceOutcome[] = [];
  for (const src of loadOrder(j.sources)) sources.push(await runSource(src));
  // then what those sources link to (an ordinance list's amendments' own texts), in the same run
  const declared = new Set(j.sources.map((s) => s.id));
  for (const src of await acts.derivedSources(j.jurisdictionId)) if (!declared.has(src.id)) sources.push(await runSource(src));
  return { jurisdiction: slug, jurisdictionId: j.jurisdictionId, sources };
}
