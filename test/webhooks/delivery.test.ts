// Delivery (spec 6.3) through the in-process dispatcher to real receivers on loopback: change
// events fanned out in seq order, retried per the policy and delivered once each in order after a
// receiver comes back; dead-lettered and logged when it never does; 410 Gone turns the webhook off
// and holds its deliveries; timeouts and refused connections recorded; a new URL takes the queue;
// one organization's events never reach another's webhooks.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { RunningServer } from '../../api/server.ts';
import { stableId } from '../../core/ids.ts';
import { writeChangeEvents } from '../../store/changes.ts';
import { withTransaction } from '../../store/db.ts';
import { enqueueEvent } from '../../store/webhooks/outbox.ts';
import { freshDatabase } from '../helpers/databases.ts';
import { eventDraft } from '../helpers/feed.ts';
import { type Receiver, startReceiver } from '../helpers/receiver.ts';
import { call, createTestOrg, startTestServer } from '../helpers/server.ts';

let db: Awaited<ReturnType<typeof freshDatabase>>;
let server: RunningServer;
let org: Awaited<ReturnType<typeof createTestOrg>>;
let other: Awaited<ReturnType<typeof createTestOrg>>;
const receivers: Receiver[] = [];
const fips = 'us:cousub:2501799001';
const jur = stableId('jurisdiction', fips);
const FAST = { backoff: 'fixed', base_seconds: 1, jitter: false };

async function receiver(answer?: Receiver['answer']) {
  const r = await startReceiver(answer);
  receivers.push(r);
  return r;
}

async function webhook(url: string, eventType: string[], policy: object = FAST, key = org.apiKey) {
  const r = await call(server, 'POST', '/webhook', { key, body: { url, event_type: eventType, retry_policy: policy } });
  expect(r.status).toBe(201);
  return r.body;
}

const emit = (tag: string, ns: number[]) => withTransaction(server.services.pool, (c) => writeChangeEvents(c, ns.map((n) => eventDraft(jur, tag, n)), new Date()));
const log = async (w: { href: string }, q = '') => (await call(server, 'GET', `${w.href}/delivery?size=200${q}`, { key: org.apiKey })).body.data;

beforeAll(async () => {
  db = await freshDatabase('webhook_delivery');
  server = await startTestServer({ DATABASE_URL: db.url, RATE_LIMIT_PER_SECOND: '100000', WEBHOOK_TIMEOUT_MS: '500' });
  org = await createTestOrg(server);
  other = await createTestOrg(server);
  await server.services.pool.query(
    `INSERT INTO jurisdiction (id, slug, name, type, level, fips_state, fips_county, fips_cousub, fips_key, state_postal)
     VALUES ($1, 'hookton-ma', 'Hookton', 'town', 'cousub', '25', '017', '99001', $2, 'MA')`,
    [jur, fips],
  );
});
afterAll(async () => {
  await server?.close();
  for (const r of receivers) await r.close();
  await db?.drop();
});

