// What OGC items cost: a walk of pages is priced like an extract of the same features, one credit
// per 1,000 features (activities/extract/plan.ts), whatever the page size. The features of a walk
// are counted in blocks of 1,000 from its first page; a page is charged for each block it serves
// a feature of, and a block charged to the organization in the last 24 hours is free again, so a
// block spread over several pages (GDAL's first pages of 10) is charged once, and a client that
// probes a first page and then walks the collection pays for the walk only.
import type { Price } from '../api/route.ts';
import { ROWS_PER_CREDIT } from '../activities/extract/plan.ts';

export const FEATURES_PER_CREDIT = ROWS_PER_CREDIT;
export const REPEAT_FREE_HOURS = 24;

export const ITEMS_PRICE: Price = {
  credits: 1,
  per: 'item',
  repeatFreeHours: REPEAT_FREE_HOURS,
  note:
    `One credit per ${FEATURES_PER_CREDIT.toLocaleString('en-US')} features of a walk of pages, whatever the page size, as an extract of them costs: ` +
    `a page is charged one credit for each block of ${FEATURES_PER_CREDIT.toLocaleString('en-US')} features (counted from the walk's first page) it serves a feature of, ` +
    `and a block charged in the last ${REPEAT_FREE_HOURS} hours is free again (so a first page read twice, as GIS clients do when they open a layer, costs once). An empty page is free.`,
};

export const FEATURE_PRICE: Price = { credits: 1, per: 'call', note: 'One credit per feature asked by id.' };

/**
 * The charge keys of a page serving features [from, from + count) of its walk: one per block of
 * FEATURES_PER_CREDIT features it touches. `walk` names the collection and the selection.
 */
export function blockKeys(walk: string, from: number, count: number): string[] {
  if (count <= 0) return [];
  const first = Math.floor(from / FEATURES_PER_CREDIT);
  const last = Math.floor((from + count - 1) / FEATURES_PER_CREDIT);
  return Array.from({ length: last - first + 1 }, (_, i) => `${walk}:${first + i}`);
}
