// The benches' HTTP load: wrk (Debian's package, in C, so the load costs the 2-core machine
// little of what the server needs), `clients` keep-alive connections on loopback, each sending
// a random path of the list with the API key, for `seconds`; rate and latency percentiles.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { get } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface LoadResult {
  rate: number; // answers per second
  p50: number; // ms
  p99: number; // ms
  count: number;
  errors: number; // answers other than 2xx/3xx, and failed requests
}

const lua = (paths: string[], key: string, extra: Record<string, string>) => `
local paths = { ${paths.map((p) => JSON.stringify(p)).join(',\n')} }
local headers = { ${Object.entries({ 'X-API-Key': key, ...extra }).map(([k, v]) => `[${JSON.stringify(k)}] = ${JSON.stringify(v)}`).join(', ')} }
init = function(args) math.randomseed(os.time() + tonumber(tostring({}):sub(8), 16)) end
request = function() return wrk.format("GET", paths[math.random(#paths)], headers) end
done = function(s, latency, requests)
  local e = s.errors
  io.write(string.format('{"count":%d,"duration_us":%d,"p50_us":%d,"p99_us":%d,"errors":%d}\\n',
    s.requests, s.duration, latency:percentile(50), latency:percentile(99), e.connect + e.read + e.write + e.timeout + e.status))
end
`;

const round1 = (n: number) => Math.round(n * 10) / 10;

/** `headers`: sent with each request beside the key (e.g. Accept-Encoding). */
export function httpLoad(opts: { port: number; key: string; paths: string[]; seconds: number; clients: number; headers?: Record<string, string> }): LoadResult {
  const dir = mkdtempSync(join(tmpdir(), 'landlex-wrk-'));
  try {
    const script = join(dir, 'load.lua');
    writeFileSync(script, lua(opts.paths, opts.key, opts.headers ?? {}));
    const r = spawnSync('wrk', ['-t', '2', '-c', String(opts.clients), '-d', `${opts.seconds}s`, '-s', script, `http://127.0.0.1:${opts.port}`], { encoding: 'utf8' });
    const line = r.stdout?.split('\n').find((l) => l.startsWith('{"count"'));
    if (r.status !== 0 || !line) throw new Error(`wrk failed: ${r.error?.message ?? ''} ${r.stderr ?? ''} ${r.stdout ?? ''}`);
    const o = JSON.parse(line) as { count: number; duration_us: number; p50_us: number; p99_us: number; errors: number };
    return { rate: Math.round(o.count / (o.duration_us / 1e6)), p50: round1(o.p50_us / 1000), p99: round1(o.p99_us / 1000), count: o.count, errors: o.errors };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * Wait until a server on loopback answers GET /health with 200. Each try is on a connection of
 * its own, closed after it: the loads that follow block this process, and a kept-alive socket
 * the server closed meanwhile would be reused dead by the next fetch.
 */
export async function waitForHealth(port: number): Promise<void> {
  const ok = () =>
    new Promise<boolean>((resolve) => {
      get({ host: '127.0.0.1', port, path: '/health', agent: false }, (res) => {
        res.resume();
        resolve(res.statusCode === 200);
      }).on('error', () => resolve(false));
    });
  for (let i = 0; i < 150; i++) {
    if (await ok()) return;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`nothing answered on port ${port}`);
}

/**
 * A Node process serving on loopback (a tsx script and its arguments), once it answers
 * /health; `stop` ends it with SIGTERM and waits up to 5 s for it to finish what is in flight.
 */
export async function serveProcess(args: string[], port: number, env: Record<string, string> = {}) {
  const child = spawn(process.execPath, ['--import', 'tsx', ...args], { env: { ...process.env, ...env }, stdio: 'inherit' });
  const exited = new Promise((r) => child.once('exit', r));
  const stop = async () => {
    child.kill('SIGTERM');
    await Promise.race([exited, new Promise((r) => setTimeout(r, 5000))]);
  };
  try {
    await waitForHealth(port);
  } catch (err) {
    await stop();
    throw err;
  }
  return { pid: child.pid, stop };
}

/** The API (`landlex serve`) over a database, for a bench: errors logged only, no rate limit to speak of. */
export const serveApi = (databaseUrl: string, port: number) =>
  serveProcess(['bin/cli.ts', 'serve', '--port', String(port)], port, { DATABASE_URL: databaseUrl, LOG_LEVEL: 'error', RATE_LIMIT_PER_SECOND: '1000000' });
