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

export interface LandlexProcess {
  proc: ChildProcessWithoutNullStreams;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** everything written to stdout and stderr */
  output(): string;
  stdout(): string;
  alive(): boolean;
}

/** `landlex <args>` as a child process, its output collected. */
export function spawnLandlex(args: string[], env: NodeJS.ProcessEnv): LandlexProcess {
  const proc = spawn('./bin/landlex.js', args, { env });
  let out = '';
  let stdout = '';
  proc.stdout.on('data', (b) => {
    out += b.toString('utf8');
    stdout += b.toString('utf8');
  });
  proc.stderr.on('data', (b) => {
    out += b.toString('utf8');
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => proc.on('exit', (code, signal) => resolve({ code, signal })));
  return { proc, exited, output: () => out, stdout: () => stdout, alive: () => proc.exitCode === null && proc.signalCode === null };
}

/** Start `landlex serve` and wait until it logs that it listens (on `port` when given). */
export async function spawnServe(env: Record<string, string>, port?: number): Promise<ServeProcess> {
  const p = port ?? (await freePort());
  const run = spawnLandlex(['serve', '--port', String(p)], childEnv(env));
  const records = () =>
    run
      .output()
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l));
  const deadline = Date.now() + 60_000;
  while (!records().some((r) => r.msg === 'listening')) {
    if (!run.alive() || Date.now() > deadline) {
      if (run.alive()) run.proc.kill('SIGKILL');
      throw new Error(`landlex serve did not start:\n${run.output()}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return { proc: run.proc, base: { url: `http://127.0.0.1:${p}` }, records, output: run.output, exited: run.exited, alive: run.alive };
}
