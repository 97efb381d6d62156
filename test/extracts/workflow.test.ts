// The extract workflow on the Temporal side, without a server: the bundle still builds with it,
// its activities heartbeat in MockActivityEnvironment, and the bundled workflow replays the
// histories of in-process runs (one that succeeds, one whose writing fails for good).
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MockActivityEnvironment } from '@temporalio/testing';
import { DefaultLogger, Runtime, Worker, bundleWorkflowCode } from '@temporalio/worker';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { createExtractActivities, type ExtractActivities } from '../../activities/extract.ts';
import { type ExtractRequest, planExtract } from '../../activities/extract/plan.ts';
import { WORKFLOWS_PATH } from '../../bin/temporal.ts';
import { createLogger } from '../../core/log.ts';
import { newId } from '../../core/ids.ts';
import { createPool, type Pool } from '../../store/db.ts';
import { insertExtract } from '../../store/extracts.ts';
import { type ExtractActs, runExtract } from '../../workflows/extract-logic.ts';
import { buildHistory, type Step } from '../helpers/history.ts';
import { ingestedDatabase } from '../helpers/pipeline.ts';

let db: { url: string; drop: () => Promise<void> };
let pool: Pool;
let dir: string;

beforeAll(async () => {
  Runtime.install({ logger: new DefaultLogger('ERROR') });
  db = await ingestedDatabase('cambridge', ['cambridge-ma']);
  pool = createPool(db.url, { max: 4 });
  dir = await mkdtemp(join(tmpdir(), 'landlex-extracts-'));
}, 600_000);
afterAll(async () => {
  await pool.end();
  await db.drop();
  await rm(dir, { recursive: true, force: true });
});

async function create(body: Partial<ExtractRequest> = {}) {
  const req = { resource: 'district_area', format: 'parquet', scope: { jurisdiction: ['cambridge-ma'] }, ...body } as ExtractRequest;
  const p = await planExtract(pool, req);
  const id = newId('extract');
  await insertExtract(pool, { id, organizationId: null, resource: p.plan.resource, format: p.plan.format, request: req, plan: p.plan, rowEstimate: p.rowEstimate, creditEstimate: p.creditEstimate, creditsCharged: 0 });
  return id;
}

test('the workflow bundle builds with the extract workflow in it', async () => {
  const { code } = await bundleWorkflowCode({ workflowsPath: WORKFLOWS_PATH, logger: new DefaultLogger('ERROR') });
  for (const name of ['extractWorkflow', 'ingestJurisdictionWorkflow']) expect(code).toContain(name);
});

test('writeExtract heartbeats with its progress in MockActivityEnvironment', async () => {
  const activities = createExtractActivities({ pool, dir, log: createLogger('silent'), batchRows: 50 });
  const env = new MockActivityEnvironment();
  const beats: unknown[] = [];
  env.on('heartbeat', (d: unknown) => beats.push(d));
  const id = await create();
  await env.run(activities.startExtract, id);
  const written = (await env.run(activities.writeExtract, id)) as Awaited<ReturnType<ExtractActivities['writeExtract']>>;
  expect(written.rows).toBeGreaterThan(100);
  expect(beats).toContainEqual({ rows: expect.any(Number) });
  await expect(env.run(activities.startExtract, 'ext_00000000000000000000')).rejects.toMatchObject({ nonRetryable: true, type: 'BadInput' });
});

function recording(acts: ExtractActs, steps: Step[]): ExtractActs {
  const wrap =
    <A extends unknown[], R>(name: string, fn: (...a: A) => Promise<R>) =>
    async (...args: A): Promise<R> => {
      try {
        const result = await fn(...args);
        steps.push({ kind: 'activity', name, args, result });
        return result;
      } catch (err) {
        steps.push({ kind: 'activity', name, args, result: null, failure: { message: (err as Error).message, type: 'Error' } });
        throw err;
      }
    };
  return { startExtract: wrap('startExtract', acts.startExtract), writeExtract: wrap('writeExtract', acts.writeExtract), failExtract: wrap('failExtract', acts.failExtract) };
}

test('extractWorkflow replays the histories of in-process runs, and refuses one that skips a step', async () => {
  const activities = createExtractActivities({ pool, dir, log: createLogger('silent') });
  const ok: Step[] = [];
  const id = await create();
  const outcome = await runExtract(recording(activities, ok), id);
  expect(outcome.state).toBe('succeeded');
  expect(ok.map((s) => (s.kind === 'activity' ? s.name : ''))).toEqual(['startExtract', 'writeExtract']);
  await Worker.runReplayHistory({ workflowsPath: WORKFLOWS_PATH }, buildHistory('extractWorkflow', [id], ok, outcome), 'extract-ok');

  const failing: Step[] = [];
  const broken = createExtractActivities({ pool, dir, log: createLogger('silent'), batchRows: 50, afterBatch: () => Promise.reject(new Error('disk gone')) });
  const id2 = await create();
  const failed = await runExtract(recording(broken, failing), id2);
  expect(failed).toMatchObject({ state: 'failed', error: 'disk gone' });
  expect(failing.map((s) => (s.kind === 'activity' ? s.name : ''))).toEqual(['startExtract', 'writeExtract', 'failExtract']);
  await Worker.runReplayHistory({ workflowsPath: WORKFLOWS_PATH }, buildHistory('extractWorkflow', [id2], failing, failed), 'extract-failed');

  const skipped = buildHistory('extractWorkflow', [id], ok.slice(0, 1), outcome);
  await expect(Worker.runReplayHistory({ workflowsPath: WORKFLOWS_PATH }, skipped, 'extract-tampered')).rejects.toThrow(/[Nn]ondetermin/);
});
