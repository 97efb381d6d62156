// Section numbering detected per document. A number token at the start of a line has a shape: an
// optional keyword (Article, Chapter, Section, Sec., §, …), a first group (digits, a roman numeral,
// a letter) and further groups joined by one separator ("17-2-0104-A", "3.1.16", "200-8"). Lines
// with the same keyword, first-group kind and separator form a family; a family is the document's
// numbering when it repeats with titles in non-decreasing order, either through the whole text or
// restarting under a higher family (Worcester's "Section 2" under each "ARTICLE"). "Table 4.1" is a
// caption, never a section; runs of numbered lines with no text between them (a table of contents,
// a list of tables) are not sections.
import type { HeadingBlock } from './markdown.ts';
import type { Span } from './text.ts';

export interface Candidate {
  line: Span; // the whole line (or HTML block)
  title: Span; // the part to read: the line without heading markers
  emphasized: boolean; // bold, centred or a heading tag
  level: number | null; // h1–h6
  indent: number; // leading spaces of a plain-text line
  standalone: boolean; // the line is a block of its own, not the opening of a paragraph
  next?: Span; // the next line, which may hold the title of a number printed alone ("ARTICLE IV" / "USE REGULATIONS")
  contents?: boolean; // the line ends in a page number set apart: an entry of a table of contents
}

const KEYWORDS: [RegExp, string, number][] = [
  [/^title$/i, 'Title', 1],
  [/^(chapter|ch\.)$/i, 'Chapter', 2],
  [/^subchapter$/i, 'Subchapter', 3],
  [/^(article|art\.)$/i, 'Article', 4],
  [/^part$/i, 'Part', 5],
  [/^(division|div\.)$/i, 'Division', 6],
  [/^(section|sec\.|§§?)$/i, 'Section', 7],
];
const TOKEN = /^(?:((?:title|chapter|subchapter|article|part|division|section)(?=[\s\u00a0])|ch\.|art\.|div\.|sec\.|§§?)\s*)?(\d+[A-Za-z]?(?:[.-](?:\d+[A-Za-z]?|[A-Z](?![A-Za-z])))*|[IVXLC]+(?![A-Za-z])(?:[.-]\d+)*|[A-Z](?![A-Za-z]))(\.(?!\d)|\))?(?=$|[\s\u00a0]|[-\u2013\u2014:])/i;
const SMALL = new Set(['a', 'an', 'and', 'as', 'at', 'by', 'for', 'from', 'in', 'into', 'of', 'on', 'or', 'per', 'the', 'to', 'with', 'within', 'without', 'upon', 'not', 'nor', 'than', 'that', 'under', 'over']);
const ABBREV = /(?:\b(?:Sec|No|Nos|Art|Ch|Inc|Co|St|Ave|e\.g|i\.e|etc|vs|approx|min|max|ft|sq|Coun|J|p|U\.S)|\b[A-Z])$/;

export interface NumberToken {
  keyword: string | null; // normalized: "Article", "Section", …
  number: string; // as printed, without a trailing period: "17-2-0104-A", "IV"
  sep: string; // the separator between groups ('' for one group)
  groups: string[];
  kind: 'd' | 'R' | 'L';
  rank: number;
  rest: number; // offset (in the parsed string) where the text after the number begins
  closed: boolean; // printed with a trailing period or parenthesis ("1.", "A)")
}

/** The number token a line opens with, or null. */
export function parseToken(s: string): NumberToken | null {
  const m = TOKEN.exec(s);
  if (!m) return null;
  const kw = m[1] ? KEYWORDS.find(([re]) => re.test(m[1])) : undefined;
  const number = m[2];
  const kind: NumberToken['kind'] = /^\d/.test(number) ? 'd' : /^[IVXLC]+$/.test(number.split(/[.-]/)[0]) && (kw || number.length > 1) ? 'R' : 'L';
  if (!kw && kind !== 'd' && !m[3]) return null; // a bare "A" or "IV" is a word, not a number
  if (!kw && kind === 'R' && number.length === 1 && m[3] === ')') return null;
  const sep = /[.-]/.exec(number)?.[0] ?? '';
  const groups = sep ? number.split(sep) : [number];
  let rest = m[0].length;
  const tail = /^[\s\u00a0]*(?:[-\u2013\u2014:][\s\u00a0]*)?/.exec(s.slice(rest));
  rest += tail ? tail[0].length : 0;
  return { keyword: kw ? kw[1] : null, number, sep, groups, kind, rank: kw ? kw[2] : rankOf(kind, groups.length, number), rest, closed: !!m[3] };
}

