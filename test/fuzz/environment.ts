// What the fuzzer runs against: a real API on loopback over real PostGIS, with the real Cambridge
// data loaded through the pipeline (a database of its own), an organization with ample credit,
// its API key and its owner's console session. Server errors are kept to explain any 5xx.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServer } from '../../api/server.ts';
import { orgCreate } from '../../bin/org.ts';
import { loadConfig } from '../../core/config.ts';
import { createLogger } from '../../core/log.ts';
import { ingestedDatabase } from '../helpers/pipeline.ts';

export interface FuzzEnvironment {
  url: string;
  key: string;
  bearer: string;
  /** error lines the server logged (unhandled errors behind a 500) */
  errors: string[];
  close(): Promise<void>;
}

export async function fuzzEnvironment(credits = 100_000_000): Promise<FuzzEnvironment> {
  const db = await ingestedDatabase('cambridge', ['cambridge-ma']);
  const dir = await mkdtemp(join(tmpdir(), 'landlex-fuzz-'));
  const errors: string[] = [];
  let server: Awaited<ReturnType<typeof startServer>> | null = null;
  const close = async () => {
    await server?.close();
    await db.drop();
    await rm(dir, { recursive: true, force: true });
  };
  try {
    const config = loadConfig({ DATABASE_URL: db.url, PORT: '0', LOG_LEVEL: 'error', RATE_LIMIT_PER_SECOND: '1000000', EXTRACT_DIR: join(dir, 'extracts'), BLOB_DIR: join(dir, 'blobs') });
    server = await startServer(config, { log: createLogger('error', {}, (line) => errors.push(line)) });
    const email = `fuzz-${Date.now().toString(36)}@example.test`;
    const password = `fuzz-password-${Date.now().toString(36)}`;
    const org = await orgCreate(server.services.pool, { name: 'Fuzz', credits, email, password });
    const res = await fetch(`${server.url}/session`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ email, password, organization_id: org.organization_id }) });
    const session = (await res.json()) as { item: { access_token: string } };
    return { url: server.url, key: org.api_key, bearer: session.item.access_token, errors, close };
  } catch (err) {
    await close().catch(() => {});
    throw err;
  }
}
