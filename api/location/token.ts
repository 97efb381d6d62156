// Location tokens: a resolved location, signed, valid for a day. Stateless: any API process can
// read one. Form: loc_<payload>.<signature>, both base64url.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { invalid } from '../../core/errors.ts';
import type { Grain } from '../../store/place/resolve.ts';

export const TOKEN_HOURS = 24;

export interface TokenPayload {
  /** the shape, when the location is not whole parcels (those are read again by id) */
  geojson: string | null;
  parcels: string[];
  jurisdiction: string | null;
  grain: Grain;
  input: string;
  /** the point asked, when the location was given as one (its districts come first) */
  point?: string | null;
  exp: number; // seconds since epoch
}

const sign = (secret: Buffer, body: string) => createHmac('sha256', secret).update(`loc:${body}`).digest().subarray(0, 18).toString('base64url');

export function issueToken(secret: Buffer, p: Omit<TokenPayload, 'exp'>, now = Date.now()): { token: string; expiresAt: string } {
  const exp = Math.floor(now / 1000) + TOKEN_HOURS * 3600;
  const body = Buffer.from(JSON.stringify({ ...p, exp })).toString('base64url');
  return { token: `loc_${body}.${sign(secret, body)}`, expiresAt: new Date(exp * 1000).toISOString() };
}

export function readToken(secret: Buffer, token: string, now = Date.now()): TokenPayload {
  const m = /^loc_([A-Za-z0-9_-]+)\.([A-Za-z0-9_-]+)$/.exec(token);
  if (!m) throw invalid('location_token', 'is not a location token (loc_…)');
  const expected = Buffer.from(sign(secret, m[1]));
  const got = Buffer.from(m[2]);
  if (expected.length !== got.length || !timingSafeEqual(expected, got)) throw invalid('location_token', 'was not issued by this service or has been altered');
  const p = JSON.parse(Buffer.from(m[1], 'base64url').toString('utf8')) as TokenPayload;
  if (p.exp * 1000 < now) throw invalid('location_token', `expired at ${new Date(p.exp * 1000).toISOString()}; resolve the location again`);
  return p;
}
