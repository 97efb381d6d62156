// Identifiers: a prefix, an underscore and an opaque string (spec 2.1).
// Created resources get random ids; ingested records get ids derived from their natural key
// so that re-ingesting the same source yields the same ids.
import { createHash, hash, randomBytes } from 'node:crypto';
import { ApiError } from './errors.ts';

export const PREFIXES = {
  jurisdiction: 'jur',
  parcel: 'prc',
  property: 'pty',
  location: 'loc',
  answer: 'ans',
  request: 'req',
  citation: 'cit',
  document: 'doc',
  version: 'ver',
  correction: 'cor',
  change_event: 'chg',
  ordinance: 'ord',
  section: 'sec',
  moratorium: 'mor',
  district: 'dst',
  regional_permission: 'prm',
  authority: 'aut',
  private_restriction: 'pvr',
  map: 'map',
  extract: 'ext',
  alert: 'alr',
  webhook: 'whk',
  monitor: 'mon',
  list: 'lst',
  list_item: 'lsi',
  zoning: 'zon',
  application: 'apl',
  permit: 'pmt',
  case: 'cas',
  region: 'rgn',
  statistical_area: 'sta',
  use: 'use',
  // Landlex's own (not in the contract's table): accounts and pipeline records
  organization: 'org',
  person: 'usr',
  invitation: 'inv',
  key: 'key',
  oauth_client: 'cln',
  oauth_token: 'tok',
  oauth_grant: 'grt',
  source: 'src',
  transaction: 'txn',
  permission: 'pmn',
  control: 'ctl',
  batch: 'bat',
  delivery: 'dlv',
  webhook_event: 'evt',
  meeting: 'mtg',
} as const;

export type IdKind = keyof typeof PREFIXES;
export type Prefix = (typeof PREFIXES)[IdKind];

// Crockford base32, lower case: no i, l, o, u.
const ALPHABET = '0123456789abcdefghjkmnpqrstvwxyz';
const BODY = /^[0-9a-hjkmnp-tv-z]{10,40}$/;

function base32(bytes: Uint8Array, length: number): string {
  let out = '';
  let bits = 0;
  let value = 0;
  for (const byte of bytes) {
    value = (value << 8) | byte;
    bits += 8;
    while (bits >= 5 && out.length < length) {
      out += ALPHABET[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
    value &= (1 << bits) - 1;
  }
  return out;
}

// Random bytes drawn a page at a time (one call to the generator per 315 ids), each byte used once.
let page = Buffer.alloc(0);
let used = 0;
function random(n: number): Buffer {
  if (used + n > page.length) {
    page = randomBytes(4096);
    used = 0;
  }
  used += n;
  return page.subarray(used - n, used);
}

/** A random id for a created resource: 20 base32 characters (100 bits). */
export function newId(kind: IdKind): string {
  return `${PREFIXES[kind]}_${base32(random(13), 20)}`;
}

/** A stable id from a natural key: the same key always gives the same id. */
export function stableId(kind: IdKind, ...naturalKey: Array<string | number | null | undefined>): string {
  const digest = createHash('sha256').update(naturalKey.map((p) => String(p ?? '')).join('\u001f')).digest();
  return `${PREFIXES[kind]}_${base32(digest, 20)}`;
}

export function isId(kind: IdKind, value: string): boolean {
  const prefix = `${PREFIXES[kind]}_`;
  return value.startsWith(prefix) && BODY.test(value.slice(prefix.length));
}

/**
 * Validate an id taken from a path or parameter: a wrong prefix or body is 422 id_malformed
 * (naming the field); a well-formed id that matches nothing is the caller's 404.
 */
export function requireId(kinds: IdKind | IdKind[], value: string, field: string): string {
  const list = Array.isArray(kinds) ? kinds : [kinds];
  if (list.some((k) => isId(k, value))) return value;
  const expected = list.map((k) => `${PREFIXES[k]}_…`).join(' or ');
  throw new ApiError('id_malformed', { field, detail: `${JSON.stringify(value)} is not a well-formed id; expected ${expected}.` });
}

export function sha256Hex(data: string | Uint8Array): string {
  return hash('sha256', data, 'hex');
}

export function randomToken(bytes = 32): string {
  return randomBytes(bytes).toString('base64url');
}
