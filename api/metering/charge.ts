// Charging one call: credits are taken before the answer is given and kept only if it is given.
// A 402 takes nothing, returns nothing and changes nothing; a failed call gives its credits back.
//
// A price known before the handler runs (a plain per-call price, or an estimate the route asks to
// be charged up front) is reserved first, so an empty balance costs no work. A price that depends
// on the answer (per item, or free for repeats) is settled after the handler: such a handler only
// reads, and returns what it keeps as `answer.persist`, run once the charge is secured. For a
// mutation the handler's pool refuses writes until then, so a 402 can never leave rows behind.
import { ApiError } from '../../core/errors.ts';
import type { Pool } from '../../store/db.ts';
import { checkFieldNames, selectFields } from '../fields.ts';
import type { Answer, Req } from '../route.ts';
import type { Reservation } from './types.ts';

const exhausted = (balanceHint = '') =>
  new ApiError('quota_exhausted', { detail: `The balance cannot cover this call${balanceHint}; nothing was charged. Add credit; do not retry.` });

export interface Charged {
  answer: Answer;
  cost: number;
}

/** Credits a dry run would be charged (the route's estimate, or one unit), and the estimate's item. */
export async function estimateCost(req: Req): Promise<{ cost: number; item?: unknown }> {
  const price = req.route.price;
  if (!price || price.credits === 0) return { cost: 0 };
  const est = price.per === 'item' && price.estimateUnits ? await price.estimateUnits(req) : 1;
  const { units, item } = typeof est === 'number' ? { units: est, item: undefined } : est;
  return { cost: units * price.credits, item };
}

const WRITE_SQL = /^\s*(insert|update|delete|merge|copy|truncate|create|alter|drop|grant|revoke|lock)\b|\b(insert\s+into|delete\s+from|update\s+[\w."]+(\s+(as\s+)?\w+)?\s+set)\b/i;

/** A view of the pool that refuses writes (and transactions) until `open` is called. */
export function writeGuardedPool(pool: Pool, routeId: string): { pool: Pool; open: () => void } {
  let open = false;
  const refuse = () => {
    throw new Error(`${routeId} wrote before its charge was secured: a handler charged after it answers returns its writes as answer.persist`);
  };
  const guarded = new Proxy(pool, {
    get(target, prop) {
      if (prop === 'query') {
        return (text: unknown, ...rest: unknown[]) => {
          const sql = typeof text === 'string' ? text : (text as { text?: string })?.text ?? '';
          if (!open && WRITE_SQL.test(sql)) refuse();
          return (target.query as (...a: unknown[]) => unknown)(text, ...rest);
        };
      }
      if (prop === 'connect') {
        return (...args: unknown[]) => {
          if (!open) refuse();
          return (target.connect as (...a: unknown[]) => unknown).apply(target, args);
        };
      }
      const v = Reflect.get(target, prop);
      return typeof v === 'function' ? v.bind(target) : v;
    },
  });
  return {
    pool: guarded,
    open: () => {
      open = true;
    },
  };
}

/** Names a selection will refuse, found before anything is charged (dispatch shapes the item later). */
function checkSelection(req: Req, answer?: Answer) {
  const rules = req.route.fields;
  if (!rules || req.params.field === undefined) return;
  if (!answer) {
    if (rules.known) checkFieldNames(req.params.field, [...rules.known, ...(rules.default ?? [])]);
  } else if (answer.item !== undefined) {
    selectFields(answer.item, req.params.field, rules);
  }
}

export async function answerWithCharge(req: Req, run: () => Promise<Answer>): Promise<Charged> {
  const price = req.route.price;
  const actor = req.actor;
  checkSelection(req);
  if (!price || price.credits === 0 || !actor) {
    const answer = await run();
    checkSelection(req, answer);
    if ((answer.status ?? 200) < 400) await answer.persist?.();
    return { answer, cost: 0 };
  }
  const { meter } = req.services;
  const org = actor.organizationId;

  const upfront = price.upfront ? (await estimateCost(req)).cost : price.per === 'call' && !price.repeatFreeHours ? price.credits : 0;
  const settledAfter = !price.upfront && !(price.per === 'call' && !price.repeatFreeHours);
  const held: Reservation[] = [];
  if (upfront > 0) {
    const r = await meter.reserve(org, upfront);
    if (!r) throw exhausted();
    held.push(r);
  }
  let claimed: string[] = [];
  const services = req.services;
  const guard = settledAfter && req.route.method !== 'GET' ? writeGuardedPool(services.pool, req.route.id) : null;
  try {
    if (guard) req.services = { ...services, pool: guard.pool };
    let answer: Answer;
    try {
      answer = await run();
    } finally {
      req.services = services;
    }
    if ((answer.status ?? 200) >= 400) {
      for (const r of held) meter.release(r);
      held.length = 0;
      return { answer, cost: 0 };
    }
    checkSelection(req, answer);
    let cost = upfront;
    if (!price.upfront) {
      const keys = answer.charge?.keys ?? [];
      let units = price.per === 'item' ? (answer.charge?.units ?? keys.length) : 1;
      if (price.repeatFreeHours && keys.length > 0) {
        claimed = await meter.claimCharges(org, [...new Set(keys)], price.repeatFreeHours);
        units = price.per === 'item' ? claimed.length : claimed.length > 0 ? 1 : 0;
      }
      cost = units * price.credits;
      const extra = cost - upfront;
      if (extra > 0) {
        const r = await meter.reserve(org, extra);
        if (!r) throw exhausted(` (${cost} credits)`);
        held.push(r);
      }
    }
    // the charge is secured: what the answer keeps is written now, and only now
    guard?.open();
    await answer.persist?.();
    for (const r of held) meter.commit(r);
    return { answer, cost };
  } catch (err) {
    for (const r of held) meter.release(r);
    await meter.unclaimCharges(org, claimed).catch(() => {});
    throw err;
  }
}
