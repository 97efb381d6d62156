// A real API server on loopback over the run's test database, and helpers to get a key.
import { loadConfig, type Config } from '../../core/config.ts';
import { createLogger } from '../../core/log.ts';
import { startServer, type RunningServer } from '../../api/server.ts';
import { createPool } from '../../store/db.ts';
import { orgCreate } from '../../bin/org.ts';
import type { Route } from '../../api/route.ts';
import { sha256Hex } from '../../core/ids.ts';
import { ingestedDatabase } from './pipeline.ts';

export function testDatabaseUrl(): string {
  const url = process.env.TEST_DATABASE_URL;
  if (!url) throw new Error('TEST_DATABASE_URL is not set: run the tests through vitest (test/global-setup.ts)');
  return url;
}

export async function startTestServer(env: Record<string, string> = {}, routes?: Route[]): Promise<RunningServer> {
  const config: Config = loadConfig({ DATABASE_URL: testDatabaseUrl(), PORT: '0', LOG_LEVEL: 'silent', ...env });
  return startServer(config, { log: createLogger(config.logLevel), routes });
}

/**
 * The real Cambridge data loaded through the pipeline into a database of its own, an API over it
 * and a key holding `credits`; `close` stops the server and drops the database.
 */
export async function cambridgeApi(credits: number): Promise<{ server: RunningServer; key: string; close: () => Promise<void> }> {
  const db = await ingestedDatabase('cambridge', ['cambridge-ma']);
  let server: RunningServer | null = null;
  const close = async () => {
    await server?.close();
    await db.drop();
  };
  try {
    server = await startTestServer({ DATABASE_URL: db.url, RATE_LIMIT_PER_SECOND: '100000' });
    return { server, key: (await createTestOrg(server, credits)).apiKey, close };
  } catch (err) {
    await close().catch(() => {});
    throw err;
  }
}

export async function createTestOrg(server: RunningServer, credits = 1000, name = `Test org ${Math.random().toString(36).slice(2, 8)}`) {
  const password = `pw-${Math.random().toString(36).slice(2)}-long`;
  const email = `owner-${Math.random().toString(36).slice(2, 10)}@example.test`;
  const out = await orgCreate(server.services.pool, { name, credits, email, password });
  return { organizationId: out.organization_id, apiKey: out.api_key, email, password };
}

export interface Call {
  status: number;
  body: any;
  headers: Headers;
}

export async function call(
  server: { url: string },
  method: string,
  path: string,
  opts: { key?: string; bearer?: string; body?: unknown; headers?: Record<string, string> } = {},
): Promise<Call> {
  const headers: Record<string, string> = { ...opts.headers };
  if (opts.key) headers['X-API-Key'] = opts.key;
  if (opts.bearer) headers.Authorization = `Bearer ${opts.bearer}`;
  let body: string | undefined;
  if (opts.body !== undefined) {
    headers['Content-Type'] ??= 'application/json';
    body = typeof opts.body === 'string' ? opts.body : JSON.stringify(opts.body);
  }
  const res = await fetch(server.url + path, { method, headers, body });
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = text ? JSON.parse(text) : null;
  } catch {
    /* not JSON: kept as text */
  }
  return { status: res.status, body: parsed, headers: res.headers };
}

/**
 * Wait until the server has heard that a key changed in the database (migration 010's notice
 * drops it from the process's key cache), as any API process hears it a moment after the commit.
 */
export async function keyChangeHeard(server: RunningServer, apiKey: string): Promise<void> {
  const hash = sha256Hex(apiKey);
  for (let i = 0; i < 200 && server.services.credentials.get(hash); i++) await new Promise((r) => setTimeout(r, 10));
  if (server.services.credentials.get(hash)) throw new Error('the key change was not heard within 2 s');
}

export { createPool };
