// Credit leased to this process in blocks and spent in memory, so a busy organization's calls
// do not all queue on one balance row. Leases are taken with a conditional UPDATE that can never
// take the balance below zero; spends are written in batches; unspent credit goes back when a
// lease retires, when the process stops, or (if the process died) when the lease expires.
import { inBackground } from '../../core/background.ts';
import type { Logger } from '../../core/log.ts';
import { withTransaction, type Pool } from '../../store/db.ts';
import type { Reservation } from './types.ts';

interface Lease {
  id: number;
  organizationId: string;
  remaining: number; // not reserved, not spent
  outstanding: number; // reserved by calls in flight
  unflushed: number; // spent, not yet written
  expiresAt: number; // ms epoch
  retired: boolean;
}

interface Held extends Reservation {
  lease: Lease;
}

export interface BankOptions {
  holder: string;
  block: number;
  leaseSeconds: number;
  log: Logger;
  /** ask the other processes to give back this organization's unspent leased credit */
  recall?: (organizationId: string) => Promise<void>;
}

const RECALL_ATTEMPTS = 5;
const RECALL_WAIT_MS = 40;

/**
 * A holder stops spending from a lease a quarter of its length before it expires (15 s of the
 * default 60 s); others settle a lease left by a holder that died half its length after it
 * expired (30 s), time enough for the holder's last spends to be written.
 */
const stopMarginMs = (leaseSeconds: number) => (leaseSeconds * 1000) / 4;
export const sweepGraceSeconds = (leaseSeconds: number) => leaseSeconds / 2;

export class CreditBank {
  private active = new Map<string, Lease>();
  private leases = new Set<Lease>();
  private locks = new Map<string, Promise<unknown>>();

  constructor(private pool: Pool, private opts: BankOptions) {}

  async reserve(organizationId: string, credits: number): Promise<Reservation | null> {
    const fast = this.take(organizationId, credits);
    if (fast) return fast;
    return this.serialized(organizationId, async () => {
      const again = this.take(organizationId, credits);
      if (again) return again;
      const old = this.active.get(organizationId);
      if (old) await this.retire(old);
      let lease = await this.lease(organizationId, credits);
      // Other processes may hold unspent credit of this organization: ask them for it back.
      for (let attempt = 0; !lease && attempt < RECALL_ATTEMPTS && (await this.heldElsewhere(organizationId)); attempt++) {
        await this.opts.recall?.(organizationId);
        await new Promise((r) => setTimeout(r, RECALL_WAIT_MS));
        lease = await this.lease(organizationId, credits);
      }
      if (!lease) return null;
      this.active.set(organizationId, lease);
      return this.take(organizationId, credits);
    });
  }

  commit(r: Reservation): void {
    const { lease, credits } = r as Held;
    lease.outstanding -= credits;
    lease.unflushed += credits;
  }

  release(r: Reservation): void {
    const { lease, credits } = r as Held;
    lease.outstanding -= credits;
    lease.remaining += credits;
    // a failed return leaves the credit in the lease: settling it gives back amount - spent
    if (lease.retired) inBackground(this.opts.log, 'credit return', () => this.returnRemaining(lease));
  }

  /** Spends not yet written, by lease: the usage writer records them with the ledger. */
  drainSpends(): Array<{ leaseId: number; organizationId: string; credits: number }> {
    const out = [];
    for (const lease of this.leases) {
      if (lease.unflushed > 0) {
        out.push({ leaseId: lease.id, organizationId: lease.organizationId, credits: lease.unflushed });
        lease.unflushed = 0;
      }
    }
    return out;
  }

  /** Another process asked for this organization's credit: stop spending it and give it back. */
  async surrender(organizationId: string): Promise<void> {
    const lease = this.active.get(organizationId);
    if (lease) await this.serialized(organizationId, () => this.retire(lease));
  }

  /** A batch failed to write: its spends wait for the next one. */
  restoreSpend(leaseId: number, credits: number): void {
    for (const lease of this.leases) if (lease.id === leaseId) lease.unflushed += credits;
  }

  /** Retire leases near expiry (their unspent credit goes back) and forget settled ones. */
  async maintain(now = Date.now()): Promise<void> {
    for (const lease of [...this.leases]) {
      if (!lease.retired && now >= lease.expiresAt - stopMarginMs(this.opts.leaseSeconds)) {
        await this.serialized(lease.organizationId, () => this.retire(lease));
      }
      if (lease.retired && lease.outstanding === 0 && lease.unflushed === 0) await this.settle(lease);
    }
  }

  /** Give back everything unspent (shutdown); the caller flushes spends first. */
  async closeAll(): Promise<void> {
    for (const lease of [...this.leases]) {
      lease.retired = true;
      if (this.active.get(lease.organizationId) === lease) this.active.delete(lease.organizationId);
      await this.settle(lease);
    }
  }

