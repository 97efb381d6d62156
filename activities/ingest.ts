// The ingestion activities, built by a factory from their dependencies. These are the only
// pipeline code that does I/O: reading manifests, fetching, writing blobs and the store.
import { readdir, readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import type { Logger } from '../core/log.ts';
import { localDate } from '../core/time.ts';
import { fipsKey, type JurisdictionManifest, ManifestError, parseManifestText, type SourceManifest } from '../ingest/manifest.ts';
import type { BlobStore } from '../store/blobs.ts';
import { FsBlobStore } from '../store/blobs.ts';
import { withKnowledgeLoad, writeChangeEvents } from '../store/changes.ts';
import { noteCoverageProblem, upsertCoverage } from '../store/coverage.ts';
import type { Pool } from '../store/db.ts';
import { documentIdFor, markLoaded, recordVersion } from '../store/documents.ts';
import { docTypeOf, layerOf, loaderFor, mediaTypeOf } from '../store/load/index.ts';
import { refreshZoningTextCoverage } from '../store/load/zoning-coverage.ts';
import { jurisdictionIdFor, ordinanceTextSources, syncManifest } from '../store/sources.ts';
import { syncVocabulary } from '../store/vocabulary.ts';
import { type FetchResult, fetchSource } from './fetch.ts';

export const MANIFEST_DIR = resolve(import.meta.dirname, '..', 'ingest', 'manifests');

export interface IngestDeps {
  pool: Pool;
  blobs: BlobStore;
  log: Logger;
  manifestDir?: string;
  fetchTimeoutMs?: number;
  now?: () => Date;
}

export interface SourceRef {
  id: string;
  key: string;
  kind: string;
}

export interface VersionStep {
  versionId: string | null;
  number: number | null;
  isNew: boolean;
  needsLoad: boolean;
}

export interface LoadSummary {
  sourceKey: string;
  versionId: string;
  counts: Record<string, number>;
  newEvents: number;
  issues: Array<{ severity: string; code: string; detail: string }>;
}

/** Heartbeat when running as a Temporal activity; nothing in-process. */
function beat(detail?: unknown) {
  try {
    Context.current().heartbeat(detail);
  } catch {
    /* not in an activity context */
  }
}

/** The address answers cite: the publisher's page the manifest names, else the fetched url when it is public (http or https). */
export function publicUrlOf(m: SourceManifest): string | null {
  return m.public_url ?? (/^https?:\/\//i.test(m.url) ? m.url : null);
}

/** A bad manifest is bad input for good: one line naming its file and field, never retried. */
async function manifestOrFailure<T>(read: () => T | Promise<T>): Promise<T> {
  try {
    return await read();
  } catch (err) {
    if (err instanceof ManifestError) throw ApplicationFailure.nonRetryable(err.message, 'ManifestInvalid');
    throw err;
  }
}

export async function manifestSlugs(dir = MANIFEST_DIR): Promise<string[]> {
  const order = { state: 0, county: 1, cousub: 2, place: 3 } as const;
  const all = [];
  for (const f of (await readdir(dir)).filter((f) => f.endsWith('.json')).sort()) {
    const m = parseManifestText(await readFile(resolve(dir, f), 'utf8'), f);
    all.push({ slug: m.jurisdiction.slug, rank: order[m.jurisdiction.level] });
  }
  return all.sort((a, b) => a.rank - b.rank || a.slug.localeCompare(b.slug)).map((x) => x.slug);
}

/** Tables whose statistics a load of this kind changes enough to matter. */
function analyzedAfter(kind: string): string[] {
  if (kind === 'parcel_layer') return ['parcel', 'jurisdiction_piece'];
  if (kind === 'district_map' || kind === 'overlay_map') return ['district_area', 'district', 'jurisdiction_piece'];
  if (kind === 'assessor_roll') return ['property', 'address_point'];
  if (kind === 'code_text') return ['permission', 'control', 'district', 'section', 'citation'];
  return [];
}

export function createIngestActivities(deps: IngestDeps) {
  const now = deps.now ?? (() => new Date());
  const dir = deps.manifestDir ?? MANIFEST_DIR;

  async function readManifest(slug: string): Promise<{ manifest: JurisdictionManifest; text: string }> {
    if (!/^[a-z0-9-]+$/.test(slug)) throw ApplicationFailure.nonRetryable(`not a jurisdiction slug: ${slug}`, 'BadInput');
    let text: string;
    try {
      text = await readFile(resolve(dir, `${slug}.json`), 'utf8');
    } catch {
      const known = (await readdir(dir).catch(() => [] as string[])).filter((f) => f.endsWith('.json')).map((f) => f.slice(0, -5)).sort();
      throw ApplicationFailure.nonRetryable(`no manifest for ${slug} in ${dir}; the known jurisdictions are ${known.join(', ') || 'none'}`, 'BadInput');
    }
    return { manifest: await manifestOrFailure(() => parseManifestText(text, `${slug}.json`)), text };
  }

  async function manifestsByFipsKey(): Promise<Map<string, string>> {
    const out = new Map<string, string>();
    for (const f of (await readdir(dir)).filter((f) => f.endsWith('.json'))) {
      const text = await readFile(resolve(dir, f), 'utf8');
      const m = await manifestOrFailure(() => parseManifestText(text, f));
      out.set(fipsKey(m.jurisdiction).key, m.jurisdiction.slug);
    }
    return out;
  }

  async function sourceRow(sourceId: string) {
    const { rows } = await deps.pool.query(
      `SELECT s.*, j.slug, j.timezone FROM source s JOIN jurisdiction j ON j.id = s.jurisdiction_id WHERE s.id = $1`,
      [sourceId],
    );
    if (!rows[0]) throw ApplicationFailure.nonRetryable(`no source ${sourceId}`, 'BadInput');
    return rows[0] as { id: string; jurisdiction_id: string; key: string; kind: string; url: string; manifest: SourceManifest; etag: string | null; last_modified: string | null; last_sha256: string | null; timezone: string };
  }

  return {
    async listJurisdictions(): Promise<string[]> {
      return manifestOrFailure(() => manifestSlugs(dir));
    },

    async syncJurisdiction(slug: string): Promise<{ jurisdictionId: string; sources: SourceRef[] }> {
      const { manifest, text } = await readManifest(slug);
      // the jurisdictions this one names (its parent, who governs it) are synced first
      const byKey = await manifestsByFipsKey();
      const needed = [manifest.jurisdiction.parent, ...(manifest.authorities ?? []).map((a) => a.governing)].filter((k): k is string => Boolean(k));
      const chain: Array<{ manifest: JurisdictionManifest; text: string }> = [];
      const seen = new Set<string>([slug]);
      while (needed.length > 0) {
        const key = needed.shift()!;
        const other = byKey.get(key);
        if (!other || seen.has(other)) continue;
        seen.add(other);
        const m = await readManifest(other);
        chain.unshift(m);
        needed.push(...[m.manifest.jurisdiction.parent].filter((k): k is string => Boolean(k)));
      }
      // authorities are knowledge-time facts: the sync is a knowledge load like any other
      const at = now();
      const ids = [...chain.map((m) => m.manifest), manifest].map((m) => jurisdictionIdFor(fipsKey(m.jurisdiction).key));
      return withKnowledgeLoad(deps.pool, { label: `manifest ${slug}`, jurisdictionIds: ids, detectedAt: at, clock: now }, async (c) => {
        for (const m of chain) await syncManifest(c, { ...m.manifest, sources: [], authorities: [] }, m.text, at);
        const synced = await syncManifest(c, manifest, text, at);
        await syncVocabulary(c, manifest, manifest.jurisdiction.slug);
        return { jurisdictionId: synced.jurisdictionId, sources: synced.sources };
      });
    },

    /** Sources found in what was loaded: the own texts of the amendments an ordinance list links to. */
    async derivedSources(jurisdictionId: string): Promise<SourceRef[]> {
      const client = await deps.pool.connect();
      try {
        return await ordinanceTextSources(client, jurisdictionId);
      } finally {
        client.release();
      }
    },

    async fetchSource(sourceId: string): Promise<FetchResult> {
      const s = await sourceRow(sourceId);
      try {
        const r = await fetchSource(deps.blobs, s.url, { etag: s.etag, lastModified: s.last_modified, sha256: s.last_sha256 }, { timeoutMs: deps.fetchTimeoutMs, now });
        await deps.pool.query(
          `UPDATE source SET etag = $2, last_modified = $3, last_sha256 = COALESCE($4, last_sha256), last_fetched_at = $5, last_error = NULL,
             last_changed_at = CASE WHEN $6 THEN $5::timestamptz ELSE last_changed_at END WHERE id = $1`,
          [s.id, r.etag, r.lastModified, r.sha256, r.retrievedAt, r.state === 'fetched'],
        );
        return r;
      } catch (err) {
        const message = (err as Error).message;
        await deps.pool.query('UPDATE source SET last_error = $2, last_fetched_at = $3 WHERE id = $1', [s.id, message, now()]);
        await noteCoverageProblem(deps.pool, s.jurisdiction_id, layerOf(s.kind), s.key, { at: now().toISOString(), stage: 'fetch', reason: message });
        throw err;
      }
    },

    async recordVersion(sourceId: string, fetched: FetchResult): Promise<VersionStep> {
      const s = await sourceRow(sourceId);
      if (!fetched.sha256) return { versionId: null, number: null, isNew: false, needsLoad: false };
      const v = await recordVersion(
        deps.pool,
        { documentId: documentIdFor(s.id), jurisdictionId: s.jurisdiction_id, sourceId: s.id, title: s.manifest.title, docType: docTypeOf(s.kind), mediaType: mediaTypeOf(s.manifest.format), url: s.url, publicUrl: publicUrlOf(s.manifest) },
        { sha256: fetched.sha256, size: fetched.size, retrievedAt: new Date(fetched.retrievedAt), etag: fetched.etag, lastModified: fetched.lastModified },
      );
      return { versionId: v.versionId, number: v.number, isNew: v.isNew, needsLoad: !v.loaded };
    },

    async loadVersion(sourceId: string, versionId: string): Promise<LoadSummary> {
      const s = await sourceRow(sourceId);
      const { rows } = await deps.pool.query(
        `SELECT v.*, (SELECT min(retrieved_at) FROM document_version WHERE document_id = v.document_id) AS first_retrieved,
                EXISTS (SELECT 1 FROM document_version p WHERE p.document_id = v.document_id AND p.id <> v.id AND p.loaded_at IS NOT NULL) AS prior_loaded
           FROM document_version v WHERE v.id = $1`,
        [versionId],
      );
      const v = rows[0];
      if (!v) throw ApplicationFailure.nonRetryable(`no version ${versionId}`, 'BadInput');
      if (v.loaded_at) return { sourceKey: s.key, versionId, counts: v.load_summary?.counts ?? {}, newEvents: 0, issues: [] };
      // Everything the load writes is stamped detectedAt but visible only from its commit: the
      // load is announced (and committed) first, so readers answer this jurisdiction as known
      // just before detectedAt until it settles, and ever after for instants inside its window.
      const detectedAt = now();
      const stated = s.manifest.effective_from ?? null;
      // dates are the jurisdiction's: a version first seen at 01:00 UTC was seen the evening before in Boston
      const retrievedDate = localDate(new Date(v.retrieved_at), s.timezone);
      try {
        const loader = loaderFor(s.kind);
        const announced = { label: `${s.key} ${versionId}`, jurisdictionIds: [s.jurisdiction_id], detectedAt, clock: now };
        const summary = await withKnowledgeLoad(deps.pool, announced, async (client) => {
          const result = await loader({
            client,
            jurisdictionId: s.jurisdiction_id,
            source: { id: s.id, key: s.key, manifest: s.manifest },
            version: { id: v.id, documentId: v.document_id, number: v.number, retrievedAt: new Date(v.retrieved_at), sha256: v.sha256 },
            now: detectedAt,
            effectiveFrom: stated ?? retrievedDate,
            effectiveBasis: stated ? 'stated' : 'first_observed',
            firstHeld: localDate(new Date(v.first_retrieved), s.timezone),
            timezone: s.timezone,
            priorLoaded: v.prior_loaded,
            bytes: () => deps.blobs.get(v.sha256),
            blobPath: deps.blobs instanceof FsBlobStore ? deps.blobs.path(v.sha256) : null,
            beat,
          });
          for (const c of result.coverage) await upsertCoverage(client, { sourceKey: s.key, ...c });
          // the zoning text's gaps depend on the map too: worked out again after either loads
          if (s.kind === 'code_text' || s.kind === 'district_map') await refreshZoningTextCoverage(client, s.jurisdiction_id);
          const newEvents = await writeChangeEvents(client, result.events, detectedAt);
          const out = { sourceKey: s.key, versionId, counts: result.counts, newEvents, issues: result.issues.map(({ severity, code, detail }) => ({ severity, code, detail })) };
          await markLoaded(client, versionId, { counts: result.counts, new_events: newEvents, issues: out.issues.length });
          return out;
        });
        // fresh statistics after a load, so the planner knows what it now holds
        for (const table of analyzedAfter(s.kind)) await deps.pool.query(`ANALYZE ${table}`);
        return summary;
      } catch (err) {
        const message = (err as Error).message;
        await noteCoverageProblem(deps.pool, s.jurisdiction_id, layerOf(s.kind), s.key, { at: detectedAt.toISOString(), stage: 'load', version: versionId, reason: message });
        if (err instanceof ApplicationFailure) throw err;
        const code = (err as { code?: string }).code;
        // Database trouble may pass; anything else in a load is bad input and will not.
        if (code && /^(08|40|53|57)/.test(code)) throw ApplicationFailure.retryable(message, 'StoreUnavailable');
        throw ApplicationFailure.nonRetryable(message, 'LoadFailed');
      }
    },
  };
}

export type IngestActivities = ReturnType<typeof createIngestActivities>;
