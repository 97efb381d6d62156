// `landlex serve` as a real child process: started on a free port, its JSON log collected.
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { createServer } from 'node:net';

export async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', () => r()));
  const port = (s.address() as { port: number }).port;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

export interface ServeProcess {
  proc: ChildProcessWithoutNullStreams;
  base: { url: string };
  /** the JSON log records written so far */
  records(): Array<Record<string, any>>;
  /** everything written to stdout and stderr */
  output(): string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  alive(): boolean;
}

/** The environment a child process gets: this one's, less a port, plus `env`. */
export function childEnv(env: Record<string, string>): NodeJS.ProcessEnv {
  const { PORT: _p, PUBLIC_BASE_URL: _u, ...rest } = process.env;
  return { ...rest, LOG_LEVEL: 'info', ...env };
}

/** Start `landlex serve` and wait until it logs that it listens (on `port` when given). */
export async function spawnServe(env: Record<string, string>, port?: number): Promise<ServeProcess> {
  const p = port ?? (await freePort());
  const proc = spawn('./bin/landlex.js', ['serve', '--port', String(p)], { env: childEnv(env) });
  let out = '';
  proc.stdout.on('data', (b) => {
    out += b.toString('utf8');
  });
  proc.stderr.on('data', (b) => {
    out += b.toString('utf8');
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => proc.on('exit', (code, signal) => resolve({ code, signal })));
  const records = () =>
    out
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l));
  const alive = () => proc.exitCode === null && proc.signalCode === null;
  const deadline = Date.now() + 60_000;
  while (!records().some((r) => r.msg === 'listening')) {
    if (!alive() || Date.now() > deadline) {
      if (alive()) proc.kill('SIGKILL');
      throw new Error(`landlex serve did not start:\n${out}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return { proc, base: { url: `http://127.0.0.1:${p}` }, records, output: () => out, exited, alive };
}
