// The benches' bare-SQL load: pgbench (Debian's postgresql-client), prepared statements, in
// sessions with the API pool's own settings; throughput and the latency percentiles of its
// per-transaction log.
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SERVING_OPTIONS } from '../store/db.ts';
import { machineBusyMs } from './cpu.ts';

export interface BareResult {
  rate: number; // transactions per second
  p50: number; // ms
  p99: number; // ms
  count: number;
  errors: number;
  /** ms of the machine's CPU per counted transaction (warm-up left out) */
  cpuMs: number;
}

const round1 = (v: number) => Math.round(v * 10) / 10;

/**
 * pgbench with `scriptArgs` (-f file[@weight] …) by `clients` connections for `seconds`. With
 * `warmupSeconds`, the sessions run that much longer first and the transactions they finish in
 * it are left out of the rate and the latencies: the same sessions, warmed (plans cached, PROJ
 * loaded per backend), as the API's pooled connections are when it is measured after its own
 * warm-up.
 */
export async function pgbench(url: string, scriptArgs: string[], opts: { clients: number; seconds: number; warmupSeconds?: number }): Promise<BareResult> {
  const warmup = opts.warmupSeconds ?? 0;
  const work = mkdtempSync(join(tmpdir(), 'landlex-pgbench-'));
  try {
    const u = new URL(url);
    const child = spawn(
      'pgbench',
      ['-n', '-M', 'prepared', '-c', String(opts.clients), '-j', '2', '-T', String(opts.seconds + warmup), ...scriptArgs, '-l', `--log-prefix=${join(work, 'log')}`,
        '-h', u.hostname, '-p', u.port || '5432', '-U', u.username || 'postgres', u.pathname.slice(1)],
      { env: { ...process.env, PGOPTIONS: SERVING_OPTIONS } },
    );
    const r = { stdout: '', stderr: '' };
    child.stdout.on('data', (d) => (r.stdout += d));
    child.stderr.on('data', (d) => (r.stderr += d));
    const started = performance.now();
    const exited = new Promise<void>((resolve) => child.on('close', () => resolve()));
    // the machine's CPU from the end of the warm-up (pgbench connects first: ~0.2 s) to the end
    let cpuFrom = machineBusyMs();
    let warmed = warmup === 0;
    const timer = setTimeout(() => {
      cpuFrom = machineBusyMs();
      warmed = true;
    }, warmup * 1000 + 200);
    await exited;
    clearTimeout(timer);
    const cpuUsed = machineBusyMs() - cpuFrom;
    if (!warmed) throw new Error(`pgbench ended after ${((performance.now() - started) / 1000).toFixed(1)} s, before its warm-up did: ${r.stderr || r.stdout}`);
    const m = /tps = ([\d.]+)/.exec(r.stdout);
    if (!m) throw new Error(`pgbench failed: ${r.stderr || r.stdout}`);
    const errors = Number(/number of failed transactions: (\d+)/.exec(r.stdout)?.[1] ?? 0);
    // per-transaction log lines: client transaction_no latency_us script_no epoch_s epoch_us
    const done: Array<{ at: number; ms: number }> = [];
    for (const f of readdirSync(work)) {
      for (const line of readFileSync(join(work, f), 'utf8').split('\n')) {
        const [, , us, , sec, usec] = line.split(' ').map(Number);
        if (line && Number.isFinite(us) && Number.isFinite(sec)) done.push({ at: sec + usec / 1e6, ms: us / 1000 });
      }
    }
    let first = Number.POSITIVE_INFINITY;
    let last = 0;
    for (const d of done) {
      first = Math.min(first, d.at - d.ms / 1000);
      last = Math.max(last, d.at);
    }
    const counted = done.filter((d) => d.at >= first + warmup);
    const times = counted.map((d) => d.ms);
    times.sort((a, b) => a - b);
    const q = (p: number) => (times.length ? round1(times[Math.min(times.length - 1, Math.floor(times.length * p))]) : Number.NaN);
    const rate = warmup > 0 ? counted.length / (last - (first + warmup)) : Number(m[1]);
    return { rate: Math.round(rate), p50: q(0.5), p99: q(0.99), count: times.length, errors, cpuMs: times.length ? cpuUsed / times.length : Number.NaN };
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}
