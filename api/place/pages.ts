// Pages of a list worked out whole and served in pieces (the classifications at a place, a
// government's legend), with the signed cursors of the collections (core/query/cursor.ts).
// A cursor pins the walk's valid date and knowledge instant, so every page reads the same list,
// and names the last row served; the next page starts after it.
import { createHash } from 'node:crypto';
import { invalid } from '../../core/errors.ts';
import { checkCursor, openCursor, signCursor } from '../../core/query/cursor.ts';

export interface ListWalk {
  /** the resource the cursor belongs to */
  resource: string;
  /** the list's order, as cursors name a sort */
  order: string;
  /** hash of the parameters that decide the list */
  filter: string;
}

/** The hash of the parameters (by name) that decide a list: a cursor is used with the same ones. */
export function listSignature(params: Record<string, unknown>, names: string[]): string {
  const picked = names.map((n) => [n, params[n] ?? null]);
  return createHash('sha256').update(JSON.stringify(picked)).digest('base64url').slice(0, 22);
}

/** The date and instant a cursor pinned, and the id of the last row it served. */
export function continueWalk(raw: string | undefined, secret: Buffer, walk: ListWalk): { asOf: string; knownAsOf: string; after: string } | null {
  if (raw === undefined) return null;
  const p = openCursor(raw, secret);
  checkCursor(p, { resource: walk.resource, sort: walk.order, filter: walk.filter });
  if (p.k.length !== 1 || typeof p.k[0] !== 'string') throw invalid('cursor', 'This cursor does not fit this list; restart without cursor.');
  return { asOf: p.k[0], knownAsOf: p.t, after: p.id };
}

/** The page of `list` after the row `after` (from the start without it), and the cursor of the next page. */
export function pageAfter<T>(
  list: T[],
  idOf: (x: T) => string,
  size: number,
  after: string | null,
  next: { walk: ListWalk; asOf: string; knownAsOf: string; secret: Buffer },
): { page: T[]; nextCursor: string | null } {
  let start = 0;
  if (after !== null) {
    const i = list.findIndex((x) => idOf(x) === after);
    if (i < 0) throw invalid('cursor', 'The row this cursor continues after is not in the list; restart without cursor.');
    start = i + 1;
  }
  const page = list.slice(start, start + size);
  if (start + size >= list.length) return { page, nextCursor: null };
  const last = idOf(page[page.length - 1]);
  const w = next.walk;
  const nextCursor = signCursor({ v: 1, r: w.resource, s: w.order, f: w.filter, k: [next.asOf], id: last, t: next.knownAsOf, i: Math.floor(Date.now() / 1000) }, next.secret);
  return { page, nextCursor };
}
