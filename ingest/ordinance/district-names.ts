// Which districts a table cell names: a code as any source writes it ("RS-3", "RS3", "RS 3"), a
// range read against the order of the known codes ("RT4 to RM6.5"), a list ("RS1, RS2 and RS3",
// "RT3.5 to RM6.5 + DR"), a family with a designation ("B/C dash 1": every known B… and C… code
// ending in -1) or the rest of a family ("All other R districts"). Pure.
import { codeKey } from '../district-codes.ts';
import { normalizeCode } from '../district-list.ts';

/** The codes held for the jurisdiction, in the order they were found (the document's own order first). */
export interface KnownCodes {
  codes: string[];
  byKey: Map<string, string>;
  aliases: Map<string, string>; // alias key → code
  text?: string; // the document, whose order of first mention orders ranges
}

/** Where a code is written in a text as a whole token (RS1 in "RS1, RS2 and RS3", not in "RS10"; RS1 = RS-1 = RS 1). */
function placesOf(text: string, code: string): number[] {
  const parts = code.toUpperCase().match(/[A-Z]+|\d+(?:\.\d+)?|&/g) ?? [];
  const body = parts.map((p) => p.replace(/[.&]/g, (c) => `\\${c}`)).join('[-\\s]?');
  return [...text.matchAll(new RegExp(`(?<![A-Za-z0-9.-])${body}(?![A-Za-z0-9]|\\.\\d)`, 'g'))].map((m) => m.index);
}

let lastOrder: { text: string; codes: string; order: string[] } | null = null;

/**
 * The codes in the order of the document's fullest list of them: the shortest stretch of text that
 * names the most of them (a district list, a table's header of codes); codes it does not name follow
 * in the order they were given.
 */
export function documentOrder(codes: string[], text: string): string[] {
  const key = codes.join('|');
  if (lastOrder && lastOrder.text === text && lastOrder.codes === key) return lastOrder.order;
  const hits = codes.flatMap((c, i) => placesOf(text, c).map((at) => ({ at, i }))).sort((a, b) => a.at - b.at);
  // sliding window: the most distinct codes, then the shortest stretch
  const count = new Map<number, number>();
  let best = { n: 0, from: 0, to: -1 };
  for (let lo = 0, hi = 0; hi < hits.length; hi++) {
    count.set(hits[hi].i, (count.get(hits[hi].i) ?? 0) + 1);
    while ((count.get(hits[lo].i) as number) > 1) {
      count.set(hits[lo].i, (count.get(hits[lo].i) as number) - 1);
      lo++;
    }
    const n = count.size;
    if (n > best.n || (n === best.n && hits[hi].at - hits[lo].at < hits[best.to]?.at - hits[best.from]?.at)) best = { n, from: lo, to: hi };
  }
  const listed: number[] = [];
  for (const h of hits.slice(best.from, best.to + 1)) if (!listed.includes(h.i)) listed.push(h.i);
  const order = [...listed.map((i) => codes[i]), ...codes.filter((_, i) => !listed.includes(i))];
  lastOrder = { text, codes: key, order };
  return order;
}

export function knownCodes(known: Iterable<string>, aliases: Record<string, string> = {}, text?: string): KnownCodes {
  const codes: string[] = [];
  const byKey = new Map<string, string>();
  for (const c of known) {
    const k = codeKey(c);
    if (!k || byKey.has(k)) continue;
    byKey.set(k, c);
    codes.push(c);
  }
  const al = new Map<string, string>();
  for (const [from, to] of Object.entries(aliases)) al.set(codeKey(from), byKey.get(codeKey(to)) ?? normalizeCode(to));
  return { codes, byKey, aliases: al, text };
}

export type NameKind = 'code' | 'list' | 'range' | 'family' | 'others';

export interface Named {
  codes: string[];
  kind: NameKind;
  /** what could not be resolved against the known codes ("RT4 to RM6.5" with RT4 unknown) */
  unresolved: string | null;
  /** for `others`: the family letters it is limited to ("R"), or null for every district */
  family?: string | null;
}

// A code by its shape alone: letters, then digits or a separated part (RS-10, RT3.5, R-1A, S&O, IN-H, RS 10)
const SHAPE = /^[A-Z]{1,4}(?:\d+(?:\.\d+)?[A-Z]?)?(?:\s?[-&]\s?[A-Z0-9][A-Z0-9.]{0,4}|\s\d+(?:\.\d+)?[A-Z]?)*$/;
const hasPart = (s: string) => /[\d&-]/.test(s);

