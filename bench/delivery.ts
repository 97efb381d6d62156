// npm run bench:delivery — change events fanned out to webhooks, in one run, on this machine:
// BENCH_EVENTS change events (default 10,000) written in loads of 100 through writeChangeEvents,
// to BENCH_WEBHOOKS webhooks (default 100) subscribed to them, all served by one local receiver
// (this process; a path per webhook), sent by `landlex serve`'s in-process dispatcher
// (WEBHOOK_CONCURRENCY, default 16). Two rounds on fresh databases: every receiver healthy, then
// a quarter answering 500 to every call. Prints deliveries/s and the lag from an event's commit
// to its first attempt (p50, p99) over the healthy webhooks; the goal: healthy lag p99 of the
// second round within 1.5× of the first. Not a test: figures.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { orgCreate } from '../bin/org.ts';
import { stableId } from '../core/ids.ts';
import { writeChangeEvents } from '../store/changes.ts';
import { createPool, withTransaction } from '../store/db.ts';
import { freshDatabase } from '../test/helpers/databases.ts';
import { eventDraft } from '../test/helpers/feed.ts';
import { freePort } from '../test/helpers/process.ts';
import { serveProcess } from './wrk.ts';

const EVENTS = Number(process.env.BENCH_EVENTS ?? 10_000);
const WEBHOOKS = Number(process.env.BENCH_WEBHOOKS ?? 100);
const CONCURRENCY = process.env.WEBHOOK_CONCURRENCY ?? '16';
const PER_LOAD = 100;

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] : Number.NaN;
};

interface Round {
  label: string;
  seconds: number;
  deliveries: number;
  rate: number;
  p50: number;
  p99: number;
  failingCalls: number;
}

async function round(label: string, failingShare: number): Promise<Round> {
  const db = await freshDatabase(`bench_delivery_${label}`);
  const pool = createPool(db.url, { max: 4 });
  const failing = Math.floor(WEBHOOKS * failingShare);
  // the receiver: /h/<n>; the first `failing` answer 500 to everything
  const commitAt = new Map<number, number>();
  const firstAt = new Map<string, { seq: number; at: number }>();
  let healthyDone = 0;
  let failingCalls = 0;
  const healthyWanted = (WEBHOOKS - failing) * EVENTS;
  let allDone: () => void = () => {};
  const done = new Promise<void>((r) => {
    allDone = r;
  });
  const receiver = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const n = Number(req.url?.split('/')[2]);
      const id = String(req.headers['webhook-id']);
      if (!firstAt.has(id)) firstAt.set(id, { seq: JSON.parse(Buffer.concat(chunks).toString('utf8')).seq, at: Date.now() });
      if (n < failing) {
        failingCalls++;
        res.writeHead(500).end('failing on purpose');
        return;
      }
      res.writeHead(200).end('ok');
      if (++healthyDone === healthyWanted) allDone();
    });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', () => r()));
  const rport = (receiver.address() as AddressInfo).port;
  const port = await freePort();
  const api = await serveProcess(['bin/cli.ts', 'serve', '--port', String(port)], port, { DATABASE_URL: db.url, LOG_LEVEL: 'error', RATE_LIMIT_PER_SECOND: '1000000', WEBHOOK_CONCURRENCY: CONCURRENCY });
  try {
    const org = await orgCreate(pool, { name: `Bench ${label}`, credits: 10 });
    const healthyIds = new Set<string>();
    for (let n = 0; n < WEBHOOKS; n++) {
      const res = await fetch(`http://127.0.0.1:${port}/webhook`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': org.api_key },
        body: JSON.stringify({ url: `http://127.0.0.1:${rport}/h/${n}`, event_type: ['law.district.amendment'], retry_policy: { backoff: 'exponential', base_seconds: 2, max_attempt: 5 } }),
      });
      if (res.status !== 201) throw new Error(`POST /webhook answered ${res.status}: ${await res.text()}`);
      const w = (await res.json()) as { id: string };
      if (n >= failing) healthyIds.add(w.id);
    }
    const fips = 'us:cousub:2501799999';
    const jur = stableId('jurisdiction', fips);
    await pool.query(
      `INSERT INTO jurisdiction (id, slug, name, type, level, fips_state, fips_county, fips_cousub, fips_key, state_postal)
       VALUES ($1, 'benchton-ma', 'Benchton', 'town', 'cousub', '25', '017', '99999', $2, 'MA')`,
      [jur, fips],
    );
    const started = Date.now();
    for (let i = 0; i < EVENTS; i += PER_LOAD) {
      const ns = Array.from({ length: Math.min(PER_LOAD, EVENTS - i) }, (_, k) => i + k + 1);
      await withTransaction(pool, (c) => writeChangeEvents(c, ns.map((n) => eventDraft(jur, label, n, 'amendment')), new Date()));
      const at = Date.now();
      const { rows } = await pool.query(`SELECT seq FROM change_event WHERE field_path = ANY($1)`, [ns.map((n) => `district.R-${n}.${label}`)]);
      for (const r of rows) commitAt.set(Number(r.seq), at);
    }
    const wrote = (Date.now() - started) / 1000;
    let limit: NodeJS.Timeout | undefined;
    const late = new Promise((_, reject) => {
      limit = setTimeout(() => reject(new Error(`healthy deliveries not done in 30 min (${healthyDone} of ${healthyWanted})`)), 30 * 60_000);
    });
    await Promise.race([done, late]).finally(() => clearTimeout(limit)); // the process ends when the run does
    const seconds = (Date.now() - started) / 1000;
    // lag over the healthy webhooks' deliveries: first arrival minus its event's commit
    const { rows } = await pool.query(`SELECT d.id FROM webhook_delivery d WHERE d.webhook_id = ANY($1)`, [[...healthyIds]]);
    const lags = rows.map((r) => firstAt.get(r.id)).filter((x): x is { seq: number; at: number } => Boolean(x)).map((x) => x.at - commitAt.get(x.seq)!);
    console.log(`${label}: wrote ${EVENTS} events in ${wrote.toFixed(1)} s; ${healthyWanted} healthy deliveries in ${seconds.toFixed(1)} s`);
    return { label, seconds, deliveries: healthyWanted, rate: healthyWanted / seconds, p50: pct(lags, 50), p99: pct(lags, 99), failingCalls };
  } finally {
    await api.stop();
    receiver.closeAllConnections();
    receiver.close();
    await pool.end();
    await db.drop();
  }
}

async function main() {
  console.log(`bench:delivery — ${EVENTS} change events to ${WEBHOOKS} webhooks, WEBHOOK_CONCURRENCY ${CONCURRENCY}`);
  const healthy = await round('healthy', 0);
  const quarter = await round('quarter_failing', 0.25);
  const row = (r: Round) =>
    `${r.label.padEnd(16)} ${String(r.deliveries).padStart(9)} ${r.seconds.toFixed(1).padStart(8)} ${r.rate.toFixed(0).padStart(8)} ${(r.p50 / 1000).toFixed(2).padStart(8)} ${(r.p99 / 1000).toFixed(2).padStart(8)} ${String(r.failingCalls).padStart(9)}`;
  console.log('\nround            healthy    seconds  deliv/s  lag p50  lag p99  failing calls');
  console.log(row(healthy));
  console.log(row(quarter));
  const ratio = quarter.p99 / healthy.p99;
  console.log(`\nhealthy lag p99, quarter failing / all healthy: ${ratio.toFixed(2)}× (goal ≤ 1.5×) ${ratio <= 1.5 ? 'met' : 'NOT met'}`);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
