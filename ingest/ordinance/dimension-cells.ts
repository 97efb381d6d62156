// What one cell of a dimensional grid states: its lines, the labelled values it holds
// ("Dwelling units: 1,000 Efficiency units: 1,000", "Principal residential buildings:" over
// "Lot Frontage of less than 32 feet: 45"), and the figures of each, split where a slash separates
// values the label names one by one ("400/6.5" under "square feet per dwelling unit/% of lot area").
import type { GridCell } from './model.ts';
import { type Span, trimSpan } from './text.ts';

export interface Line extends Span {
  text: string;
}

/** The cell's printed lines, each a span of the retained text. */
export function cellLines(cell: GridCell, text: string): Line[] {
  if (!cell.text) return [];
  const spans = cell.parts ?? [{ start: cell.start, end: cell.end }];
  const pieces: Line[] = [];
  for (const p of spans) {
    let i = p.start;
    for (const seg of text.slice(p.start, p.end).split('\n')) {
      const s = trimSpan(text, i, i + seg.length);
      if (s.end > s.start) pieces.push({ ...s, text: text.slice(s.start, s.end) });
      i += seg.length + 1;
    }
  }
  // parts of one printed line (nothing but spaces between them) are one line
  const out: Line[] = [];
  for (const p of pieces) {
    const last = out[out.length - 1];
    if (last && p.start >= last.end && !/\S|\n/.test(text.slice(last.end, p.start))) out[out.length - 1] = { start: last.start, end: p.end, text: text.slice(last.start, p.end) };
    else out.push(p);
  }
  return out;
}

/** Lines as one text: a word broken at a hyphen ("semi-" / "detached") joined without a space. */
export const joinLines = (lines: Line[]) =>
  lines
    .map((l) => l.text)
    .join(' ')
    .replace(/\s+/g, ' ')
    .replace(/(\w)- (?=[a-z])/g, '$1-')
    .trim();

export interface Piece extends Span {
  path: string[]; // the labels above the value, outermost first; [] when the cell prints none
  text: string; // the value, without its label
  labelStart: number; // where its own label begins (its start when it has none)
  label: string | null; // its own label
  lines: Line[]; // the lines of its value
}

const LABEL = /(^|\s)([A-Z][^:;]{0,90}?):(?=\s|$)/g;

interface Seg {
  label: string;
  value: Line[];
  start: number;
}

/** First words shared: "Principal nonresidential buildings" is a sibling of "Principal residential buildings". */
const firstWord = (s: string) => s.toLowerCase().split(/\s+/)[0] ?? '';

/** The values a cell holds, each with the labels above it. */
export function piecesOf(lines: Line[]): Piece[] {
  const segs: Seg[] = [];
  for (const l of lines) {
    LABEL.lastIndex = 0;
    // a label closes its parentheses ("None (note: …)" is a value, not a label)
    const hits = [...l.text.matchAll(LABEL)].filter((h) => (h[2].match(/\(/g) ?? []).length === (h[2].match(/\)/g) ?? []).length);
    if (hits.length === 0 || hits[0].index > 0) {
      const end = hits.length ? hits[0].index : l.text.length;
      const head = l.text.slice(0, end).trim();
      if (head && segs.length) segs[segs.length - 1].value.push(sub(l, 0, end));
      else if (head) segs.push({ label: '', value: [sub(l, 0, end)], start: l.start });
    }
    hits.forEach((h, k) => {
      const from = h.index + h[1].length;
      const labelEnd = from + h[2].length + 1;
      const to = k + 1 < hits.length ? hits[k + 1].index : l.text.length;
      const value = l.text.slice(labelEnd, to).trim() ? [sub(l, labelEnd, to)] : [];
      segs.push({ label: h[2].replace(/\s+/g, ' ').trim(), value, start: l.start + offsetIn(l, from) });
    });
  }
  if (!segs.some((s) => s.label) || !segs.some((s) => s.label && s.value.length)) {
    if (!lines.length) return [];
    return [{ path: [], text: joinLines(lines), start: lines[0].start, end: lines[lines.length - 1].end, labelStart: lines[0].start, label: null, lines }];
  }
  const out: Piece[] = [];
  const parents: string[] = [];
  let children: string[] = [];
  for (const s of segs) {
    if (s.label && s.value.length === 0) {
      // a label with nothing after it opens the labels below it, unless it is a sibling of an open one
      while (parents.length && firstWord(s.label) === firstWord(parents[parents.length - 1])) parents.pop();
      parents.push(s.label);
      children = [];
      continue;
    }
    if (s.label && parents.length && children.length && firstWord(s.label) === firstWord(parents[parents.length - 1]) && firstWord(s.label) !== firstWord(children[0])) {
      parents.pop();
      children = [];
    }
    if (s.label) children.push(s.label);
    const path = s.label ? [...parents, s.label] : [...parents];
    const start = s.value.length ? s.value[0].start : s.start;
    out.push({ path, text: joinLines(s.value), start, end: s.value.length ? s.value[s.value.length - 1].end : s.start, labelStart: s.label ? s.start : start, label: s.label || null, lines: s.value });
  }
  return out;
}

/** The span of a line's text between two of its character positions (text squashed like the line's). */
function sub(l: Line, from: number, to: number): Line {
  const a = l.start + offsetIn(l, from);
  const b = l.start + offsetIn(l, to);
  const t = l.text.slice(from, to);
  const lead = t.length - t.trimStart().length;
  const trail = t.length - t.trimEnd().length;
  return { start: a + lead, end: Math.max(a + lead, b - trail), text: t.trim() };
}

const offsetIn = (l: Line, i: number) => Math.min(i, l.end - l.start);
