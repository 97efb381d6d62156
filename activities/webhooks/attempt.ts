// One attempt at one delivery: lease it, POST the signed event, record the outcome. The in-process
// dispatcher and the Temporal workflow (workflows/delivery.ts) both call only this, over the same
// outbox, so what is sent and how its outcome is judged does not depend on who runs it.
import { afterFailure } from '../../core/webhooks/retry-policy.ts';
import { signedHeaders } from '../../core/webhooks/signature.ts';
import type { Pool } from '../../store/db.ts';
import type { OutboxTidier } from '../../store/webhooks/tidy.ts';
import { type AttemptEnd, type AttemptRecord, type Leased, leaseDelivery, recordAttempt } from '../../store/webhooks/deliveries.ts';

/** A call that has not answered in this long is a failed attempt (timeout). */
export const ATTEMPT_TIMEOUT_MS = 10_000;
/** A lease outlives the call's timeout by this much (time to record the outcome); a crashed sender's lease then runs out. */
const LEASE_MARGIN_SECONDS = 5;
/** How much of a receiver's answer the log keeps. */
export const EXCERPT_CHARS = 1000;
/** A receiver that answered 410 Gone is turned off; its deliveries wait until it is turned on. */
const GONE = 'The receiver answered 410 Gone: the webhook was turned off (PATCH active: true to resume).';

export type AttemptOutcome =
  | { state: 'succeeded' | 'dead_lettered' | 'finished' | 'deleted' }
  | { state: 'pending'; retryAt: string; why: string };

export interface AttemptDeps {
  pool: Pool;
  timeoutMs?: number;
  now?: () => Date;
  random?: () => number;
  /** told of every outcome recorded (the delivery table is vacuumed every so many) */
  tidy?: OutboxTidier;
}

/** The body a receiver gets: Standard Webhooks' {type, timestamp, data}, with the event id and seq. */
export function deliveryBody(d: Leased, at: Date): string {
  return JSON.stringify({ id: d.event.id, type: d.event.type, timestamp: at.toISOString(), seq: d.event.seq === null ? null : Number(d.event.seq), data: d.event.payload });
}

async function readExcerpt(res: Response): Promise<string> {
  try {
    const text = await res.text();
    return text.length > EXCERPT_CHARS ? `${text.slice(0, EXCERPT_CHARS)}…` : text;
  } catch {
    return '';
  }
}

/** POST once; never throws: every way a call can fail is an outcome. */
async function post(d: Leased, timeoutMs: number, now: Date): Promise<Omit<AttemptRecord, 'n'>> {
  const body = deliveryBody(d, now);
  const headers = { 'content-type': 'application/json', 'user-agent': 'Landlex-Webhooks/1', ...signedHeaders(d.secrets, d.id, Math.floor(now.getTime() / 1000), body) };
  const started = performance.now();
  const base = { url: d.url, startedAt: now };
  try {
    const res = await fetch(d.url, { method: 'POST', headers, body, redirect: 'manual', signal: AbortSignal.timeout(timeoutMs) });
    const excerpt = await readExcerpt(res);
    const durationMs = Math.round(performance.now() - started);
    const outcome = res.status >= 200 && res.status < 300 ? 'succeeded' : res.status === 410 ? 'gone' : 'failed';
    return { ...base, durationMs, outcome, statusCode: res.status, responseExcerpt: excerpt, error: outcome === 'failed' ? `HTTP ${res.status}` : null };
  } catch (err) {
    const durationMs = Math.round(performance.now() - started);
    const e = err as Error & { cause?: { code?: string; message?: string } };
    const timedOut = e.name === 'TimeoutError' || e.name === 'AbortError';
    const detail = timedOut ? `no answer within ${timeoutMs} ms` : [e.cause?.code, e.cause?.message ?? e.message].filter(Boolean).join(': ');
    return { ...base, durationMs, outcome: timedOut ? 'timeout' : 'refused', statusCode: null, responseExcerpt: null, error: detail.slice(0, EXCERPT_CHARS) };
  }
}

/** The lease a sender takes: the call's timeout and time to record the outcome. */
export const leaseSecondsFor = (timeoutMs: number) => Math.ceil(timeoutMs / 1000) + LEASE_MARGIN_SECONDS;

/** Send a leased delivery once and record the outcome (the lease ends with it). */
export async function sendLeased(deps: AttemptDeps, lease: Leased): Promise<AttemptOutcome> {
  const timeoutMs = deps.timeoutMs ?? ATTEMPT_TIMEOUT_MS;
  const now = deps.now ?? (() => new Date());
  const call = await post(lease, timeoutMs, now());
  const n = lease.attempt_count + 1;
  let end: AttemptEnd;
  if (call.outcome === 'succeeded') end = { state: 'succeeded' };
  else if (call.outcome === 'gone') end = { state: 'held', reason: GONE };
  else {
    const next = afterFailure(lease.policy, n, lease.event.created_at, now(), (deps.random ?? Math.random)());
    end = 'retryAt' in next ? { state: 'pending', retryAt: next.retryAt } : { state: 'dead_lettered', reason: next.deadLetter };
  }
  await recordAttempt(deps.pool, lease, { ...call, n }, end);
  deps.tidy?.noted();
  if (end.state === 'succeeded' || end.state === 'dead_lettered') return { state: end.state };
  if (end.state === 'held') return { state: 'pending', retryAt: new Date(now().getTime() + 60_000).toISOString(), why: 'inactive' };
  return { state: 'pending', retryAt: end.retryAt.toISOString(), why: call.error ?? call.outcome };
}

/** One attempt at one delivery by id (the Temporal workflow's activity): lease it if it is due, then send. */
export async function attemptDelivery(deps: AttemptDeps, id: string): Promise<AttemptOutcome> {
  const now = deps.now ?? (() => new Date());
  const lease = await leaseDelivery(deps.pool, id, leaseSecondsFor(deps.timeoutMs ?? ATTEMPT_TIMEOUT_MS));
  if ('refused' in lease) {
    if (lease.refused === 'finished' || lease.refused === 'deleted') return { state: lease.refused };
    // not yet: say when to look again (an inactive webhook's delivery waits for it to be turned on)
    const at = lease.at && lease.at > now() ? lease.at : new Date(now().getTime() + (lease.refused === 'inactive' ? 60_000 : 1_000));
    return { state: 'pending', retryAt: at.toISOString(), why: lease.refused };
  }
  return sendLeased(deps, lease);
}
