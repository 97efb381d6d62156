// Districts a code establishes in prose: a sentence that establishes districts ("The following base
// zoning districts are hereby established:", "… is hereby divided into the following districts")
// and the list or table after it, to the end of its section: lines "RS-10: Residence, Single
// Family", "R-1 Residence A District", "Neighborhood Residential (NR)", or rows whose first cell
// is a code and whose next is its name. A table captioned as a table of districts is read the
// same way. Overlay when the entry, or the line that opens its group, says so. Pure.
import type { Grid } from './model.ts';
import { splitCodeList } from './codes.ts';
import { type SectionNode, sectionAt } from './sections.ts';
import type { Span } from './text.ts';

export interface ListEntry extends Span {
  codes: string[];
  name: string | null;
  overlay: boolean;
  section: SectionNode | null;
}

const TRIGGER =
  /\b(?:districts?|zones?),?\s(?:[^.:;]{0,80}?\s)?(?:are|is)\s+(?:hereby\s+)?(?:established|created|as follows)\b|\b(?:divided|classified)\s+into\s(?:[^.:;]{0,60}?\s)?(?:districts?|zones?)\b|\bfollowing\s(?:[^.:;]{0,60}?\s)?(?:districts?|zones?)\s(?:[^.:;]{0,40}?\s)?(?:established|created)\b|\b(?:districts?|zones?)\s+(?:hereby\s+)?established\b|\bestablishment\s+of\s+(?:[\w-]+\s+){0,3}?(?:districts?|zones?)\b/gi;
