// Webhooks over HTTP (spec 4.10): event types, create (the secret once), read with an ETag, change
// and delete under If-Match, the refusals that name their field, another organization's webhook
// as 404, and a signed test delivery verified by the standardwebhooks package at a real receiver.
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { RunningServer } from '../../api/server.ts';
import { DEFAULT_POLICY } from '../../core/webhooks/retry-policy.ts';
import { freshDatabase } from '../helpers/databases.ts';
import { type Receiver, startReceiver } from '../helpers/receiver.ts';
import { type Call, call, createTestOrg, startTestServer } from '../helpers/server.ts';

let db: Awaited<ReturnType<typeof freshDatabase>>;
let server: RunningServer;
let receiver: Receiver;
let key: string;
let otherKey: string;

const problem = (r: Call) => ({ status: r.status, code: r.body?.code, field: r.body?.errors?.[0]?.field });
const create = (body: object, k = key) => call(server, 'POST', '/webhook', { key: k, body });

beforeAll(async () => {
  db = await freshDatabase('webhook_api');
  server = await startTestServer({ DATABASE_URL: db.url, RATE_LIMIT_PER_SECOND: '100000' });
  receiver = await startReceiver();
  key = (await createTestOrg(server)).apiKey;
  otherKey = (await createTestOrg(server)).apiKey;
});
afterAll(async () => {
  await server?.close();
  await receiver?.close();
  await db?.drop();
});

describe('event types', () => {
  test('ping, permit.created, case.created and one per change-feed layer and kind, described', async () => {
    const r = await call(server, 'GET', '/event_type', { key });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ object: 'list', has_more: false });
    const names = r.body.data.map((t: { name: string }) => t.name);
    expect(names).toEqual(expect.arrayContaining(['ping', 'permit.created', 'case.created', 'law.district.amendment', 'law.district_map.map_change', 'monitor.parcel.rezoned', 'alert.triggered']));
    for (const t of r.body.data) expect(t.description.length).toBeGreaterThan(20);
  });
});

describe('webhooks', () => {
  test('created with the secret once; read with an ETag and a fingerprint, never the secret', async () => {
    const made = await create({ url: receiver.url, name: 'Ops', event_type: ['ping', 'permit.created'] });
    expect(made.status).toBe(201);
    expect(made.body).toMatchObject({ object: 'webhook', name: 'Ops', url: receiver.url, active: true, event_type: ['ping', 'permit.created'], retry_policy: DEFAULT_POLICY });
    expect(made.body.secret).toMatch(/^whsec_[A-Za-z0-9+/=]{40,}$/);
    const got = await call(server, 'GET', made.body.href, { key });
    expect(got.status).toBe(200);
    expect(got.body.secret).toBeUndefined();
    expect(JSON.stringify(got.body)).not.toContain(made.body.secret.slice(6));
    expect(got.body.secret_fingerprint).toBe(made.body.secret_fingerprint);
    expect(got.headers.get('etag')).toBe(`"${made.body.id}.1"`);
    const list = await call(server, 'GET', '/webhook?size=200', { key });
    expect(list.body.data.map((w: { id: string }) => w.id)).toContain(made.body.id);
    expect(JSON.stringify(list.body)).not.toContain(made.body.secret.slice(6));
  });

  test('PATCH under If-Match: a stale ETag is 409; null clears the name; retry_policy replaced whole, null restores the defaults', async () => {
    const made = await create({ url: receiver.url, name: 'Patch me', event_type: ['ping'], retry_policy: { max_attempt: 3, backoff: 'linear' } });
    expect(made.body.retry_policy).toEqual({ ...DEFAULT_POLICY, max_attempt: 3, backoff: 'linear' });
    const etag = made.headers.get('etag')!;
    const one = await call(server, 'PATCH', made.body.href, { key, headers: { 'If-Match': etag }, body: { name: null, retry_policy: { base_seconds: 5 }, event_type: ['case.created'] } });
    expect(one.status).toBe(200);
    expect(one.body).toMatchObject({ name: null, event_type: ['case.created'], retry_policy: { ...DEFAULT_POLICY, base_seconds: 5 } });
    expect(one.body.secret_fingerprint).toBe(made.body.secret_fingerprint);
    const stale = await call(server, 'PATCH', made.body.href, { key, headers: { 'If-Match': etag }, body: { name: 'late' } });
    expect(problem(stale)).toEqual({ status: 409, code: 'version_conflict', field: undefined });
    expect(stale.body.detail).toMatch(/changed since/);
    const reset = await call(server, 'PATCH', made.body.href, { key, headers: { 'If-Match': one.headers.get('etag')! }, body: { retry_policy: null, active: false } });
    expect(reset.body).toMatchObject({ retry_policy: DEFAULT_POLICY, active: false });
    const gone = await call(server, 'DELETE', made.body.href, { key, headers: { 'If-Match': etag } });
    expect(gone.status).toBe(409);
    const del = await call(server, 'DELETE', made.body.href, { key, headers: { 'If-Match': reset.headers.get('etag')! } });
    expect(del.status).toBe(204);
    expect((await call(server, 'GET', made.body.href, { key })).status).toBe(404);
  });

  test('refusals name the field: an unknown event type, a URL not http(s), a URL of this service, a malformed policy', async () => {
    expect(problem(await create({ url: receiver.url, event_type: ['ping', 'parcel.sold'] }))).toEqual({ status: 422, code: 'vocabulary_value_unknown', field: 'event_type[1]' });
    expect(problem(await create({ url: 'ftp://example.test/x', event_type: ['ping'] }))).toEqual({ status: 422, code: 'parameter_invalid', field: 'url' });
    expect(problem(await create({ url: 'not a url', event_type: ['ping'] }))).toEqual({ status: 422, code: 'parameter_invalid', field: 'url' });
    expect(problem(await create({ url: `${server.url}/health`, event_type: ['ping'] }))).toEqual({ status: 422, code: 'parameter_invalid', field: 'url' });
    expect(problem(await create({ url: `http://localhost:${server.port}/x`, event_type: ['ping'] }))).toEqual({ status: 422, code: 'parameter_invalid', field: 'url' });
    expect(problem(await create({ url: receiver.url, event_type: ['ping'], retry_policy: { backoff: 'sometimes' } }))).toMatchObject({ status: 422, field: expect.stringMatching(/backoff/) });
    expect(problem(await create({ url: receiver.url, event_type: [] }))).toMatchObject({ status: 422, field: expect.stringMatching(/event_type/) });
  });

  test("another organization's webhook and its deliveries are 404, never 403", async () => {
    const made = await create({ url: receiver.url, event_type: ['ping'] });
    const test1 = await call(server, 'POST', `${made.body.href}/delivery`, { key, body: {} });
    expect(test1.status).toBe(202);
    for (const [m, path] of [
      ['GET', made.body.href],
      ['PATCH', made.body.href],
      ['DELETE', made.body.href],
      ['GET', `${made.body.href}/delivery`],
      ['POST', `${made.body.href}/delivery`],
      ['GET', test1.body.href],
      ['POST', `${made.body.href}/secret`],
    ] as const) {
      const r = await call(server, m, path, { key: otherKey, body: m === 'GET' || m === 'DELETE' ? undefined : {} });
      expect([path, m, r.status, r.body.code]).toEqual([path, m, 404, 'no_such_resource']);
    }
    const theirs = await call(server, 'GET', '/webhook', { key: otherKey });
    expect(theirs.body.data).toEqual([]);
  });
});

