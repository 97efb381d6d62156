// The embedded runner (TEMPORAL_ADDRESS unset): the same workflow logic bound to the real
// activities, with the same retry policies. Not part of the workflow bundle.
import { ApplicationFailure } from '@temporalio/common';
import type { IngestActivities, SourceRef } from '../activities/ingest.ts';
import { type IngestActs, ingestJurisdiction, ingestSource, type JurisdictionOutcome, type SourceOutcome } from './logic.ts';
import { FETCH_RETRY, LOAD_RETRY, QUICK_RETRY, type RetryPolicy } from './policies.ts';

export interface RunnerHooks {
  /** called before and after each activity, for progress bars */
  onActivity?: (name: string, phase: 'start' | 'end' | 'retry', detail: unknown) => void;
  sleep?: (ms: number) => Promise<void>;
}

export function retrying<A extends unknown[], R>(name: string, fn: (...a: A) => Promise<R>, policy: RetryPolicy, hooks: RunnerHooks) {
  const sleep = hooks.sleep ?? ((ms: number) => new Promise((r) => setTimeout(r, ms)));
  return async (...args: A): Promise<R> => {
    for (let attempt = 1; ; attempt++) {
      hooks.onActivity?.(name, 'start', args[0]);
      try {
        const result = await fn(...args);
        hooks.onActivity?.(name, 'end', result);
        return result;
      } catch (err) {
        const final = err instanceof ApplicationFailure && err.nonRetryable;
        if (final || attempt >= policy.maximumAttempts) {
          hooks.onActivity?.(name, 'end', err);
          throw err;
        }
        hooks.onActivity?.(name, 'retry', err);
        await sleep(Math.min(policy.maximumIntervalMs, policy.initialIntervalMs * policy.backoffCoefficient ** (attempt - 1)));
      }
    }
  };
}

export function bindInProcess(a: IngestActivities, hooks: RunnerHooks = {}): IngestActs {
  return {
    listJurisdictions: retrying('listJurisdictions', a.listJurisdictions, QUICK_RETRY, hooks),
    syncJurisdiction: retrying('syncJurisdiction', a.syncJurisdiction, QUICK_RETRY, hooks),
    derivedSources: retrying('derivedSources', a.derivedSources, QUICK_RETRY, hooks),
    fetchSource: retrying('fetchSource', a.fetchSource, FETCH_RETRY, hooks),
    recordVersion: retrying('recordVersion', a.recordVersion, QUICK_RETRY, hooks),
    loadVersion: retrying('loadVersion', a.loadVersion, LOAD_RETRY, hooks),
  };
}

export async function runIngestInProcess(a: IngestActivities, slugs: string[] | 'all', hooks: RunnerHooks = {}): Promise<JurisdictionOutcome[]> {
  const acts = bindInProcess(a, hooks);
  const list = slugs === 'all' ? await acts.listJurisdictions() : slugs;
  const out: JurisdictionOutcome[] = [];
  for (const slug of list) out.push(await ingestJurisdiction(acts, slug, (src: SourceRef): Promise<SourceOutcome> => ingestSource(acts, src)));
  return out;
}