const CODE = String.raw`(?:[A-Z]{1,3}\s?&\s?[A-Z]{1,3}|[A-Z][A-Z0-9]*(?:[-.][A-Z0-9]+)*)`;
const LIST = String.raw`${CODE}(?:\s*(?:,|\/|\band\b)\s*${CODE})*`;
const BULLET = /^\s*(?:[-•*·\u2022\u25aa]|\d{1,2}[.)]|\([a-z0-9]\))?\s*/;
const COLON = new RegExp(String.raw`^(${LIST})\s*(?::|,|[\u2013\u2014]|\s-\s)\s*([A-Z].{0,100}?)\s*$`);
const PARENS = new RegExp(String.raw`^(${CODE})\s*\(([A-Z][^()]{2,80})\)\s*\.?$`);
const WORDS = new RegExp(String.raw`^(${LIST})\s+([A-Z][A-Za-z&,'/ -]{1,80}?\b(?:District|Zone)s?)\.?\s*$`);
const NAMED = /([A-Z][\w.,'&/ -]{1,60}?)\s*\(([A-Z][A-Z0-9&.\-/]{0,9})\)/g;
const GAP = 6; // lines of other text a list may hold between its entries (group titles, page numbers)
const MEASURE = /\s+\d[\d,./]*\s*(?:square|sq\.?|acres?|feet|ft\.?)\b.*$/i;

/** The code and name a line prints, or null. A name that says District or Zone lets a roman-shaped code ("I Industrial District") be one. */
function entryOf(line: string): { codes: string[]; name: string } | null {
  const s = line.replace(BULLET, '').trim();
  const m = COLON.exec(s) ?? WORDS.exec(s) ?? PARENS.exec(s);
  if (m) {
    const codes = splitCodeList(m[1], /\b(?:district|zone)s?\b/i.test(m[2]));
    if (codes) return { codes, name: m[2].replace(MEASURE, '').trim() };
  }
  const named = [...s.matchAll(NAMED)];
  if (named.length === 1 && named[0].index === 0 && /^\s*(?:(?:District|Zone)s?\.?)?\s*$/.test(s.slice(named[0][0].length))) {
    const codes = splitCodeList(named[0][2]);
    if (codes && !/\d{4}/.test(named[0][2])) return { codes, name: named[0][1].trim() };
  }
  return null;
}

/**
 * The entries of a line: the line as one entry, or a run of entries separated by semicolons after
 * the sentence that introduces them ("… into the following districts: R-40 Residence District;
 * I Industrial District."), every part an entry.
 */
function lineEntries(raw: string): Array<{ codes: string[]; name: string }> {
  const one = entryOf(raw);
  if (one) return [one];
  const parts = raw.replace(/^[^:]*:\s*/, '').split(/\s*;\s*(?:and\s+)?/).map((p) => p.replace(/\.\s*$/, ''));
  if (parts.length < 2) return [];
  const entries = parts.map(entryOf);
  return entries.every((e) => e !== null) ? (entries as Array<{ codes: string[]; name: string }>) : [];
}

/** The entries of a row's cells: "R-A | Agricultural District", or any cell printing "Name (CODE)". */
function rowEntries(cells: string[]): Array<{ codes: string[]; name: string | null }> {
  const filled = cells.map((c) => c.trim()).filter(Boolean);
  const first = filled[0]?.replace(/:$/, '');
  const codes = first ? splitCodeList(first) : null;
  if (codes && filled[1] && /[a-z]/.test(filled[1])) return [{ codes, name: filled[1] }];
  const out: Array<{ codes: string[]; name: string | null }> = [];
  for (const c of filled) {
    const m = NAMED.exec(c);
    NAMED.lastIndex = 0;
    const found = m && m.index === 0 && /^\s*(?:\[.*)?$/.test(c.slice(m[0].length)) ? splitCodeList(m[2]) : null;
    if (m && found && /[a-z]/.test(m[1])) out.push({ codes: found, name: m[1].trim() });
  }
  return out;
}

const lineSpans = (text: string, from: number, to: number): Span[] => {
  const out: Span[] = [];
  let i = from;
  while (i < to) {
    let j = text.indexOf('\n', i);
    if (j < 0 || j > to) j = to;
    out.push({ start: i, end: j });
    i = j + 1;
  }
  return out;
};

/** Districts established by lists and tables, in text order. */
export function listDistricts(text: string, nodes: SectionNode[], grids: Grid[]): ListEntry[] {
  const out: ListEntry[] = [];
  const scopes: Array<Span & { overlay: boolean }> = [];
  for (const m of text.matchAll(TRIGGER)) {
    const at = m.index ?? 0;
    const node = sectionAt(nodes, at);
    const lineEnd = text.indexOf('\n', at);
    const end = Math.min(node && node.end > at ? node.end : text.length, at + 8000);
    const sentenceStart = text.lastIndexOf('\n', at) + 1;
    // the list starts after the trigger: on its own line's rest ("… established: A-1 …; R-1 …") or below it
    scopes.push({ start: Math.min(at, end), end, overlay: /overlay/i.test(text.slice(sentenceStart, lineEnd < 0 ? end : lineEnd)) });
  }
  for (const g of grids) {
    if (g.caption && /\b(?:districts?|zones?)\b/i.test(g.caption.text) && !scopes.some((s) => s.start <= g.start && g.start < s.end)) scopes.push({ start: g.start, end: g.end, overlay: false });
  }
  for (const scope of scopes) {
    const found: ListEntry[] = [];
    let overlay = scope.overlay;
    let gap = 0;
    let listEnd = scope.start;
    for (const line of lineSpans(text, scope.start, scope.end)) {
      const raw = text.slice(line.start, line.end);
      const cells = raw.includes('|') ? raw.replace(/^\s*\||\|\s*$/g, '').split('|') : null;
      const entries = cells ? rowEntries(cells) : lineEntries(raw);
      if (entries.length === 0) {
        const t = raw.trim();
        if (t && !/^[-|:\s]+$/.test(t) && ++gap > GAP) break; // the list has ended
        listEnd = line.end;
        if (/overlay/i.test(t)) overlay = true;
        else if (/\b(?:districts?|zones?)\b/i.test(t) && t.length < 80) overlay = false;
        continue;
      }
      gap = 0;
      listEnd = line.end;
      for (const e of entries) found.push({ ...e, start: line.start, end: line.end, overlay: overlay || /overlay/i.test(raw), section: sectionAt(nodes, line.start) });
    }
    // a table the capture prints one cell to a line: its grid rows
    for (const g of grids) {
      if (g.start < scope.start || g.start >= scope.end || g.start > listEnd) continue;
      for (const r of g.rows) {
        const texts = r.cells.filter((c, i) => i === 0 || c !== r.cells[i - 1]).map((c) => c.text);
        for (const e of rowEntries(texts)) {
          if (found.some((f) => f.codes.join() === e.codes.join())) continue;
          found.push({ ...e, start: r.start, end: r.end, overlay: /overlay/i.test(texts.join(' ')), section: sectionAt(nodes, r.start) });
        }
      }
    }
    if (found.length >= 2) out.push(...found);
  }
  return out.sort((a, b) => a.start - b.start);
}
