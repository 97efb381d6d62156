// The CLI as an operator runs it, as real processes: `landlex org create --json` prints a key that
// works and an owner who can sign in; `landlex serve` answers /health and /plan and, on SIGTERM,
// finishes, logs its shutdown, exits 0 and closes its port.
import { spawnSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { childEnv, type ServeProcess, spawnServe } from '../helpers/process.ts';
import { call, testDatabaseUrl } from '../helpers/server.ts';

const landlex = (...args: string[]) => spawnSync('./bin/landlex.js', args, { env: childEnv({ DATABASE_URL: testDatabaseUrl(), LOG_LEVEL: 'error' }), encoding: 'utf8' });

let serve: ServeProcess;
let base: { url: string };
const records = () => serve.records();

beforeAll(async () => {
  serve = await spawnServe({ DATABASE_URL: testDatabaseUrl() });
  base = serve.base;
}, 90_000);
afterAll(async () => {
  if (serve?.alive()) serve.proc.kill('SIGKILL');
});

describe('landlex org create --json', () => {
  test('prints the organization, a key that works on GET /credit, and a sign-in for the owner', async () => {
    const r = landlex('org', 'create', '--name', 'Process Test Co', '--credits', '7', '--json');
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    const o = JSON.parse(r.stdout);
    expect(o).toMatchObject({
      organization_id: expect.stringMatching(/^org_/),
      api_key: expect.any(String),
      owner_email: expect.stringMatching(/@process-test-co\.invalid$/),
      owner_password: expect.any(String),
      note: expect.stringContaining('shown only now'),
    });
    const credit = await call(base, 'GET', '/credit', { key: o.api_key });
    expect(credit.status).toBe(200);
    expect(credit.body.item).toMatchObject({ organization_id: o.organization_id, balance: 7 });
    // the generated password is the owner's way in
    const s = await call(base, 'POST', '/session', { body: { email: o.owner_email, password: o.owner_password, organization_id: o.organization_id } });
    expect(s.status).toBe(200);
    const me = await call(base, 'GET', '/me', { bearer: s.body.item.access_token });
    expect(me.body.item).toMatchObject({ email: o.owner_email });
  });

  test('with --email and --password nothing secret is printed; a bad --credits exits 2', async () => {
    const email = `cli-${Date.now().toString(36)}@example.test`;
    const r = landlex('org', 'create', '--name', 'Process Test Two', '--credits', '3', '--email', email, '--password', 'a-long-enough-password-1', '--json');
    expect(r.status).toBe(0);
    const o = JSON.parse(r.stdout);
    expect(Object.keys(o).sort()).toEqual(['api_key', 'organization_id', 'owner_email']);
    expect(o.owner_email).toBe(email);
    expect((await call(base, 'GET', '/credit', { key: o.api_key })).body.item.balance).toBe(3);
    const bad = landlex('org', 'create', '--name', 'X', '--credits', 'lots');
    expect(bad.status).toBe(2);
    expect(bad.stderr).toContain('--credits "lots": expected a whole number');
  });
});

describe('public service routes', () => {
  test('GET /health answers the service and database state', async () => {
    const r = await call(base, 'GET', '/health');
    expect(r.status).toBe(200);
    expect(r.body.item).toEqual({ status: 'ok', database: 'ok', database_ms: expect.any(Number), started_at: expect.any(String) });
    expect(Date.parse(r.body.item.started_at)).toBeLessThanOrEqual(Date.now());
    expect(r.body.item.database_ms).toBeGreaterThanOrEqual(0);
    expect(r.body.meta.request_id).toBe(r.headers.get('x-request-id'));
  });

  test('GET /plan lists the plans with the rate limit and the price of every priced operation', async () => {
    const r = await call(base, 'GET', '/plan');
    expect(r.status).toBe(200);
    expect(r.body.item).toHaveLength(1);
    const plan = r.body.item[0];
    expect(plan).toMatchObject({ id: 'prepaid', included_credits: 100, credit_price_usd: '0.01', rate_limit_per_second: expect.any(Number), features: { law: 'included', records: 'included', maps: 'included', extracts: 'included' } });
    const ops = plan.price.map((p: { operation: string }) => p.operation);
    expect(ops).toEqual([...ops].sort((a: string, b: string) => a.localeCompare(b)));
    expect(plan.price).toContainEqual({ operation: 'POST /place/batch', credits: 1, per: 'item', repeat_free_hours: 24, note: expect.any(String) });
    expect(plan.price).toContainEqual(expect.objectContaining({ operation: 'GET /place', credits: 1, per: 'call', repeat_free_hours: null }));
    expect(plan.price.every((p: { credits: number }) => Number.isInteger(p.credits) && p.credits >= 0)).toBe(true);
    expect(r.body.page).toEqual(expect.objectContaining({ next_cursor: null }));
  });
});

describe('landlex serve on SIGTERM', () => {
  test('exits 0 after logging its shutdown, and its port closes', async () => {
    // a keep-alive connection left idle must not hold the process open
    expect((await fetch(`${base.url}/health`)).status).toBe(200);
    serve.proc.kill('SIGTERM');
    const done = await Promise.race([serve.exited, new Promise<'timeout'>((r) => setTimeout(() => r('timeout'), 20_000))]);
    expect(done).toEqual({ code: 0, signal: null });
    const msgs = records().map((r) => r.msg);
    expect(records()).toContainEqual(expect.objectContaining({ msg: 'signal', signal: 'SIGTERM' }));
    expect(msgs.indexOf('shutting down')).toBeGreaterThan(msgs.indexOf('signal'));
    expect(msgs.indexOf('stopped')).toBeGreaterThan(msgs.indexOf('shutting down'));
    await expect(fetch(`${base.url}/health`)).rejects.toThrow();
  }, 30_000);
});