/** Outline order with no keyword: "3.1" above "IV." above "A." above "1." above "a.". */
function rankOf(kind: NumberToken['kind'], groups: number, number: string): number {
  if (kind === 'd') return groups > 1 ? 8 : 11;
  if (kind === 'R') return 9;
  return /^[a-z]/.test(number) ? 12 : 10;
}

const ROMAN: Record<string, number> = { I: 1, V: 5, X: 10, L: 50, C: 100 };
function romanValue(s: string): number {
  let total = 0;
  for (let i = 0; i < s.length; i++) {
    const v = ROMAN[s[i].toUpperCase()] ?? 0;
    const next = ROMAN[s[i + 1]?.toUpperCase()] ?? 0;
    total += v < next ? -v : v;
  }
  return total;
}

function groupValue(g: string, kind: NumberToken['kind'], first: boolean): number {
  if (/^\d+(\.\d+)?$/.test(g)) return Number(g);
  const lead = /^(\d+)([A-Za-z])$/.exec(g);
  if (lead) return Number(lead[1]) + (lead[2].toUpperCase().charCodeAt(0) - 64) / 100;
  if (first && kind === 'R') return romanValue(g);
  return g.toUpperCase().charCodeAt(0) - 64;
}

/** Compares two tokens of one family group by group; a prefix comes first. */
export function compareTokens(a: NumberToken, b: NumberToken): number {
  for (let i = 0; i < Math.max(a.groups.length, b.groups.length); i++) {
    if (i >= a.groups.length) return -1;
    if (i >= b.groups.length) return 1;
    const d = groupValue(a.groups[i], a.kind, i === 0) - groupValue(b.groups[i], b.kind, i === 0);
    if (d !== 0) return d;
  }
  return 0;
}

