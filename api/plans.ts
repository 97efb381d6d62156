// Plans on offer and the price list, as data. The price list is read off the route table.
import type { Route } from './route.ts';

export const PLANS = [
  {
    id: 'prepaid',
    name: 'Prepaid credit',
    description: 'Buy credit ahead; each priced call spends it. The balance never goes below zero.',
    included_credits: 100,
    credit_price_usd: '0.01',
    rate_limit_per_second: null as number | null, // filled from configuration
    features: { law: 'included', records: 'included', maps: 'included', extracts: 'included' },
  },
];

export function priceList(routes: Route[]) {
  return routes
    .filter((r) => r.price)
    .map((r) => ({
      operation: `${r.method} ${r.path}`,
      credits: r.price!.credits,
      per: r.price!.per,
      repeat_free_hours: r.price!.repeatFreeHours ?? null,
      note: r.price!.note,
    }))
    .sort((a, b) => a.operation.localeCompare(b.operation));
}

/** The default price of a data call with no price of its own in the contract. */
export const ONE_CREDIT = { credits: 1, per: 'call', note: 'One credit per call.' } as const;
export const FREE = { credits: 0, per: 'call', note: 'Free.' } as const;
