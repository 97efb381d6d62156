// Charging one call: credits are taken before the answer is given and kept only if it is given.
// A 402 takes nothing and returns nothing; a failed call gives its credits back.
import { ApiError } from '../../core/errors.ts';
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

export async function answerWithCharge(req: Req, run: () => Promise<Answer>): Promise<Charged> {
  const price = req.route.price;
  const actor = req.actor;
  if (!price || price.credits === 0 || !actor) return { answer: await run(), cost: 0 };
  const { meter } = req.services;
  const org = actor.organizationId;

  // A plain per-call price is taken up front, so an empty balance costs no work; so is an
  // estimate the route asks to be charged before it starts work.
  const upfront = price.upfront ? (await estimateCost(req)).cost : price.per === 'call' && !price.repeatFreeHours ? price.credits : 0;
  const held: Reservation[] = [];
  if (upfront > 0) {
    const r = await meter.reserve(org, upfront);
    if (!r) throw exhausted();
    held.push(r);
  }
  try {
    const answer = await run();
    if ((answer.status ?? 200) >= 400) {
      for (const r of held) meter.release(r);
      return { answer, cost: 0 };
    }
    if (price.upfront) {
      for (const r of held) meter.commit(r);
      return { answer, cost: upfront };
    }
    const keys = answer.charge?.keys ?? [];
    let units = price.per === 'item' ? (answer.charge?.units ?? keys.length) : 1;
    let claimed: string[] = [];
    if (price.repeatFreeHours && keys.length > 0) {
      claimed = await meter.claimCharges(org, [...new Set(keys)], price.repeatFreeHours);
      units = price.per === 'item' ? claimed.length : claimed.length > 0 ? 1 : 0;
    }
    const cost = units * price.credits;
    const extra = cost - upfront;
    if (extra > 0) {
      const r = await meter.reserve(org, extra);
      if (!r) {
        await meter.unclaimCharges(org, claimed);
        throw exhausted(` (${cost} credits)`);
      }
      held.push(r);
    }
    for (const r of held) meter.commit(r);
    return { answer, cost };
  } catch (err) {
    for (const r of held) meter.release(r);
    throw err;
  }
}
