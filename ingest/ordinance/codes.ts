// District codes as a code's text prints them: the shape of a code ("RS-10", "R-1A", "S & O",
// "BO-1.0"), lists of codes ("RM5 and RM5.5", "R-A/R-1"), codes split over two header lines
// ("RS" over "10"), merged columns ("RM 5-5.5" is RM5 and RM5.5) and ranges ("RT4 to RM6.5",
// read against the order the code lists its districts in). The index resolves a printed code to a
// district held: by key (RS1 = RS-1 = RS 1), with numbers compared as numbers (BO 1 = BO-1.0), by
// the manifest's aliases, or as a member of a family the text names (RS1 of the RS districts).
import { codeKey } from '../district-codes.ts';
import { normalizeCode } from '../district-list.ts';

const PLAIN = /^[A-Z][A-Z0-9]*(?:[-.][A-Z0-9]+)*$/;
const AMPERSAND = /^[A-Z]{1,3}\s?&\s?[A-Z]{1,3}$/;
const ROMAN = /^(?:X{0,3})(?:IX|IV|V?I{0,3})$/;

/**
 * Whether a printed token is shaped like a district code: capitals and digits, a few separators,
 * short. A roman numeral ("I", "IV") is a number, unless the place it is printed in names districts
 * only (`roman`: an entry "I Industrial District" of a list of districts).
 */
export function isCodeShaped(raw: string, roman = false): boolean {
  const s = raw.normalize('NFKC').replace(/[\u2010-\u2015]/g, '-').trim();
  if (s.length === 0 || s.replace(/\s/g, '').length > 10) return false;
  if (!PLAIN.test(s) && !AMPERSAND.test(s)) return false;
  return roman || !ROMAN.test(s);
}

/** A code whose letters stand out from words around it: it has a digit, a separator or an ampersand. */
export const isMarkedCode = (s: string) => /[\d\-.&]/.test(s);

/** Codes a phrase lists: "RM5 and RM5.5", "RS1, RS2 and RS3", "R-A/R-1"; null when any piece is not a code. */
export function splitCodeList(raw: string, roman = false): string[] | null {
  const s = raw.normalize('NFKC').replace(/[\u2010-\u2015]/g, '-').trim().replace(/[.:;,]$/, '');
  if (!s) return null;
  const pieces = s.split(/\s*(?:,\s*(?:and\s+|or\s+)?|\s+and\s+|\s+or\s+|\/)\s*/).filter(Boolean);
  return pieces.length > 0 && pieces.every((p) => isCodeShaped(p, roman)) ? pieces : null;
}

/** The key with numbers compared as numbers: "BO1.0" and "BO1" are one code, "RM4.50" and "RM4.5" too. */
export function numericKey(code: string): string {
  return codeKey(code).replace(/(\d+)\.(\d+)/g, (_, a: string, b: string) => {
    const frac = b.replace(/0+$/, '');
    return frac ? `${a}.${frac}` : a;
  });
}

/** The letters a code starts with ("RS" of "RS-10"), or null when it is letters only. */
export function prefixOf(code: string): string | null {
  const m = /^([A-Z]+)[\s-]?\d/.exec(codeKey(code));
  return m ? m[1] : null;
}

const nameKey = (name: string | null) =>
  (name ?? '')
    .toLowerCase()
    .replace(/\b(?:districts?|zones?)\b/g, ' ')
    .replace(/[^a-z0-9]+/g, ' ')
    .trim();

export type Evidence = 'heading' | 'list' | 'use_table' | 'dimension_table' | 'map';

export interface IndexEntry {
  code: string; // the form first held
  key: string; // numericKey
  evidence: Set<Evidence>;
  order: number; // the order it was first held in
}

/** Districts known to a reading, resolving printed codes to the form held first. */
export class DistrictIndex {
  private byKey = new Map<string, IndexEntry>();
  private aliases = new Map<string, string>();
  readonly families = new Set<string>(); // keys of codes the text names as families ("RS" districts)
  private sequences: string[][] = [];
  private names = new Map<string, string | null>(); // a name → its code; null when two districts bear it
  private next = 0;

  constructor(aliases: Record<string, string> = {}) {
    for (const [from, to] of Object.entries(aliases)) this.aliases.set(numericKey(from), to);
  }

  get size(): number {
    return this.byKey.size;
  }

  entries(): IndexEntry[] {
    return [...this.byKey.values()];
  }

  has(code: string): boolean {
    return this.byKey.has(numericKey(this.aliased(code)));
  }

  entry(code: string): IndexEntry | undefined {
    return this.byKey.get(numericKey(this.aliased(code)));
  }

  private aliased(code: string): string {
    return this.aliases.get(numericKey(code)) ?? code;
  }

  add(code: string, evidence: Evidence): IndexEntry {
    const form = normalizeCode(this.aliased(code));
    const key = numericKey(form);
    let e = this.byKey.get(key);
    if (!e) {
      e = { code: form, key, evidence: new Set(), order: this.next++ };
      this.byKey.set(key, e);
    }
    e.evidence.add(evidence);
    return e;
  }

  addFamily(code: string): void {
    this.families.add(numericKey(code));
  }

  /** The form held for a printed code, or null when nothing held names it. */
  resolve(code: string): string | null {
    return this.entry(code)?.code ?? null;
  }