/** A heading's wording: capitalized words, or (sentence case) a few words; not a sentence. */
export function titleLike(s: string, few = 3): boolean {
  const t = s.trim();
  const first = /[A-Za-z]/.exec(t);
  if (!first || first[0] !== first[0].toUpperCase() || /[,;]$/.test(t) || t.length > 160) return false;
  const words = t.split(/\s+/).map((w) => w.replace(/^[("'“‘[]+|[)"'”’\].,:;]+$/g, '')).filter((w) => /[A-Za-z]/.test(w));
  if (words.length <= few) return true;
  const significant = words.filter((w) => !SMALL.has(w.toLowerCase()));
  const capital = significant.filter((w) => /^[A-Z0-9]/.test(w)).length;
  return significant.length > 0 && capital / significant.length >= 0.6;
}

interface Parsed {
  c: Candidate;
  tok: NumberToken;
  family: string;
  heading: string | null; // the title, when the line gives one
  headingSpan: Span | null;
  headEnd: number; // where the heading part of the line ends (its body may follow on the line)
  page: number;
}

const TOC_LINE = /(?:\.{4,}|…{2,}|\.\s\.\s\.|\t\s*\d+\s*$|\s{3,}\d{1,3}\s*$)/;

/** The title of a numbered line: its first short sentence when more text follows, or the whole rest of a short line. */
function readTitle(text: string, c: Candidate, tok: NumberToken): { heading: string | null; span: Span | null; headEnd: number } {
  const from = c.title.start + tok.rest;
  const rest = text.slice(from, c.title.end).replace(/\s+$/, '');
  const untitled = { heading: null, span: null, headEnd: c.title.start + tok.rest };
  if (rest === '') {
    const next = c.next ? text.slice(c.next.start, c.next.end).trim() : '';
    if (c.next && next.length <= 80 && !parseToken(next) && titleLike(next, 8) && !/[.:]$/.test(next)) {
      const at = c.next.start + text.slice(c.next.start, c.next.end).indexOf(next);
      return { heading: next.replace(/\s+/g, ' '), span: { start: at, end: at + next.length }, headEnd: at + next.length };
    }
    return untitled;
  }
  // "Generally. The "R" districts are …": a short capitalized phrase ending in a period
  const re = /\.(?=[\s\u00a0]+\S)/g;
  for (let m = re.exec(rest); m && m.index <= 140; m = re.exec(rest)) {
    const phrase = rest.slice(0, m.index);
    if (ABBREV.test(phrase) || (/\d$/.test(phrase) && /^\.\d/.test(rest.slice(m.index)))) continue;
    if (titleLike(phrase, 5) && phrase.split(/\s+/).length <= 14) return { heading: phrase.replace(/\s+/g, ' '), span: { start: from, end: from + phrase.length }, headEnd: from + m.index + 1 };
    break;
  }
  if (c.standalone && rest.length <= 160 && !/\n/.test(rest)) {
    const heading = rest.replace(/\s*\.$/, '');
    if (titleLike(heading, 8)) return { heading: heading.replace(/\s+/g, ' '), span: { start: from, end: from + heading.length }, headEnd: from + rest.length };
  }
  return untitled;
}

function familyOf(tok: NumberToken): string {
  return `${tok.keyword ?? '-'}|${tok.kind}|${tok.groups.length > 1 ? tok.sep : '*'}`;
}

/** Text between two numbered lines other than white space and page numbers. */
function between(text: string, from: number, to: number): number {
  if (to <= from) return 0;
  return text
    .slice(from, to)
    .split('\n')
    .filter((l) => !/^\s*(?:[ivxlc]+|\d{1,4}|page \d+( of \d+)?)?\s*$/i.test(l))
    .join('').length;
}

export interface Numbering {
  headings: HeadingBlock[];
  families: string[]; // the accepted families, e.g. "Article|d|*", "-|d|."
  numbered: Set<Candidate>; // candidates read as numbered headings
}

export interface NumberingOptions {
  /** whether a single-group number with no keyword ("1.", "A.") may head a section on this line */
  enumerations: (c: Candidate) => boolean;
  pageOf?: (offset: number) => number;
}

/** The document's own numbered headings among its candidate lines. */
export function detectNumbering(text: string, candidates: Candidate[], opts: NumberingOptions): Numbering {
  const parsed: Parsed[] = [];
  for (const c of candidates) {
    const s = text.slice(c.title.start, c.title.end);
    const tok = parseToken(s);
    if (!tok || c.contents || TOC_LINE.test(s)) continue;
    if (!tok.keyword && tok.groups.length === 1 && !opts.enumerations(c)) continue;
    const t = readTitle(text, c, tok);
    // a single-group number with no keyword and no title is a list item or a stray figure; a number
    // alone on its line with no title is a reference that wrapped onto a new line
    if ((!tok.keyword && tok.groups.length === 1 && !t.heading) || (!t.heading && t.headEnd >= c.title.end - 1)) continue;
    parsed.push({ c, tok, family: familyOf(tok), heading: t.heading, headingSpan: t.span, headEnd: t.headEnd, page: opts.pageOf ? opts.pageOf(c.line.start) : 0 });
  }
  // merge "Section 4" into "Section 4.1"'s family when the keyword has one multi-group family
  const multi = new Map<string, string>();
  for (const p of parsed) if (p.tok.groups.length > 1) multi.set(`${p.tok.keyword ?? '-'}|${p.tok.kind}`, p.family);
  for (const p of parsed) if (p.tok.groups.length === 1 && p.tok.keyword) p.family = multi.get(`${p.tok.keyword}|${p.tok.kind}`) ?? p.family;

  // runs of four or more numbered lines with nothing between them are a contents list
  const dense = new Set<Parsed>();
  const key = (p: Parsed) => `${p.family} ${p.tok.number}`;
  const lastAt = new Map<string, number>();
  parsed.forEach((p, i) => {
    lastAt.set(key(p), i);
  });
  for (let i = 0; i < parsed.length; ) {
    let j = i;
    while (j + 1 < parsed.length && between(text, parsed[j].headEnd, parsed[j + 1].c.line.start) < 20 && !parsed[j].c.level) j++;
    const run = parsed.slice(i, j + 1);
    if (run.length >= 4) {
      // a contents list: entries printed again further on, or a long list of one family's items
      const counts = new Map<string, number>();
      for (const p of run) counts.set(p.family, (counts.get(p.family) ?? 0) + 1);
      const major = [...counts.entries()].sort((a, b) => b[1] - a[1])[0][0];
      for (const p of run) {
        const unique = !!p.tok.keyword || p.tok.groups.length > 1;
        if ((unique && (lastAt.get(key(p)) as number) > j) || (run.length >= 8 && p.family === major)) dense.add(p);
      }
    }
    i = j + 1;
  }
  const live = parsed.filter((p) => !dense.has(p));

  const byFamily = new Map<string, Parsed[]>();
  for (const p of live) {
    const list = byFamily.get(p.family);
    if (list) list.push(p);
    else byFamily.set(p.family, [p]);
  }
  const families = [...byFamily.entries()].sort((a, b) => a[1][0].tok.rank - b[1][0].tok.rank || a[1][0].c.line.start - b[1][0].c.line.start);
  const accepted = new Map<string, { members: Parsed[]; parent: string | null }>();
  const ordered = (seq: Parsed[]) => {
    if (seq.length < 2) return 1;
    let ok = 0;
    for (let i = 1; i < seq.length; i++) if (compareTokens(seq[i - 1].tok, seq[i].tok) <= 0) ok++;
    return ok / (seq.length - 1);
  };
  for (const [family, members] of families) {
    const titled = members.filter((m) => m.heading).length;
    if (members.length < 2 || titled < 2 || titled / members.length < 0.4) continue;
    const numbers = members.map((m) => m.tok.groups.join('.').toUpperCase());
    const repeats = numbers.length - new Set(numbers).size;
    const global = ordered(members.filter((m) => m.heading)) >= 0.75 && repeats <= Math.max(1, numbers.length * 0.1);
    if (global) {
      accepted.set(family, { members: keepInOrder(members, null), parent: null });
      continue;
    }
    // restarting under a family of a higher rank
    const parents = [...accepted.entries()].sort((a, b) => b[1].members[0].tok.rank - a[1].members[0].tok.rank);
    for (const [pf, pv] of parents) {
      if (pv.members[0].tok.rank >= members[0].tok.rank) continue;
      const segments = splitBy(members, pv.members);
      const restarts = segments.filter((s) => s.length > 0).length;
      const inOrder = segments.reduce((n, s) => n + ordered(s.filter((m) => m.heading)) * s.length, 0) / members.length;
      if (restarts >= 2 && inOrder >= 0.75) {
        accepted.set(family, { members: keepInOrder(members, pv.members), parent: pf });
        break;
      }
    }
  }
  return compose(text, accepted, candidates);
}

/** Members grouped by the parent member they follow. */
function splitBy(members: Parsed[], parents: Parsed[]): Parsed[][] {
  const out: Parsed[][] = [[]];
  let pi = 0;
  for (const m of members) {
    let moved = false;
    while (pi < parents.length && parents[pi].c.line.start < m.c.line.start) {
      pi++;
      moved = true;
    }
    if (moved && out[out.length - 1].length) out.push([]);
    out[out.length - 1].push(m);
  }
  return out;
}

/** Indexes of the longest run of titled members in non-decreasing order (a stray number out of order drops out). */
function longestOrdered(seq: Parsed[]): Set<number> {
  const tails: number[] = []; // index of the smallest last member of an ordered run of each length
  const prev: number[] = seq.map(() => -1);
  seq.forEach((m, i) => {
    let lo = 0;
    let hi = tails.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (compareTokens(seq[tails[mid]].tok, m.tok) <= 0) lo = mid + 1;
      else hi = mid;
    }
    prev[i] = lo > 0 ? tails[lo - 1] : -1;
    tails[lo] = i;
  });
  const keep = new Set<number>();
  for (let i = tails.length ? tails[tails.length - 1] : -1; i >= 0; i = prev[i]) keep.add(i);
  return keep;
}

/** Titled members in order; an untitled one only between its ordered neighbours (not a cross-reference). */
function keepInOrder(members: Parsed[], parents: Parsed[] | null): Parsed[] {
  const segments = parents ? splitBy(members, parents) : [members];
  const kept: Parsed[] = [];
  for (const seg of segments) {
    const titled = seg.filter((m) => m.heading);
    const order = longestOrdered(titled);
    const good = new Set(titled.filter((_, i) => order.has(i)));
    let last: Parsed | null = null;
    const nextGood: (Parsed | null)[] = seg.map(() => null);
    for (let i = seg.length - 2; i >= 0; i--) nextGood[i] = good.has(seg[i + 1]) ? seg[i + 1] : nextGood[i + 1];
    seg.forEach((m, i) => {
      if (m.heading) {
        if (!good.has(m)) return;
      } else {
        if (last && compareTokens(last.tok, m.tok) >= 0) return;
        const next = nextGood[i];
        if (next && compareTokens(m.tok, next.tok) > 0) return;
      }
      kept.push(m);
      last = m;
    });
  }
  return kept;
}

function compose(text: string, accepted: Map<string, { members: Parsed[]; parent: string | null }>, candidates: Candidate[]): Numbering {
  const all = [...accepted.entries()].flatMap(([family, v]) => v.members.map((m) => ({ m, family, parent: v.parent })));
  all.sort((a, b) => a.m.c.line.start - b.m.c.line.start);
  // the same number and title twice with only page furniture between: the later one is the section
  const kept = all.filter((x, i) => {
    const next = all[i + 1];
    return !(next && next.family === x.family && compareTokens(next.m.tok, x.m.tok) === 0 && next.m.heading === x.m.heading && between(text, x.m.headEnd, next.m.c.line.start) < 300);
  });
  const refOf = new Map<Parsed, string>();
  const indents = new Map<string, number[]>();
  for (const { m, family } of kept) indents.set(family, [...new Set([...(indents.get(family) ?? []), m.c.indent])].sort((a, b) => a - b));
  const minDepth = new Map<string, number>();
  for (const { m, family } of kept) minDepth.set(family, Math.min(minDepth.get(family) ?? 99, m.tok.groups.length));
  const lastOf = new Map<string, Parsed>();
  const headings: HeadingBlock[] = [];
  const numbered = new Set<Candidate>();
  for (const { m, family, parent } of kept) {
    const label = m.tok.keyword ? `${m.tok.keyword} ${m.tok.number}` : m.tok.number;
    let ref = m.tok.keyword && m.tok.keyword !== 'Section' ? label : m.tok.number;
    const p = parent ? lastOf.get(parent) : undefined;
    if (p) {
      const pref = refOf.get(p) as string;
      const join = m.tok.keyword ? ', ' : /\d$/.test(pref) !== /^\d/.test(m.tok.number) ? '' : '.';
      ref = `${pref}${join}${label}`;
    }
    refOf.set(m, ref);
    lastOf.set(family, m);
    const ind = indents.get(family) as number[];
    const depth = m.tok.groups.length - (minDepth.get(family) as number);
    // ALP-style "17-2-0100" over "17-2-0101": deeper by its indentation, or by its round number
    const lastGroup = m.tok.groups[m.tok.groups.length - 1];
    const sub = ind.length > 1 ? ind.indexOf(m.c.indent) : m.tok.groups.length > 1 && /^\d{3,}$/.test(lastGroup) && /00$/.test(lastGroup) ? -1 : 0;
    const level = m.tok.rank * 10 + depth * 2 + sub + 1;
    const title = m.headingSpan ?? { start: m.c.title.start, end: m.c.title.start + m.tok.rest };
    headings.push({ level, anchor: m.c.line.start, line: { start: m.c.line.start, end: Math.max(m.headEnd, title.end) }, title, ref, heading: m.heading });
    numbered.add(m.c);
  }
  void candidates;
  return { headings, families: [...accepted.keys()], numbered };
}
