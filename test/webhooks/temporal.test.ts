// The delivery workflow without a Temporal server: it bundles, its activity runs in
// MockActivityEnvironment against real PostgreSQL and a real receiver, and the bundled workflow
// replays the history of that run (attempt, timer, attempt) and refuses one that skips the wait.
import { MockActivityEnvironment } from '@temporalio/testing';
import { bundleWorkflowCode, DefaultLogger, Runtime, Worker } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { AttemptOutcome } from '../../activities/webhooks/attempt.ts';
import { createWebhookActivities } from '../../activities/webhooks/index.ts';
import { orgCreate } from '../../bin/org.ts';
import { WORKFLOWS_PATH } from '../../bin/temporal.ts';
import { newId } from '../../core/ids.ts';
import { createLogger } from '../../core/log.ts';
import { readPolicy } from '../../core/webhooks/retry-policy.ts';
import { newSecret } from '../../core/webhooks/signature.ts';
import { createPool, type Pool } from '../../store/db.ts';
import { insertWebhook } from '../../store/webhooks/endpoints.ts';
import { enqueueEvent } from '../../store/webhooks/outbox.ts';
import { runDelivery } from '../../workflows/delivery-logic.ts';
import { freshDatabase } from '../helpers/databases.ts';
import { buildHistory, type Step } from '../helpers/history.ts';
import { type Receiver, startReceiver } from '../helpers/receiver.ts';

let db: Awaited<ReturnType<typeof freshDatabase>>;
let pool: Pool;
let receiver: Receiver;

beforeAll(async () => {
  Runtime.install({ logger: new DefaultLogger('ERROR') });
  db = await freshDatabase('webhook_temporal');
  pool = createPool(db.url);
  receiver = await startReceiver((n) => (n === 0 ? 502 : 200));
});
afterAll(async () => {
  await receiver?.close();
  await pool?.end();
  await db?.drop();
});

describe('deliveryWorkflow', () => {
  test('bundles; an attempt, a timer, an attempt replays; a history without the wait is refused', async () => {
    const { code } = await bundleWorkflowCode({ workflowsPath: WORKFLOWS_PATH, logger: new DefaultLogger('ERROR') });
    expect(code).toContain('deliveryWorkflow');

    const org = await orgCreate(pool, { name: 'Temporal org', credits: 10 });
    const w = await insertWebhook(pool, { id: newId('webhook'), organizationId: org.organization_id, name: null, url: receiver.url, eventType: ['permit.created'], active: true, secret: newSecret(), policy: readPolicy({ backoff: 'fixed', base_seconds: 1, jitter: false }) });
    const { deliveries } = await enqueueEvent(pool, { organizationId: org.organization_id, type: 'permit.created', data: { n: 1 } });
    const id = deliveries[0];

    const env = new MockActivityEnvironment();
    const activities = createWebhookActivities({ pool, log: createLogger('silent') });
    const steps: Step[] = [];
    const acts = {
      attemptDelivery: async (x: string) => {
        const result = (await env.run(activities.attemptDelivery, x)) as AttemptOutcome;
        steps.push({ kind: 'activity', name: 'attemptDelivery', args: [x], result });
        return result;
      },
    };
    const sleep = async (ms: number) => {
      steps.push({ kind: 'timer', ms });
      await new Promise((r) => setTimeout(r, ms));
    };
    const outcome = await runDelivery(acts, id, sleep, () => Date.now());
    expect(outcome).toEqual({ state: 'succeeded' });
    expect(steps.map((s) => s.kind)).toEqual(['activity', 'timer', 'activity']);
    expect(receiver.calls.map((c) => c.status)).toEqual([502, 200]);
    expect(receiver.calls[1].headers['webhook-id']).toBe(id);
    const { rows } = await pool.query('SELECT state, attempt_count FROM webhook_delivery WHERE id = $1 AND webhook_id = $2', [id, w.id]);
    expect(rows[0]).toEqual({ state: 'succeeded', attempt_count: 2 });

    await Worker.runReplayHistory({ workflowsPath: WORKFLOWS_PATH }, buildHistory('deliveryWorkflow', [id], steps, outcome), 'delivery-run');
    const skipped = buildHistory('deliveryWorkflow', [id], [steps[0], steps[2]], outcome);
    await expect(Worker.runReplayHistory({ workflowsPath: WORKFLOWS_PATH }, skipped, 'no-wait')).rejects.toThrow(/[Nn]ondetermin/);
  });
});
