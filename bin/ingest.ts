// `landlex ingest <jurisdiction…>|--all`: runs the ingestion workflows (in-process, or on
// Temporal when TEMPORAL_ADDRESS is set), with progress bars and a summary table.
import cliProgress from 'cli-progress';
import type { Config } from '../core/config.ts';
import type { Logger } from '../core/log.ts';
import { createIngestActivities } from '../activities/ingest.ts';
import { FsBlobStore } from '../store/blobs.ts';
import { settleAbandonedAtStart } from '../store/changes.ts';
import type { Pool } from '../store/db.ts';
import type { JurisdictionOutcome } from '../workflows/logic.ts';
import { runIngestInProcess } from '../workflows/inprocess.ts';

export interface IngestSummary {
  jurisdictions: JurisdictionOutcome[];
  totals: {
    sources: number;
    loaded: number;
    unchanged: number;
    failed: number;
    new_versions: number;
    new_events: number;
    counts: Record<string, number>;
    errors: Array<{ jurisdiction: string; source: string; stage: string; reason: string }>;
  };
}

export function summarize(jurisdictions: JurisdictionOutcome[]): IngestSummary {
  const totals: IngestSummary['totals'] = { sources: 0, loaded: 0, unchanged: 0, failed: 0, new_versions: 0, new_events: 0, counts: {}, errors: [] };
  for (const j of jurisdictions) {
    for (const s of j.sources) {
      totals.sources++;
      totals[s.state]++;
      if (s.newVersion) totals.new_versions++;
      totals.new_events += s.newEvents;
      for (const [k, v] of Object.entries(s.counts)) totals.counts[k] = (totals.counts[k] ?? 0) + v;
      if (s.error) totals.errors.push({ jurisdiction: j.jurisdiction, source: s.source, stage: s.stage ?? '', reason: s.error });
    }
  }
  return { jurisdictions, totals };
}

export function table(summary: IngestSummary): string {
  const rows = [['jurisdiction', 'source', 'kind', 'state', 'new version', 'events', 'counts / reason']];
  for (const j of summary.jurisdictions) {
    for (const s of j.sources) {
      const detail = s.error ?? Object.entries(s.counts).map(([k, v]) => `${k}=${v}`).join(' ');
      rows.push([j.jurisdiction, s.source, s.kind, s.state, s.newVersion ? 'yes' : 'no', String(s.newEvents), detail]);
    }
  }
  const widths = rows[0].map((_, i) => Math.min(40, Math.max(...rows.map((r) => r[i].length))));
  const line = (r: string[]) => r.map((c, i) => (i === r.length - 1 ? c : c.slice(0, widths[i]).padEnd(widths[i]))).join('  ');
  const t = summary.totals;
  return [
    ...rows.map(line),
    '',
    `sources ${t.sources}: loaded ${t.loaded}, unchanged ${t.unchanged}, failed ${t.failed}; new versions ${t.new_versions}; new events ${t.new_events}`,
    `facts and rows: ${Object.entries(t.counts).map(([k, v]) => `${k}=${v}`).join(' ') || 'none'}`,
  ].join('\n');
}

export async function runIngest(config: Config, pool: Pool, log: Logger, targets: string[] | 'all', opts: { progress: boolean; manifestDir?: string }): Promise<IngestSummary> {
  await settleAbandonedAtStart(pool, log);
  const activities = createIngestActivities({ pool, blobs: new FsBlobStore(config.blobDir), log, manifestDir: opts.manifestDir });
  if (config.temporalAddress) {
    const { startOnTemporal } = await import('./temporal.ts');
    return summarize(await startOnTemporal(config, targets));
  }
  const bars = opts.progress ? new cliProgress.MultiBar({ clearOnComplete: false, hideCursor: true, format: '{phase} |{bar}| {value}/{total} {source}' }, cliProgress.Presets.shades_classic) : null;
  const phases = new Map<string, cliProgress.SingleBar>();
  const bar = (phase: string) => {
    let b = phases.get(phase);
    if (!b && bars) {
      b = bars.create(0, 0, { phase: phase.padEnd(8), source: '' });
      phases.set(phase, b);
    }
    return b;
  };
  const names: Record<string, string> = { fetchSource: 'fetching', loadVersion: 'parsing and loading' };
  const outcomes = await runIngestInProcess(activities, targets, {
    onActivity: (name, phase, detail) => {
      const label = names[name];
      if (!label) return;
      const b = bar(label);
      if (!b) return;
      if (phase === 'start') {
        b.setTotal(b.getTotal() + 1);
        b.update({ source: String(detail) });
      } else if (phase === 'end') b.increment();
    },
  });
  bars?.stop();
  return summarize(outcomes);
}
