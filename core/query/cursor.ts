// Opaque keyset cursors: base64url(JSON) + "." + base64url(HMAC-SHA256). A cursor carries the
// last row's sort values and id, the sort and filter it belongs to, the snapshot the first page
// was pinned to and when it was issued. Clients must not read it; they cannot alter it.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { ApiError, invalid } from '../errors.ts';

/** How long a cursor is honoured after it was issued (spec 8 leaves it open). */
export const CURSOR_RETENTION_SECONDS = 24 * 3600;

export interface CursorPayload {
  v: 1;
  /** resource name */
  r: string;
  /** sort text (e.g. "-population,name") */
  s: string;
  /** filter signature: hash of the compiled conditions and their values */
  f: string;
  /** last row's sort values as text (null for NULL), then its id */
  k: Array<string | null>;
  id: string;
  /** snapshot instant (ISO, UTC) the walk is pinned to */
  t: string;
  /** issued at, seconds since the epoch */
  i: number;
  /** rows served before this cursor's page in its walk (OGC items are priced by it) */
  n?: number;
}

function mac(body: string, secret: Buffer): Buffer {
  return createHmac('sha256', secret).update('landlex-cursor-v1\n').update(body).digest();
}

export function signCursor(p: CursorPayload, secret: Buffer): string {
  const body = Buffer.from(JSON.stringify(p)).toString('base64url');
  return `${body}.${mac(body, secret).toString('base64url')}`;
}

const tampered = () => invalid('cursor', 'This cursor was not issued by this service or was altered; use next_cursor as given, or start again without cursor.');

/** Reads a cursor without checking it (tests and diagnostics only). */
export function peekCursor(cursor: string): CursorPayload {
  return JSON.parse(Buffer.from(cursor.split('.')[0], 'base64url').toString('utf8'));
}

/** Verify the signature and shape; expiry and fit to the request are checked by checkCursor. */
export function openCursor(cursor: string, secret: Buffer): CursorPayload {
  const [body, sig, extra] = cursor.split('.');
  if (!body || !sig || extra !== undefined || cursor.length > 8192) throw tampered();
  const given = Buffer.from(sig, 'base64url');
  const want = mac(body, secret);
  if (given.length !== want.length || !timingSafeEqual(given, want)) throw tampered();
  let p: CursorPayload;
  try {
    p = JSON.parse(Buffer.from(body, 'base64url').toString('utf8'));
  } catch {
    throw tampered();
  }
  if (p?.v !== 1 || !Array.isArray(p.k) || typeof p.id !== 'string' || typeof p.i !== 'number' || typeof p.t !== 'string') throw tampered();
  return p;
}

export interface CursorExpectation {
  resource: string;
  sort: string;
  filter: string;
  now?: Date;
  retentionSeconds?: number;
}

/** The cursor belongs to this walk: same resource, not expired, same sort, same filters. */
export function checkCursor(p: CursorPayload, e: CursorExpectation): void {
  if (p.r !== e.resource) throw invalid('cursor', `This cursor belongs to another list (${p.r}).`);
  const now = (e.now ?? new Date()).getTime() / 1000;
  const retention = e.retentionSeconds ?? CURSOR_RETENTION_SECONDS;
  if (now - p.i > retention) {
    throw new ApiError('cursor_expired', { field: 'cursor', detail: `Cursors are honoured for ${retention / 3600} hours; this one is older. Restart from the first page.` });
  }
  if (p.s !== e.sort) {
    throw new ApiError('cursor_sort_mismatch', { field: 'sort', detail: `This cursor belongs to sort=${p.s}; this request sorts by ${e.sort}. Send the same sort, or restart without cursor.` });
  }
  if (p.f !== e.filter) {
    throw invalid('cursor', 'This cursor belongs to other filters or parameters; a cursor is used with the same request as the page that gave it. Restart without cursor to change them.');
  }
}