describe('delivery', () => {
  test('a receiver that fails, then answers: every change event arrives once, in seq order, each retried before the next is sent', async () => {
    const r = await receiver((n) => (n < 3 ? 500 : 200));
    const w = await webhook(r.url, ['law.district.amendment', 'law.district_map.map_change']);
    await emit('order', [1, 2, 3]);
    await emit('order', [4, 5]);
    await r.until(() => r.delivered().length === 5);
    const seqs = r.delivered().map((c) => c.json.seq);
    const { rows } = await server.services.pool.query(`SELECT seq FROM change_event WHERE field_path LIKE '%.order' ORDER BY seq`);
    expect(seqs).toEqual(rows.map((x) => Number(x.seq)));
    // every call, failed ones too, went in seq order: a failing event is retried before the next
    const called = r.calls.map((c) => c.json.seq);
    expect(called).toEqual([...called].sort((a, b) => a - b));
    expect(r.calls).toHaveLength(8);
    expect(new Set(r.delivered().map((c) => c.headers['webhook-id'])).size).toBe(5);
    const first = r.delivered()[0].json;
    expect(first).toMatchObject({ type: 'law.district.amendment', data: { change_event: { seq: seqs[0], layer: 'district', kind: 'amendment', jurisdiction: { id: jur } } } });
    const entries = await log(w);
    expect(entries).toHaveLength(5);
    const retried = entries.find((e: any) => e.attempt_count === 4);
    expect(retried.attempt.map((a: any) => [a.outcome, a.status_code])).toEqual([['failed', 500], ['failed', 500], ['failed', 500], ['succeeded', 200]]);
    expect(retried.attempt[0].response_excerpt).toMatch(/^receiver says 500 x+…$/);
    expect(retried.attempt[0].response_excerpt.length).toBe(1001);
  });

  test('a receiver that never answers 2xx: dead-lettered after max_attempt, in the log, the webhook still active', async () => {
    const r = await receiver(() => 503);
    const w = await webhook(r.url, ['permit.created'], { ...FAST, max_attempt: 2 });
    await enqueueEvent(server.services.pool, { organizationId: org.organizationId, type: 'permit.created', data: { permit: { id: 'pmt_x' } } });
    server.services.webhooks!.kick();
    await r.until((c) => c.length === 2);
    let dead: any[] = [];
    for (let i = 0; i < 100 && dead.length === 0; i++) {
      dead = await log(w, '&state=dead_lettered');
      if (!dead.length) await new Promise((res) => setTimeout(res, 50));
    }
    expect(dead[0]).toMatchObject({ state: 'dead_lettered', attempt_count: 2, dead_letter_reason: expect.stringMatching(/max_attempt 2/) });
    expect(dead[0].attempt.map((a: any) => a.status_code)).toEqual([503, 503]);
    expect((await call(server, 'GET', w.href, { key: org.apiKey })).body.active).toBe(true);
  });

  test('410 Gone turns the webhook off and holds what is queued; turned on at a new URL, the queue goes there', async () => {
    const gone = await receiver(() => 410);
    const w = await webhook(gone.url, ['case.created']);
    for (const n of [1, 2]) await enqueueEvent(server.services.pool, { organizationId: org.organizationId, type: 'case.created', data: { n } });
    server.services.webhooks!.kick();
    await gone.until((c) => c.length === 1);
    let got: any;
    for (let i = 0; i < 100; i++) {
      got = (await call(server, 'GET', w.href, { key: org.apiKey })).body;
      if (!got.active) break;
      await new Promise((res) => setTimeout(res, 50));
    }
    expect(got).toMatchObject({ active: false, disabled_reason: expect.stringMatching(/410 Gone/) });
    const held = await log(w);
    expect(held.map((d: any) => [d.state, d.held])).toEqual([['pending', true], ['pending', true]]);
    await new Promise((res) => setTimeout(res, 1500));
    expect(gone.calls).toHaveLength(1);
    const fresh = await receiver();
    const etag = (await call(server, 'GET', w.href, { key: org.apiKey })).headers.get('etag')!;
    const on = await call(server, 'PATCH', w.href, { key: org.apiKey, headers: { 'If-Match': etag }, body: { url: fresh.url, active: true } });
    expect(on.body).toMatchObject({ active: true, disabled_reason: null, url: fresh.url });
    await fresh.until(() => fresh.delivered().length === 2);
    expect(fresh.delivered().map((c) => c.json.data.n)).toEqual([1, 2]);
  });

  test('a call not answered in time and a refused connection are failed attempts, recorded with why', async () => {
    const hang = await receiver(() => 'hang');
    const w1 = await webhook(hang.url, ['ping'], { ...FAST, max_attempt: 1 });
    const w2 = await webhook("http://127.0.0.1:1023/nobody", ['ping'], { ...FAST, max_attempt: 1 });
    await enqueueEvent(server.services.pool, { organizationId: org.organizationId, type: 'ping', data: {}, webhookIds: [w1.id, w2.id] });
    server.services.webhooks!.kick();
    const settled = async (w: { href: string }) => {
      for (let i = 0; i < 200; i++) {
        const d = (await log(w))[0];
        if (d?.state === 'dead_lettered') return d;
        await new Promise((res) => setTimeout(res, 50));
      }
      throw new Error('not dead-lettered');
    };
    expect((await settled(w1)).attempt[0]).toMatchObject({ outcome: 'timeout', status_code: null, error: 'no answer within 500 ms' });
    expect((await settled(w2)).attempt[0]).toMatchObject({ outcome: 'refused', status_code: null, error: expect.stringMatching(/ECONNREFUSED/) });
  });

  test("an organization's events reach only its own webhooks; the feed's reach every subscriber", async () => {
    const mine = await receiver();
    const theirs = await receiver();
    await webhook(mine.url, ['permit.created', 'law.district.amendment']);
    await webhook(theirs.url, ['permit.created', 'law.district.amendment'], FAST, other.apiKey);
    await enqueueEvent(server.services.pool, { organizationId: org.organizationId, type: 'permit.created', data: { secret: 'only mine' } });
    await emit('shared', [1]);
    await mine.until(() => mine.delivered().length === 2);
    await theirs.until(() => theirs.delivered().length === 1);
    await new Promise((res) => setTimeout(res, 1200));
    expect(theirs.calls.map((c) => c.json.type)).toEqual(['law.district.amendment']);
    expect(mine.delivered().map((c) => c.json.type).sort()).toEqual(['law.district.amendment', 'permit.created']);
  });
});