/** A cell's text without what decorates a code: footnote marks, "Cont.", "District". */
export function bareName(raw: string): string {
  let s = raw.normalize('NFKC').replace(/[\u2010-\u2013]/g, '-').replace(/\s+/g, ' ').trim();
  for (let prev = ''; prev !== s; ) {
    prev = s;
    s = s
      .replace(/\s*(?:\[[0-9a-z]{1,2}\]|\(\d{1,2}\)|\*+|[\u00b9\u00b2\u00b3\u2070-\u2079]+)$/i, '')
      .replace(/\s*\(?\b(?:cont(?:inued|'d)?\.?)\)?$/i, '')
      .replace(/\s+(?:zoning\s+)?(?:districts?|zones?)$/i, '')
      .trim();
  }
  return s;
}

/**
 * A code the text writes as it stands: known (or aliased) by its key, else by its shape when shapes
 * are accepted; `bare` also takes a short upper-case word ("DR", "PUD") where codes are listed.
 */
function oneCode(s: string, known: KnownCodes, byShape: boolean, bare = false): string | null {
  const k = codeKey(s);
  const hit = known.byKey.get(k) ?? known.aliases.get(k);
  if (hit) return hit;
  const n = normalizeCode(s);
  if (!byShape || !SHAPE.test(n)) return null;
  return hasPart(n) || (bare && /^[A-Z]{2,4}$/.test(n)) ? n : null;
}

/** Whether a text is a district code by its shape alone (RS-10, S&O), not a word (USE, LOT). */
export const codeShaped = (s: string) => {
  const n = normalizeCode(bareName(s));
  return SHAPE.test(n) && hasPart(n);
};

const RANGE = /^(.+?)\s+(?:to|through|thru|[-\u2013\u2014])\s+(.+)$/i;
const DASH = /^(?:([A-Z]{1,3}(?:\s*\/\s*[A-Z]{1,3})*)\s+)?dash\s*-?\s*(\d+(?:\.\d+)?)$/i;
const OTHERS = /^all\s+(?:the\s+)?other\s+(?:([A-Z]{1,3})\s+)?$/i;

/** A range over the known codes in the order the document writes them ("RT4 to RM6.5": RT4, RM4.5 … RM6.5). */
function range(a: string, b: string, known: KnownCodes): { codes: string[]; unresolved: string | null } {
  const order = known.text ? documentOrder(known.codes, known.text) : known.codes;
  const i = order.findIndex((c) => codeKey(c) === codeKey(known.aliases.get(codeKey(a)) ?? a));
  const j = order.findIndex((c) => codeKey(c) === codeKey(known.aliases.get(codeKey(b)) ?? b));
  if (i < 0 || j < 0 || j < i) return { codes: [], unresolved: `${a} to ${b}` };
  return { codes: order.slice(i, j + 1), unresolved: null };
}

/** Known codes of the families (leading letters) carrying the designation after their last dash: B1-1, C2-1 for "B/C dash 1". */
function designated(families: string[] | null, dash: string, known: KnownCodes): string[] {
  return known.codes.filter((c) => {
    const m = /^([A-Z]+)[\d.]*[A-Z]?\s?-\s?([\d.]+)$/.exec(normalizeCode(c));
    return !!m && m[2] === dash && (!families || families.includes(m[1]) || families.some((f) => m[1].startsWith(f)));
  });
}

/**
 * The districts a cell names, or null when it names none. `byShape`: the cell stands where the
 * table names districts (a column headed "District", a header of codes), so a code not yet known
 * is taken by its shape.
 */
export function namedDistricts(raw: string, known: KnownCodes, byShape: boolean, bare = false): Named | null {
  const s = bareName(raw);
  if (!s || s.length > 80) return null;
  const others = OTHERS.exec(`${s.replace(/\s+(?:zoning\s+)?(?:districts?|zones?)$/i, '')} `);
  if (/^all\s+(?:the\s+)?other\b/i.test(s) && others) return { codes: [], kind: 'others', unresolved: null, family: others[1]?.toUpperCase() ?? null };
  const dash = DASH.exec(s);
  if (dash) {
    const families = dash[1] ? dash[1].toUpperCase().split(/\s*\/\s*/) : null;
    const codes = designated(families, dash[2], known);
    return { codes, kind: 'family', unresolved: codes.length ? null : s };
  }
  const single = oneCode(s, known, byShape, bare);
  if (single) return { codes: [single], kind: 'code', unresolved: null };
  const parts = s.split(/\s*(?:,|;|\s\+\s|\band\b)\s*/i).filter(Boolean);
  const codes: string[] = [];
  const unresolved: string[] = [];
  let kind: NameKind = parts.length > 1 ? 'list' : 'code';
  for (const p of parts) {
    const one = oneCode(p, known, byShape, bare || parts.length > 1);
    if (one) {
      codes.push(one);
      continue;
    }
    const r = RANGE.exec(p);
    if (!r || !oneCode(r[1], known, byShape) || !oneCode(r[2], known, byShape)) return null;
    kind = parts.length > 1 ? 'list' : 'range';
    const got = range(r[1], r[2], known);
    codes.push(...got.codes);
    if (got.unresolved) unresolved.push(got.unresolved);
  }
  return { codes: [...new Set(codes)], kind, unresolved: unresolved.length ? unresolved.join(', ') : null };
}

/** The codes `others` stands for: the known ones of its family the table does not name elsewhere. */
export function othersOf(n: Named, namedElsewhere: Set<string>, known: KnownCodes): string[] {
  return known.codes.filter((c) => !namedElsewhere.has(codeKey(c)) && (!n.family || normalizeCode(c).startsWith(n.family)));
}
