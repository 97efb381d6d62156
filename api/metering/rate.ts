// Token buckets per credential, shared by every API process through PostgreSQL (rate_bucket,
// migration 023). A process claims tokens in blocks with one statement and spends them locally,
// so at tile rates a call is rarely a round trip: one claim at a time per subject, sized to the
// calls waiting for it. Tokens a process holds are dropped a second after their claim, and an
// empty bucket is not asked again until a block has refilled.
import type { Queryable } from '../../store/db.ts';
import type { RateDecision, RatePolicy } from './types.ts';

/** Tokens held locally are spent within this long of their claim or dropped. */
const HOLD_MS = 1000;

interface Local {
  left: number;
  heldUntil: number;
  /** the shared bucket was drained by the last claim: refuse here until a block has refilled */
  emptyUntil: number;
  /** tokens left in the shared bucket after the last claim, and when (ms) */
  shared: number;
  sharedAt: number;
  claim: Promise<void> | null;
  waiting: number;
}

/** Tokens a claim asks at least: an eighth of a second's refill (at most the burst). */
export const blockOf = (p: RatePolicy) => Math.max(1, Math.ceil(Math.min(p.burst, p.perSecond) / 8));

// now() is the statement's start: a claim waiting on another's row lock counts from its own start,
// which can only find fewer tokens, never more. A thousandth of a token keeps whole tokens whole through float arithmetic.
const CLAIM_SQL = `
  WITH p AS (SELECT extract(epoch FROM now())::float8 AS now, $2::int AS want, $3::int AS burst, $4::float8 AS rate)
  INSERT INTO rate_bucket AS b (subject, full_at, granted)
  SELECT $1, p.now + LEAST(p.want, p.burst) / p.rate, LEAST(p.want, p.burst) FROM p
  ON CONFLICT (subject) DO UPDATE SET
    granted = (SELECT LEAST(p.want, GREATEST(0, floor(p.burst - GREATEST(0, b.full_at - p.now) * p.rate + 1e-3)))::int FROM p),
    full_at = (SELECT GREATEST(b.full_at, p.now) + LEAST(p.want, GREATEST(0, floor(p.burst - GREATEST(0, b.full_at - p.now) * p.rate + 1e-3))) / p.rate FROM p)
  RETURNING granted, (SELECT p.burst - (b.full_at - p.now) * p.rate FROM p) AS tokens`;

export class RateBuckets {
  private local = new Map<string, Local>();
  /** claims sent to the database, for measurement */
  claims = 0;

  constructor(private db: Queryable) {}

  private async claim(subject: string, l: Local, policy: RatePolicy) {
    const want = Math.min(policy.burst, Math.max(blockOf(policy), l.waiting));
    this.claims += 1;
    const { rows } = await this.db.query(CLAIM_SQL, [subject, want, policy.burst, policy.perSecond]);
    const granted = Number(rows[0].granted);
    const tokens = Number(rows[0].tokens);
    const now = Date.now();
    l.left += granted;
    l.heldUntil = now + HOLD_MS;
    l.shared = Math.max(0, tokens);
    l.sharedAt = now;
    // drained: wait here until a block has refilled rather than asking for each token
    if (granted < want) l.emptyUntil = now + (Math.max(0, blockOf(policy) - tokens) / policy.perSecond) * 1000;
  }

  private decision(l: Local, policy: RatePolicy, allowed: boolean, now: number): RateDecision {
    const shared = Math.min(policy.burst - l.left, l.shared + ((now - l.sharedAt) / 1000) * policy.perSecond);
    const remaining = allowed ? Math.max(0, Math.floor(l.left + shared + 1e-3)) : 0;
    return {
      allowed,
      retryAfterSeconds: allowed ? 0 : Math.max(1, Math.ceil(Math.max(l.emptyUntil - now, 1000 / policy.perSecond) / 1000)),
      limit: policy.burst,
      remaining,
      resetSeconds: Math.ceil((policy.burst - remaining) / policy.perSecond),
    };
  }

  /** Take one token from the subject's bucket. */
  async take(subject: string, policy: RatePolicy): Promise<RateDecision> {
    for (;;) {
      const now = Date.now();
      let l = this.local.get(subject);
      if (!l) {
        if (this.local.size >= 10_000) this.forgetIdle(now);
        l = { left: 0, heldUntil: 0, emptyUntil: 0, shared: policy.burst, sharedAt: now, claim: null, waiting: 0 };
        this.local.set(subject, l);
      }
      if (l.left > 0 && now >= l.heldUntil) l.left = 0;
      if (l.left > 0) {
        l.left -= 1;
        return this.decision(l, policy, true, now);
      }
      if (now < l.emptyUntil) return this.decision(l, policy, false, now);
      l.waiting += 1;
      if (!l.claim) {
        const entry = l;
        entry.claim = this.claim(subject, entry, policy).finally(() => {
          entry.claim = null;
        });
      }
      try {
        await l.claim;
      } finally {
        l.waiting -= 1;
      }
    }
  }

  /** Drop subjects holding nothing and not waiting (the map stays small). */
  private forgetIdle(now: number) {
    for (const [k, l] of this.local) if (!l.claim && (l.left === 0 || now >= l.heldUntil) && now >= l.emptyUntil) this.local.delete(k);
    if (this.local.size >= 10_000) this.local.clear();
  }
}

/** Buckets full again over a minute ago are the same as none. */
export const SWEEP_SQL = 'DELETE FROM rate_bucket WHERE full_at < extract(epoch FROM now()) - 60';
