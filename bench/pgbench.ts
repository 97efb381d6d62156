// The benches' bare-SQL load: pgbench (Debian's postgresql-client), prepared statements, in
// sessions with the API pool's own settings; throughput and the latency percentiles of its
// per-transaction log.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SERVING_OPTIONS } from '../store/db.ts';

export interface BareResult {
  rate: number; // transactions per second
  p50: number; // ms
  p99: number; // ms
  count: number;
  errors: number;
}

const round1 = (v: number) => Math.round(v * 10) / 10;

/** pgbench with `scriptArgs` (-f file[@weight] …) by `clients` connections for `seconds`. */
export function pgbench(url: string, scriptArgs: string[], opts: { clients: number; seconds: number }): BareResult {
  const work = mkdtempSync(join(tmpdir(), 'landlex-pgbench-'));
  try {
    const u = new URL(url);
    const r = spawnSync(
      'pgbench',
      ['-n', '-M', 'prepared', '-c', String(opts.clients), '-j', '2', '-T', String(opts.seconds), ...scriptArgs, '-l', `--log-prefix=${join(work, 'log')}`,
        '-h', u.hostname, '-p', u.port || '5432', '-U', u.username || 'postgres', u.pathname.slice(1)],
      { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024, env: { ...process.env, PGOPTIONS: SERVING_OPTIONS } },
    );
    const m = /tps = ([\d.]+)/.exec(r.stdout);
    if (!m) throw new Error(`pgbench failed: ${r.stderr || r.stdout}`);
    const errors = Number(/number of failed transactions: (\d+)/.exec(r.stdout)?.[1] ?? 0);
    // per-transaction log lines: client transaction_no latency_us script_no epoch_s epoch_us
    const times: number[] = [];
    for (const f of readdirSync(work)) {
      for (const line of readFileSync(join(work, f), 'utf8').split('\n')) {
        const us = Number(line.split(' ')[2]);
        if (line && Number.isFinite(us)) times.push(us / 1000);
      }
    }
    times.sort((a, b) => a - b);
    const q = (p: number) => (times.length ? round1(times[Math.min(times.length - 1, Math.floor(times.length * p))]) : Number.NaN);
    return { rate: Math.round(Number(m[1])), p50: q(0.5), p99: q(0.99), count: times.length, errors };
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}