describe('a signed test delivery', () => {
  test('verifies with the standardwebhooks package; after a rotation both secrets sign, the old one for a stated window', async () => {
    const made = await create({ url: receiver.url, event_type: ['permit.created'] });
    const sent = await call(server, 'POST', `${made.body.href}/delivery`, { key, body: { data: { note: 'hello' } } });
    expect(sent.status).toBe(202);
    expect(sent.body).toMatchObject({ object: 'webhook_delivery', test: true, event: { type: 'ping' } });
    await receiver.until((c) => c.some((x) => x.headers['webhook-id'] === sent.body.id));
    const got = receiver.calls.find((x) => x.headers['webhook-id'] === sent.body.id)!;
    const verified = new Webhook(made.body.secret).verify(got.body, got.headers as Record<string, string>) as any;
    expect(verified).toMatchObject({ type: 'ping', data: { echo: { note: 'hello' }, webhook: { id: made.body.id } } });
    expect(() => new Webhook(`whsec_${Buffer.alloc(32, 1).toString('base64')}`).verify(got.body, got.headers as Record<string, string>)).toThrow();

    const rotated = await call(server, 'POST', `${made.body.href}/secret`, { key });
    expect(rotated.status).toBe(200);
    expect(rotated.body.secret).not.toBe(made.body.secret);
    expect(rotated.body.previous_secret_fingerprint).toBe(made.body.secret_fingerprint);
    const hours = (Date.parse(rotated.body.previous_secret_until) - Date.now()) / 3600_000;
    expect(hours).toBeGreaterThan(23.9);
    expect(hours).toBeLessThanOrEqual(24);
    const again = await call(server, 'POST', `${made.body.href}/delivery`, { key, body: {} });
    await receiver.until((c) => c.some((x) => x.headers['webhook-id'] === again.body.id));
    const second = receiver.calls.find((x) => x.headers['webhook-id'] === again.body.id)!;
    expect(String(second.headers['webhook-signature']).split(' ')).toHaveLength(2);
    for (const s of [made.body.secret, rotated.body.secret]) expect(new Webhook(s).verify(second.body, second.headers as Record<string, string>)).toMatchObject({ type: 'ping' });

    // the receiver answered; the outcome is written just after
    let log = await call(server, 'GET', `${made.body.href}/delivery/${again.body.id}`, { key });
    for (let i = 0; i < 200 && log.body.state === 'pending'; i++) {
      await new Promise((r) => setTimeout(r, 25));
      log = await call(server, 'GET', `${made.body.href}/delivery/${again.body.id}`, { key });
    }
    expect(log.body).toMatchObject({ state: 'succeeded', attempt_count: 1, attempt: [{ n: 1, outcome: 'succeeded', status_code: 200, response_excerpt: 'ok', url: receiver.url }] });
  });
});
