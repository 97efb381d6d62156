// The Temporal side without a server: the workflow bundle builds, activities run in
// MockActivityEnvironment against real PostGIS, and the bundled workflows replay a history
// recorded from an in-process run (and refuse one that does not match their commands).
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MockActivityEnvironment } from '@temporalio/testing';
import { bundleWorkflowCode, DefaultLogger, Runtime, Worker } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createIngestActivities, type IngestActivities } from '../../activities/ingest.ts';
import { WORKFLOWS_PATH } from '../../bin/temporal.ts';
import { createLogger } from '../../core/log.ts';
import { FsBlobStore } from '../../store/blobs.ts';
import { createPool, type Pool } from '../../store/db.ts';
import { bindInProcess } from '../../workflows/inprocess.ts';
import { ingestJurisdiction, ingestSource } from '../../workflows/logic.ts';
import { freshDatabase } from '../helpers/databases.ts';
import { buildHistory, type Step } from '../helpers/history.ts';

let db: { url: string; drop: () => Promise<void> };
let pool: Pool;
let blobDir: string;
let activities: IngestActivities;

beforeAll(async () => {
  Runtime.install({ logger: new DefaultLogger('ERROR') });
  db = await freshDatabase('temporal');
  pool = createPool(db.url);
  blobDir = await mkdtemp(join(tmpdir(), 'landlex-blobs-'));
  activities = createIngestActivities({ pool, blobs: new FsBlobStore(blobDir), log: createLogger('silent') });
});
afterAll(async () => {
  await pool.end();
  await db.drop();
  await rm(blobDir, { recursive: true, force: true });
});

test('the workflows bundle (no Node built-ins reach workflow code)', async () => {
  const { code } = await bundleWorkflowCode({ workflowsPath: WORKFLOWS_PATH, logger: new DefaultLogger('ERROR') });
  for (const name of ['ingestJurisdictionWorkflow', 'ingestSourceWorkflow', 'ingestAllWorkflow']) expect(code).toContain(name);
});

/** MockActivityEnvironment.run, keeping the activity's own types. */
function inMock(env: MockActivityEnvironment) {
  return <A extends unknown[], R>(fn: (...a: A) => Promise<R>, ...args: A): Promise<R> => env.run(fn as never, ...(args as unknown as never[])) as Promise<R>;
}

describe('activities in MockActivityEnvironment', () => {
  test('fetch, version and load a real source; a second run finds nothing new', async () => {
    const run = inMock(new MockActivityEnvironment());
    const { sources } = await run(activities.syncJurisdiction, 'cambridge-ma');
    const list = sources.find((s) => s.key === 'district-list')!;
    const fetched = await run(activities.fetchSource, list.id);
    expect(fetched.state).toBe('fetched');
    const v = await run(activities.recordVersion, list.id, fetched);
    expect(v).toMatchObject({ isNew: true, needsLoad: true, number: 1 });
    const loaded = await run(activities.loadVersion, list.id, v.versionId!);
    expect(loaded.counts.districts).toBe(55);

    const again = await run(activities.fetchSource, list.id);
    expect(again.state).toBe('not_modified');
    const v2 = await run(activities.recordVersion, list.id, again);
    expect(v2).toMatchObject({ versionId: v.versionId, isNew: false, needsLoad: false });
  });

  test('an unknown jurisdiction is bad input, not retried', async () => {
    const run = inMock(new MockActivityEnvironment());
    await expect(run(activities.syncJurisdiction, 'nowhere-xx')).rejects.toMatchObject({ nonRetryable: true, type: 'BadInput' });
  });
});

describe('replay', () => {
  async function recorded(run: (acts: ReturnType<typeof bindInProcess>) => Promise<unknown>) {
    const steps: Step[] = [];
    const acts = bindInProcess(activities);
    const traced = Object.fromEntries(
      Object.entries(acts).map(([name, fn]) => [
        name,
        async (...args: unknown[]) => {
          try {
            const result = await (fn as (...a: unknown[]) => Promise<unknown>)(...args);
            steps.push({ kind: 'activity', name, args, result });
            return result;
          } catch (err) {
            const e = err as { message: string; type?: string };
            steps.push({ kind: 'activity', name, args, result: null, failure: { message: e.message, type: e.type ?? 'Error' } });
            throw err;
          }
        },
      ]),
    ) as unknown as typeof acts;
    const result = await run(traced);
    return { steps, result };
  }

  test('ingestSourceWorkflow replays the history of an in-process run, and refuses a different one', async () => {
    const { sources } = await activities.syncJurisdiction('cambridge-ma');
    const src = sources.find((s) => s.key === 'zoning-districts')!;
    const { steps, result } = await recorded((acts) => ingestSource(acts, src));
    expect(steps.map((s) => (s.kind === 'activity' ? s.name : s.kind === 'child' ? s.workflowType : 'timer'))).toEqual(['fetchSource', 'recordVersion', 'loadVersion']);
    const history = buildHistory('ingestSourceWorkflow', [src], steps, result);
    await Worker.runReplayHistory({ workflowsPath: WORKFLOWS_PATH }, history, 'source-run');

    const skipped = buildHistory('ingestSourceWorkflow', [src], steps.slice(0, 2), result);
    await expect(Worker.runReplayHistory({ workflowsPath: WORKFLOWS_PATH }, skipped, 'tampered')).rejects.toThrow(/[Nn]ondetermin/);
  });

  test('ingestJurisdictionWorkflow replays with one child workflow per source in load order', async () => {
    const steps: Step[] = [];
    const acts = bindInProcess(activities);
    const sync = await acts.syncJurisdiction('somerville-ma');
    steps.push({ kind: 'activity', name: 'syncJurisdiction', args: ['somerville-ma'], result: sync });
    const derivedSources = async (id: string) => {
      const r = await acts.derivedSources(id);
      steps.push({ kind: 'activity', name: 'derivedSources', args: [id], result: r });
      return r;
    };
    const outcome = await ingestJurisdiction({ ...acts, syncJurisdiction: async () => sync, derivedSources }, 'somerville-ma', async (src) => {
      const r = await ingestSource(acts, src);
      steps.push({ kind: 'child', workflowType: 'ingestSourceWorkflow', workflowId: `ingest-source:${src.id}`, args: [src], result: r });
      return r;
    });
    const history = buildHistory('ingestJurisdictionWorkflow', ['somerville-ma'], steps, outcome);
    await Worker.runReplayHistory({ workflowsPath: WORKFLOWS_PATH }, history, 'jurisdiction-run');
  });
});
