// The Meter over PostgreSQL: credit from leases (bank.ts), usage and spends written in batches
// with a ledger entry per organization per batch, token buckets (rate.ts) and repeat-free charge claims.

import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { inBackground } from '../../core/background.ts';
import type { Logger } from '../../core/log.ts';
import { type Pool, withTransaction } from '../../store/db.ts';
import type { PgListener } from '../../store/listen.ts';
import { CreditBank, sweepExpiredLeases } from './bank.ts';
import { RateBuckets, SWEEP_SQL } from './rate.ts';
import type { Meter, Reservation, UsageRecord } from './types.ts';

const RECALL_CHANNEL = 'landlex_credit_recall';

export interface MeterOptions {
  leaseBlock: number;
  listen: PgListener;
  log: Logger;
  leaseSeconds?: number;
  flushMs?: number;
}

export function createMeter(pool: Pool, opts: MeterOptions): Meter {
  const holder = `${hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`;
  const recall = async (org: string) => {
    await pool.query('SELECT pg_notify($1, $2)', [RECALL_CHANNEL, JSON.stringify({ org, from: holder })]);
  };
  const leaseSeconds = opts.leaseSeconds ?? 60;
  const bank = new CreditBank(pool, { holder, block: opts.leaseBlock, leaseSeconds, log: opts.log, recall });
  // Recalls from other processes arrive on the process's shared listen connection.
  void opts.listen
    .on(RECALL_CHANNEL, (payload) => {
      try {
        const { org, from } = JSON.parse(payload || '{}');
        if (from !== holder) inBackground(opts.log, 'credit surrender', () => bank.surrender(org));
      } catch {
        /* not ours */
      }
    })
    .catch((err) => opts.log.error('credit recall listener failed', { err }));
  let usage: UsageRecord[] = [];
  let chain: Promise<void> = Promise.resolve();
  let closed = false;

  /** Write usage rows, spends, ledger entries and key counters; one transaction. */
  const writeBatch = async () => {
    const rows = usage;
    usage = [];
    const spends = bank.drainSpends();
    if (rows.length === 0 && spends.length === 0) return;
    try {
      await withTransaction(pool, async (c) => {
        if (rows.length > 0) {
          await c.query(
            `INSERT INTO usage_event (organization_id, key_id, person_id, request_id, endpoint, status, credits, at)
             SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::int[], $7::bigint[], $8::timestamptz[])`,
            [
              rows.map((r) => r.organizationId),
              rows.map((r) => r.keyId ?? null),
              rows.map((r) => r.personId ?? null),
              rows.map((r) => r.requestId),
              rows.map((r) => r.endpoint),
              rows.map((r) => r.status),
              rows.map((r) => r.credits),
              rows.map((r) => r.at.toISOString()),
            ],
          );
          const byKey = new Map<string, { n: number; at: string }>();
          for (const r of rows) {
            if (!r.keyId) continue;
            const k = byKey.get(r.keyId) ?? { n: 0, at: r.at.toISOString() };
            k.n += 1;
            if (r.at.toISOString() > k.at) k.at = r.at.toISOString();
            byKey.set(r.keyId, k);
          }
          if (byKey.size > 0) {
            await c.query(
              `UPDATE api_key k SET usage_count = k.usage_count + d.n, last_used_at = GREATEST(k.last_used_at, d.at)
                 FROM unnest($1::text[], $2::int[], $3::timestamptz[]) AS d(id, n, at) WHERE k.id = d.id`,
              [[...byKey.keys()], [...byKey.values()].map((v) => v.n), [...byKey.values()].map((v) => v.at)],
            );
          }
        }
        const byOrg = new Map<string, number>();
        for (const s of spends) {
          const hit = await c.query('UPDATE credit_lease SET spent = spent + $2 WHERE id = $1 AND settled_at IS NULL RETURNING id', [s.leaseId, s.credits]);
          if (!hit.rowCount) {
            // The lease was settled by a sweeper while we held it: take the spend from available.
            await c.query('UPDATE credit_account SET available = GREATEST(available - $2, 0) WHERE organization_id = $1', [s.organizationId, s.credits]);
          }
          byOrg.set(s.organizationId, (byOrg.get(s.organizationId) ?? 0) + s.credits);
        }
        for (const [org, credits] of byOrg) {
          const calls = rows.filter((r) => r.organizationId === org && r.credits > 0).length;
          const { rows: b } = await c.query(
            'UPDATE credit_account SET balance = balance - $2, updated_at = now() WHERE organization_id = $1 RETURNING balance',
            [org, credits],
          );
          await c.query(
            `INSERT INTO credit_ledger (organization_id, kind, amount, balance_after, detail) VALUES ($1, 'usage', $2, $3, $4)`,
            [org, -credits, b[0].balance, { calls, credits }],
          );
        }
      });
    } catch (err) {
      opts.log.error('usage write failed; will retry', { err });
      usage = rows.concat(usage);
      // spends are re-queued by recording them as unflushed again
      for (const s of spends) bank.restoreSpend(s.leaseId, s.credits);
    }
  };

  const serialized = (fn: () => Promise<void>) => {
    chain = chain.then(fn, fn);
    return chain;
  };
  const flush = () => serialized(writeBatch);
  const tick = () => serialized(async () => {
    await writeBatch();
    await bank.maintain();
  });

  // each tick's failure is logged; the next tick tries again (spends and usage are kept for it)
  const timer = setInterval(() => inBackground(opts.log, 'usage write and lease upkeep', tick), opts.flushMs ?? 250);
  timer.unref();
  const sweeper = setInterval(() => {
    inBackground(opts.log, 'lease sweep', () => sweepExpiredLeases(pool, leaseSeconds));
    inBackground(opts.log, 'rate bucket sweep', () => pool.query(SWEEP_SQL));
  }, Math.min(10_000, (leaseSeconds * 1000) / 4));
  sweeper.unref();

  const buckets = new RateBuckets(pool);

  return {
    reserve: (org, credits) => bank.reserve(org, credits),
    commit: (r: Reservation) => bank.commit(r),
    release: (r: Reservation) => bank.release(r),
    record(u) {
      usage.push(u);
      if (usage.length >= 500) inBackground(opts.log, 'usage write', flush);
    },
    async claimCharges(org, keys, hours) {
      if (keys.length === 0) return [];
      const { rows } = await pool.query(
        `INSERT INTO charge_memo (organization_id, charge_key, charged_at)
         SELECT $1, k, now() FROM unnest($2::text[]) AS k
         ON CONFLICT (organization_id, charge_key) DO UPDATE SET charged_at = now()
          WHERE charge_memo.charged_at <= now() - make_interval(hours => $3)
         RETURNING charge_key`,
        [org, keys, hours],
      );
      return rows.map((r) => r.charge_key);
    },
    async unclaimCharges(org, keys) {
      if (keys.length === 0) return;
      await pool.query('DELETE FROM charge_memo WHERE organization_id = $1 AND charge_key = ANY($2::text[])', [org, keys]);
    },
    hit: (subject, policy) => buckets.take(subject, policy),
    rateClaims: () => buckets.claims,
    flush,
    async close() {
      if (closed) return;
      closed = true;
      clearInterval(timer);
      clearInterval(sweeper);
      await serialized(async () => {
        await writeBatch();
        await bank.closeAll();
      });
    },
  };
}
