// Running the service: configuration validated at start, one JSON log line per request with its
// id (credentials redacted), graceful shutdown that finishes what is in flight.
import { spawnSync } from 'node:child_process';
import { expect, test } from 'vitest';
import { ConfigError, loadConfig } from '../../core/config.ts';
import { createLogger } from '../../core/log.ts';
import type { Route } from '../../api/route.ts';
import { allRoutes } from '../../api/routes/index.ts';
import { startServer } from '../../api/server.ts';
import { call, createTestOrg, testDatabaseUrl } from '../helpers/server.ts';

test('every bad configuration value is named at once', () => {
  let caught: unknown;
  try {
    loadConfig({ PORT: 'eighty', DATABASE_URL: 'mysql://x', REGISTRATION_OPEN: 'perhaps', SECRET_KEY: 'short', RATE_LIMIT_PER_SECOND: '0' });
  } catch (err) {
    caught = err;
  }
  expect(caught).toBeInstanceOf(ConfigError);
  const problems = (caught as ConfigError).problems.join('\n');
  for (const name of ['PORT', 'DATABASE_URL', 'REGISTRATION_OPEN', 'SECRET_KEY', 'RATE_LIMIT_PER_SECOND']) expect(problems).toContain(name);
});

test('the CLI refuses to start on a bad value, with a clear message and exit code 2', () => {
  const r = spawnSync('./bin/landlex.js', ['serve'], { env: { ...process.env, PORT: '99999', LOG_LEVEL: 'loud' }, encoding: 'utf8' });
  expect(r.status).toBe(2);
  expect(r.stderr).toContain('PORT="99999": expected a whole number from 0 to 65535');
  expect(r.stderr).toContain('LOG_LEVEL');
});

test('one JSON log line per request, with its request id, and no credential in it', async () => {
  const lines: string[] = [];
  const config = loadConfig({ DATABASE_URL: testDatabaseUrl(), PORT: '0', LOG_LEVEL: 'info' });
  const server = await startServer(config, { log: createLogger('info', {}, (l) => lines.push(l)) });
  try {
    const org = await createTestOrg(server, 1);
    const ok = await call(server, 'GET', '/health');
    await call(server, 'GET', `/health?api_key=${org.apiKey}`);
    const records = lines.map((l) => JSON.parse(l));
    const line = records.find((r) => r.msg === 'request' && r.request_id === ok.headers.get('x-request-id'));
    expect(line).toMatchObject({ level: 'info', method: 'GET', path: '/health', status: 200, route: 'GET /health' });
    expect(typeof line.ms).toBe('number');
    expect(lines.join('\n')).not.toContain(org.apiKey);
    expect(records.some((r) => r.path === '/health?api_key=%5Bredacted%5D' && r.status === 401)).toBe(true);
  } finally {
    await server.close();
  }
});

test('shutdown finishes requests in flight, then stops accepting', async () => {
  const slow: Route = {
    id: 'probeSlow', method: 'GET', path: '/probe/slow', summary: 'probe', tag: 'Probe', credential: 'public', form: 'plain',
    handler: async () => {
      await new Promise((r) => setTimeout(r, 400));
      return { item: { finished: true } };
    },
  };
  const config = loadConfig({ DATABASE_URL: testDatabaseUrl(), PORT: '0', LOG_LEVEL: 'silent' });
  const server = await startServer(config, { routes: [...allRoutes, slow] });
  const inFlight = call(server, 'GET', '/probe/slow');
  await new Promise((r) => setTimeout(r, 100));
  const closing = server.close();
  const answered = await inFlight;
  expect(answered.status).toBe(200);
  expect(answered.body.item).toEqual({ finished: true });
  await closing;
  await expect(fetch(`${server.url}/health`)).rejects.toThrow();
});

test('shutdown waits for a request whose client gave up: its handler still reads the database and writes nothing after the pool ends', async () => {
  let read: unknown = 'not yet';
  const slow: Route = {
    id: 'probeAbandoned', method: 'GET', path: '/probe/abandoned', summary: 'probe', tag: 'Probe', credential: 'public', form: 'plain',
    handler: async (req) => {
      await new Promise((r) => setTimeout(r, 400));
      try {
        read = (await req.services.pool.query('SELECT 1 AS one')).rows[0].one;
      } catch (err) {
        read = (err as Error).message;
      }
      return { item: { finished: true } };
    },
  };
  const lines: string[] = [];
  const config = loadConfig({ DATABASE_URL: testDatabaseUrl(), PORT: '0', LOG_LEVEL: 'error' });
  const server = await startServer(config, { routes: [...allRoutes, slow], log: createLogger('error', {}, (l) => lines.push(l)) });
  const gaveUp = fetch(`${server.url}/probe/abandoned`, { signal: AbortSignal.timeout(100) }).catch((err: Error) => err.name);
  expect(await gaveUp).toBe('TimeoutError');
  await server.close();
  expect(read).toBe(1);
  expect(lines.filter((l) => l.includes('pool'))).toEqual([]);
});
