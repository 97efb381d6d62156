// `landlex extract <resource> --jurisdiction <slug> --format <format>`: the same extract as
// POST /extract, as the operator (nothing charged), run in-process with a progress bar, or on
// Temporal when TEMPORAL_ADDRESS is set.
import { resolve } from 'node:path';
import cliProgress from 'cli-progress';
import { createExtractActivities, type ExtractProgress } from '../activities/extract.ts';
import { type ExtractFormat, type ExtractRequest, planExtract } from '../activities/extract/plan.ts';
import type { Config } from '../core/config.ts';
import { newId } from '../core/ids.ts';
import type { Logger } from '../core/log.ts';
import type { Pool } from '../store/db.ts';
import { insertExtract } from '../store/extracts.ts';
import type { ExtractOutcome } from '../workflows/extract-logic.ts';
import { executeOnTemporal, runExtractInProcess } from '../workflows/extract-inprocess.ts';

export interface ExtractCliOptions {
  jurisdiction: string[];
  format: string;
  asOf?: string;
  knownAsOf?: string;
  field?: string;
  filter?: string;
  out?: string;
  progress: boolean;
}

export interface ExtractCliResult extends ExtractOutcome {
  dir: string;
  rowEstimate: number;
  /** rows in scope the format cannot hold (FlatGeobuf: those without a geometry) */
  leftOut: number;
}

function progressBar(enabled: boolean) {
  if (!enabled) return { update: (_p: ExtractProgress) => {}, stop: () => {} };
  const bar = new cliProgress.SingleBar({ format: '{phase} |{bar}| {value}/{total} rows {percentage}% {duration_formatted}', hideCursor: true }, cliProgress.Presets.shades_classic);
  let started = false;
  return {
    update(p: ExtractProgress) {
      if (!started) bar.start(Math.max(p.estimate, 1), 0, { phase: 'reading' });
      started = true;
      if (p.rows > bar.getTotal()) bar.setTotal(p.rows);
      bar.update(p.rows, { phase: p.phase === 'rows' ? 'reading' : p.phase === 'writing' ? 'writing' : 'done   ' });
    },
    stop: () => started && bar.stop(),
  };
}

export async function runExtractCli(config: Config, pool: Pool, log: Logger, resource: string, o: ExtractCliOptions): Promise<ExtractCliResult> {
  let filter: Record<string, unknown> | undefined;
  if (o.filter) {
    try {
      filter = JSON.parse(o.filter);
    } catch {
      throw new Error(`--filter: not JSON; write e.g. '{"area_sq_ft": {"gte": 10000}}'`);
    }
  }
  const req: ExtractRequest = {
    resource,
    format: o.format as ExtractFormat,
    scope: { jurisdiction: o.jurisdiction },
    filter,
    as_of: o.asOf,
    known_as_of: o.knownAsOf,
    field: o.field ? o.field.split(',').map((f) => f.trim()).filter(Boolean) : undefined,
  };
  const planned = await planExtract(pool, req);
  const id = newId('extract');
  const dir = o.out ? resolve(o.out) : resolve(config.extractDir, id);
  await insertExtract(pool, { id, organizationId: null, resource, format: planned.plan.format, request: req, plan: planned.plan, dir: o.out ? dir : null, rowEstimate: planned.rowEstimate, creditEstimate: planned.creditEstimate, creditsCharged: 0 });
  const leftOut = planned.plan.leftOut ?? 0;
  if (config.temporalAddress) return { ...(await executeOnTemporal(config, id)), dir, rowEstimate: planned.rowEstimate, leftOut };
  const bar = progressBar(o.progress);
  try {
    const activities = createExtractActivities({ pool, dir: config.extractDir, log, onProgress: (p) => bar.update(p) });
    return { ...(await runExtractInProcess(activities, id)), dir, rowEstimate: planned.rowEstimate, leftOut };
  } finally {
    bar.stop();
  }
}

export function describeOutcome(r: ExtractCliResult): string {
  if (r.state === 'failed') return `extract ${r.extract} failed: ${r.error}`;
  const lines = [`extract ${r.extract} succeeded: ${r.rows} rows (estimated ${r.rowEstimate})${r.leftOut ? `; ${r.leftOut} rows without a geometry left out` : ''}`];
  for (const f of r.files) lines.push(`  ${resolve(r.dir, f.name)}  ${f.size} bytes  ${f.rows} rows  sha256 ${f.sha256}`);
  return lines.join('\n');
}
