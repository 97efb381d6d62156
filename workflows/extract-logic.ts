// The extract workflow as a plain function over an activities interface: mark it running, write
// its file, and on a final failure mark it failed (credits refunded). Temporal binds it with
// proxyActivities (workflows/extract.ts), the in-process runner with the real activities
// (workflows/extract-inprocess.ts). No Node built-ins here: this code is bundled.
import type { ExtractFile, ExtractStart, ExtractWritten } from '../activities/extract.ts';
import { reason } from './logic.ts';
import type { RetryPolicy } from './policies.ts';

export interface ExtractActs {
  startExtract(id: string): Promise<ExtractStart>;
  writeExtract(id: string): Promise<ExtractWritten>;
  failExtract(id: string, reason: string): Promise<void>;
}

export interface ExtractOutcome {
  extract: string;
  state: 'succeeded' | 'failed';
  rows: number;
  files: ExtractFile[];
  error: string | null;
}

/** Writing is retried (an interrupted attempt starts over from a clean work directory). */
export const EXTRACT_RETRY: RetryPolicy = { initialIntervalMs: 2000, backoffCoefficient: 2, maximumIntervalMs: 60_000, maximumAttempts: 3 };
export const EXTRACT_TIMEOUT = '2 hours';
export const EXTRACT_HEARTBEAT = '2 minutes';

export async function runExtract(acts: ExtractActs, id: string): Promise<ExtractOutcome> {
  await acts.startExtract(id);
  try {
    const w = await acts.writeExtract(id);
    return { extract: id, state: 'succeeded', rows: w.rows, files: w.files, error: null };
  } catch (err) {
    const why = reason(err);
    await acts.failExtract(id, why);
    return { extract: id, state: 'failed', rows: 0, files: [], error: why };
  }
}