  private async heldElsewhere(organizationId: string): Promise<boolean> {
    const { rows } = await this.pool.query(
      `SELECT 1 FROM credit_lease WHERE organization_id = $1 AND settled_at IS NULL AND holder <> $2 AND amount > spent LIMIT 1`,
      [organizationId, this.opts.holder],
    );
    return rows.length > 0;
  }

  private take(organizationId: string, credits: number): Held | null {
    const lease = this.active.get(organizationId);
    if (!lease || lease.retired || lease.remaining < credits || Date.now() >= lease.expiresAt - stopMarginMs(this.opts.leaseSeconds)) return null;
    lease.remaining -= credits;
    lease.outstanding += credits;
    return { organizationId, credits, lease };
  }

  private async serialized<T>(key: string, fn: () => Promise<T>): Promise<T> {
    const prior = this.locks.get(key) ?? Promise.resolve();
    const next = prior.then(fn, fn);
    this.locks.set(key, next.catch(() => {}));
    return next;
  }

  /** Lease min(block, max(need, available/4)) when available covers need; null when it does not. */
  private async lease(organizationId: string, need: number): Promise<Lease | null> {
    const { rows } = await withTransaction(this.pool, (c) =>
      c.query(
        `WITH cur AS (
           SELECT available, LEAST($2::bigint, GREATEST($3::bigint, available / 4)) AS amount
             FROM credit_account WHERE organization_id = $1 FOR UPDATE),
         taken AS (
           UPDATE credit_account a SET available = a.available - cur.amount, updated_at = now()
             FROM cur WHERE a.organization_id = $1 AND cur.available >= $3
           RETURNING cur.amount)
         INSERT INTO credit_lease (organization_id, holder, amount, expires_at)
         SELECT $1, $4, amount, now() + make_interval(secs => $5) FROM taken
         RETURNING id, amount, expires_at`,
        [organizationId, Math.max(this.opts.block, need), need, this.opts.holder, this.opts.leaseSeconds],
      ),
    );
    if (!rows[0]) return null;
    const lease: Lease = {
      id: Number(rows[0].id),
      organizationId,
      remaining: Number(rows[0].amount),
      outstanding: 0,
      unflushed: 0,
      expiresAt: new Date(rows[0].expires_at).getTime(),
      retired: false,
    };
    this.leases.add(lease);
    return lease;
  }

  private async retire(lease: Lease): Promise<void> {
    lease.retired = true;
    if (this.active.get(lease.organizationId) === lease) this.active.delete(lease.organizationId);
    await this.returnRemaining(lease);
  }

  /** Shrink the lease by what is neither reserved nor spent, and make it available again. */
  private async returnRemaining(lease: Lease): Promise<void> {
    const back = lease.remaining;
    if (back <= 0) return;
    lease.remaining = 0;
    await withTransaction(this.pool, async (c) => {
      const shrunk = await c.query(
        `UPDATE credit_lease SET amount = amount - $2 WHERE id = $1 AND settled_at IS NULL AND amount - $2 >= spent RETURNING id`,
        [lease.id, back],
      );
      if (shrunk.rowCount) {
        await c.query('UPDATE credit_account SET available = available + $2, updated_at = now() WHERE organization_id = $1', [lease.organizationId, back]);
      }
    });
  }

  /** Close the lease: whatever it holds beyond its recorded spend goes back to available. */
  private async settle(lease: Lease): Promise<void> {
    if (lease.outstanding > 0 || lease.unflushed > 0) return;
    await withTransaction(this.pool, async (c) => {
      const { rows } = await c.query(
        `UPDATE credit_lease SET settled_at = now() WHERE id = $1 AND settled_at IS NULL RETURNING amount - spent AS back`,
        [lease.id],
      );
      const back = Number(rows[0]?.back ?? 0);
      if (back > 0) {
        await c.query('UPDATE credit_account SET available = available + $2, updated_at = now() WHERE organization_id = $1', [lease.organizationId, back]);
      }
    });
    lease.remaining = 0;
    this.leases.delete(lease);
  }
}

/** Settle leases whose holder stopped without settling them (crash): run by every process, with the lease length it uses. */
export async function sweepExpiredLeases(pool: Pool, leaseSeconds = 60): Promise<number> {
  return withTransaction(pool, async (c) => {
    const { rows } = await c.query(
      `WITH gone AS (
         UPDATE credit_lease SET settled_at = now()
          WHERE settled_at IS NULL AND expires_at < now() - make_interval(secs => $1)
         RETURNING organization_id, amount - spent AS back)
       UPDATE credit_account a SET available = a.available + s.back, updated_at = now()
         FROM (SELECT organization_id, sum(back) AS back FROM gone GROUP BY organization_id) s
        WHERE a.organization_id = s.organization_id
       RETURNING a.organization_id`,
      [sweepGraceSeconds(leaseSeconds)],
    );
    return rows.length;
  });
}