  /** Whether a code is a member of a family the text names: "RS1" of the RS districts. */
  inFamily(code: string): boolean {
    const m = /^([A-Z]+)[\s-]?\d+(?:\.\d+)?[A-Z]?$/.exec(code.normalize('NFKC').toUpperCase().trim());
    return m !== null && this.families.has(m[1]);
  }

  /** Remembers a district's name ("Agricultural District" for R-A), so a header that prints the name reads as the code. */
  addName(name: string | null, code: string): void {
    const k = nameKey(name);
    if (!k) return;
    const held = this.names.get(k);
    this.names.set(k, held === undefined || held === code ? code : null);
  }

  /** The code of the one district bearing a name, or null. */
  byName(name: string): string | null {
    const k = nameKey(name);
    return (k && this.names.get(k)) || null;
  }

  /** Remembers an order the code lists districts in (a table header, a list), for ranges. */
  addSequence(codes: string[]): void {
    const keys = codes.map((c) => this.entry(c)?.key).filter((k): k is string => !!k);
    if (keys.length >= 2) this.sequences.push(keys);
  }

  /** Codes from `from` to `to` inclusive, in an order the code gives them; null when no order holds both. */
  range(from: string, to: string): string[] | null {
    const a = this.entry(from)?.key;
    const b = this.entry(to)?.key;
    if (!a || !b) return null;
    for (const seq of this.sequences) {
      const i = seq.indexOf(a);
      const j = seq.indexOf(b);
      if (i >= 0 && j > i) return seq.slice(i, j + 1).map((k) => this.byKey.get(k)?.code as string);
    }
    return null;
  }
}

const RANGE = /^(.+?)\s+(?:to|through|thru|[-\u2013\u2014])\s+(.+)$/i;
const MERGED = /^([A-Z]+)[\s-]?(\d+(?:\.\d+)?)\s*[-\u2013]\s*(\d+(?:\.\d+)?)$/;

export interface ReadCodes {
  codes: string[]; // as printed (joined when split over lines)
  how: 'one' | 'split' | 'list' | 'merged' | 'range';
  at: number; // which of the texts names them (the upper of the two, for a split code)
}

/** A header's text without what dresses a code: a footnote mark (R-1*, R-1¹, R-1 (a)), a name in parentheses, a trailing "District". */
function undressed(text: string): string {
  let s = text;
  for (let prev = ''; prev !== s; ) {
    prev = s;
    s = s
      .replace(/\s*(?:\*+|[\u00b9\u00b2\u00b3\u2070-\u2079]+|\[[A-Za-z0-9]{1,3}\]|\([a-z0-9]{1,2}\))$/, '')
      .replace(/^(\S.*?)\s*\([^()]*[a-z][^()]*\)$/, '$1')
      .replace(/\s+(?:districts?|zones?)$/i, '')
      .trim();
  }
  return s;
}

/**
 * The districts a header or row label names: one code, a code split over two header lines
 * ("RS" then "10"), a list ("R-A/R-1"), a merged column ("RM 5-5.5") or a range ("RT4 to RM6.5").
 * `accept` says whether a code is known; merged columns and ranges are read only when each end is.
 */
export function readCodes(texts: string[], accept: (code: string) => boolean, index: DistrictIndex | null): ReadCodes | null {
  const clean = texts.map((t) => undressed(t.normalize('NFKC').replace(/[\u2010-\u2015]/g, '-').replace(/\s+/g, ' ').trim()));
  if (clean.every((t) => !t)) return null;
  const n = clean.length;
  const tries: Array<{ text: string; how: ReadCodes['how']; at: number }> = [];
  if (n >= 2) {
    const [prev, last] = clean.slice(-2);
    if (/^[A-Z]+$/.test(prev) && /^\d[\d.A-Z]*(?:\s*-\s*[\d.]+)?$/.test(last)) tries.push({ text: `${prev}${last}`, how: 'split', at: n - 2 });
  }
  // the lowest text first, then those above it ("R-1" over "Single Family")
  for (let i = n - 1; i >= 0; i--) if (clean[i]) tries.push({ text: clean[i], how: 'one', at: i });
  for (const t of tries) {
    const one = t.text.replace(/[:.]$/, '');
    const bare = one.replace(/\s(?:to|through|thru|and|or)\s/g, ' ');
    if (/[a-z]/.test(bare) || bare.replace(/\s/g, '').length > 24) continue;
    const at = t.at;
    if (accept(one)) return { codes: [one], how: t.how, at };
    const spaced = one.replace(/^([A-Z]+)\s(\d)/, '$1$2');
    if (spaced !== one && accept(spaced)) return { codes: [spaced], how: t.how, at };
    const merged = MERGED.exec(one);
    if (merged) {
      const [, letters, a, b] = merged;
      const pair = [`${letters}${a}`, `${letters}${b}`];
      if (Number(b) > Number(a) && pair.every(accept)) return { codes: pair, how: 'merged', at };
    }
    const list = splitCodeList(one);
    if (list && list.length > 1 && list.every(accept)) return { codes: list, how: 'list', at };
    const range = RANGE.exec(one);
    if (range && index && accept(range[1]) && accept(range[2])) {
      const codes = index.range(range[1], range[2]);
      if (codes && codes.length > 1) return { codes, how: 'range', at };
    }
  }
  // a district's name instead of its code ("Agricultural" for R-A), when one district bears it
  for (let i = n - 1; i >= 0 && index; i--) {
    const code = index.byName(clean[i]);
    if (code && accept(code)) return { codes: [code], how: 'one', at: i };
  }
  return null;
}
