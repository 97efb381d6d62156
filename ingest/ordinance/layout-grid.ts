// One region of positioned lines into a grid. Label columns are the leading columns that hold
// text, not figures. Header lines come before the first line with a label and a figure. Rows:
// where labels are numbered ("1.", "4a."), a numbered label opens a row and the lines up to the
// next one continue it; otherwise each block of label lines (lines a line-height apart) is a row,
// and a figure standing between rows is a merged cell over the rows it is centred on (Word and
// InDesign tables print a merged cell's text once, in its middle).
import { cellKind } from './cells.ts';
import { buildGrid, emptyGrid, type RawCell, type RawRow } from './grid.ts';
import { cellOf, columnsAt, ENUM, type Frag, type LayoutOptions, type PLine } from './layout.ts';
import type { Grid } from './model.ts';

interface Placed {
  f: Frag;
  line: PLine;
  from: number; // first and last column it stands in
  to: number;
}

const isFigure = (t: string) => cellKind(t) === 'mark' || cellKind(t) === 'number';

function headerRows(frags: Placed[], width: number): RawRow[] {
  if (!frags.length) return [];
  const start = Math.min(...frags.map((p) => p.line.start));
  const end = Math.max(...frags.map((p) => p.line.end));
  const row = (ps: Placed[]): RawRow => {
    const cells: RawCell[] = [];
    let col = 0;
    const groups: Placed[][] = [];
    for (const p of ps.sort((a, b) => a.from - b.from || a.line.y - b.line.y)) {
      const g = groups.find((x) => x.some((q) => q.from <= p.to && p.from <= q.to));
      if (g) g.push(p);
      else groups.push([p]);
    }
    groups.sort((a, b) => Math.min(...a.map((p) => p.from)) - Math.min(...b.map((p) => p.from)));
    for (const g of groups) {
      const from = Math.min(...g.map((p) => p.from));
      const to = Math.max(...g.map((p) => p.to));
      if (from < col) continue;
      for (; col < from; col++) cells.push({ start: end, end, text: '' });
      cells.push({ ...cellOf(g.sort((a, b) => a.line.y - b.line.y || a.f.x0 - b.f.x0).map((p) => p.f)), colspan: to - from + 1 });
      col = to + 1;
    }
    for (; col < width; col++) cells.push({ start: end, end, text: '' });
    return { start, end, header: true, cells, page: frags[0].line.page };
  };
  // a label over several columns ("YARD SETBACKS") is a row of its own above the columns' own labels
  const spanning = frags.filter((p) => p.to > p.from);
  const single = frags.filter((p) => p.to === p.from);
  return spanning.length && single.length ? [row(spanning), row(single)] : [row(frags)];
}

export function gridOf(lines: PLine[], cols: [number, number][], o: LayoutOptions): Grid | null {
  if (cols.length < 2) return null;
  const placed: Placed[][] = lines.map((line) =>
    line.frags.map((f) => {
      const [from, to] = columnsAt(cols, f);
      return { f, line, from, to };
    }),
  );
  // label columns: leading columns whose cells are words, not figures
  const figures = cols.map(() => 0);
  const counts = cols.map(() => 0);
  for (const ps of placed)
    for (const p of ps) {
      counts[p.from]++;
      if (isFigure(p.f.text)) figures[p.from]++;
    }
  let labels = 0;
  while (labels < cols.length - 1 && counts[labels] > 0 && figures[labels] <= counts[labels] * 0.2) labels++;
  labels = Math.max(1, labels);
  const anchor = labels - 1;
  const labelOf = (ps: Placed[]) => ps.find((p) => p.from === anchor);
  const hasLabel = (ps: Placed[]) => ps.some((p) => p.from < labels);
  const hasValues = (ps: Placed[]) => ps.some((p) => p.from >= labels);
  // header: lines before the first row, a line with a label and a figure of the body's kind (marks
  // in a use table: district numbers in its header are not), or a label alone right above figures
  let marks = 0;
  let numbers = 0;
  for (const p of placed.flat())
    if (p.from >= labels) {
      if (cellKind(p.f.text) === 'mark') marks++;
      else if (cellKind(p.f.text) === 'number') numbers++;
    }
  const bodyKind = (t: string) => (marks > numbers ? cellKind(t) === 'mark' : isFigure(t));
  const figure = (ps: Placed[] | undefined) => !!ps?.some((p) => p.from >= labels && bodyKind(p.f.text));
  let h = 0;
  while (h < placed.length) {
    const ps = placed[h];
    if (hasLabel(ps) && (figure(ps) || (!hasValues(ps) && figure(placed[h + 1])))) break;
    h++;
  }
  // a numbered label printed on a header line's baseline opens the first row
  const opening = placed.slice(0, h).map((ps) => ps.filter((p) => p.from === anchor && ENUM.test(p.f.text)));
  for (let k = 0; k < h; k++) if (opening[k].length) placed[k] = placed[k].filter((p) => !opening[k].includes(p));
  const lifted = opening.filter((ps) => ps.length);
  if (h === placed.length) return null;
  const body = [...lifted, ...placed.slice(h)];
  const labelled = body.map(labelOf).filter((p): p is Placed => !!p);
  const numberedCount = labelled.filter((p) => opensRow(p)).length;
  const enumerated = numberedCount >= 3 ? numberedCount / labelled.length >= 0.15 : labelled.length > 0 && numberedCount / labelled.length >= 0.4;
  const raw: RawRow[] = headerRows(placed.slice(0, h).flat(), cols.length);
  const rowsOf = enumerated ? enumeratedRows(body, labelOf, hasValues) : bandRows(body, anchor, labels);
  for (const r of rowsOf) raw.push(r.category ? category(r.cells, cols.length) : r.raw(cols.length));
  const { rows, width } = buildGrid(raw);
  if (rows.length < 2) return null;
  return emptyGrid(o.format, rows, width);
}

interface Built {
  category: boolean;
  cells: Placed[];
  raw: (width: number) => RawRow;
}

function category(ps: Placed[], width: number): RawRow {
  const fs = ps.map((p) => p.f).sort((a, b) => a.start - b.start);
  const c = cellOf(fs);
  return { start: Math.min(...ps.map((p) => p.line.start)), end: Math.max(...ps.map((p) => p.line.end)), header: false, page: ps[0].line.page, cells: [{ ...c, colspan: width }] };
}

/** Cells of one row from the fragments placed in it, with rowspans given per column. */
function rowFrom(ps: Placed[], width: number, covered: Set<number>, spans: Map<number, number>): RawRow {
  const start = Math.min(...ps.map((p) => p.line.start));
  const end = Math.max(...ps.map((p) => p.line.end));
  const byCol = new Map<number, Placed[]>();
  for (const p of ps) byCol.set(p.from, [...(byCol.get(p.from) ?? []), p]);
  const cells: RawCell[] = [];
  for (let c = 0; c < width; c++) {
    if (covered.has(c)) continue;
    const here = byCol.get(c);
    if (!here) {
      cells.push({ start: end, end, text: '' });
      continue;
    }
    const to = Math.max(...here.map((p) => p.to));
    cells.push({ ...cellOf(here.map((p) => p.f).sort((a, b) => a.start - b.start)), colspan: to - c + 1, rowspan: spans.get(c) ?? 1 });
    c = to;
  }
  return { start, end, header: false, page: ps[0]?.line.page, cells };
}

/** A numbered label ("1. Urban Farm", or "7." with its words in the next fragment), not a bare "13)" that wrapped. */
function opensRow(p: Placed): boolean {
  if (!ENUM.test(p.f.text)) return false;
  const words = p.line.frags.filter((f) => f.x0 >= p.f.x0 && f.x0 < p.f.x1 + 40).map((f) => f.text).join(' ');
  return /[A-Za-z]{2}/.test(words.replace(ENUM, ''));
}

/** Rows opened by numbered labels ("1.", "13."), continued by the lines up to the next one. */
function enumeratedRows(body: Placed[][], labelOf: (ps: Placed[]) => Placed | undefined, hasValues: (ps: Placed[]) => boolean): Built[] {
  const groups: Placed[][][] = [];
  for (const ps of body) {
    const label = labelOf(ps);
    const opens = !!label && opensRow(label);
    const cur = groups[groups.length - 1];
    if (!cur || opens || (hasValues(ps) && cur.some(hasValues))) groups.push([ps]);
    else cur.push(ps);
  }
  return groups.map((g) => {
    const cells = g.flat();
    return { category: !g.some(hasValues), cells, raw: (width) => rowFrom(cells, width, new Set(), new Map()) };
  });
}

/**
 * Rows as blocks of label lines; every other fragment goes to the rows it is centred on: its own
 * row when it stands within one, or several (a merged cell) when it stands between them.
 */
function bandRows(body: Placed[][], anchor: number, labels: number): Built[] {
  const labelLines = body.filter((ps) => ps.some((p) => p.from === anchor));
  if (labelLines.length === 0) return body.map((ps) => ({ category: false, cells: ps, raw: (w: number) => rowFrom(ps, w, new Set(), new Map()) }));
  const gaps = labelLines.slice(1).map((ps, i) => ps[0].line.y - labelLines[i][0].line.y);
  const bands: { top: number; bottom: number; lines: Placed[][] }[] = [];
  const valued = (ps: Placed[]) => ps.some((p) => p.from >= labels);
  labelLines.forEach((ps, i) => {
    const y = ps[0].line.y;
    const last = bands[bands.length - 1];
    // a label line a line-height below the last continues its row, unless both print their own figures
    if (last && i > 0 && gaps[i - 1] <= ps[0].line.size * 1.35 && !(valued(ps) && last.lines.some(valued))) {
      last.bottom = y;
      last.lines.push(ps);
    } else bands.push({ top: y, bottom: y, lines: [ps] });
  });
  const members: Placed[][] = bands.map(() => []);
  const spanOf: Map<Placed, number> = new Map();
  const own = (bi: number, col: number) => members[bi].some((p) => p.from === col);
  const rest: Placed[] = [];
  for (const ps of body)
    for (const p of ps) {
      const bi = bands.findIndex((b) => b.lines.includes(ps));
      if (p.from === anchor && bi >= 0) members[bi].push(p);
      else rest.push(p);
    }
  // figures first within their own band, then merged cells between bands
  const centre = (a: number, b: number) => (bands[a].top + bands[b].bottom) / 2;
  // on a label line's baseline: that row; elsewhere, the rows it is centred on
  const inside = (p: Placed) => bands.findIndex((b) => b.lines.some((ps) => Math.abs(ps[0].line.y - p.line.y) <= p.line.size * 0.3));
  const later: Placed[] = [];
  for (const p of rest) {
    const bi = inside(p);
    if (bi >= 0 && !own(bi, p.from) && p.from >= labels) members[bi].push(p);
    else later.push(p);
  }
  for (const p of later) {
    let best: [number, number] | null = null;
    let dist = Number.POSITIVE_INFINITY;
    for (let a = 0; a < bands.length; a++) {
      if (own(a, p.from)) continue;
      for (let b = a; b < bands.length && !own(b, p.from); b++) {
        const d = Math.abs(centre(a, b) - p.line.y);
        if (d < dist - 0.01) {
          dist = d;
          best = [a, b];
        }
      }
    }
    if (!best) continue;
    members[best[0]].push(p);
    spanOf.set(p, best[1] - best[0] + 1);
  }
  const coveredBy: Set<number>[] = bands.map(() => new Set());
  return bands.map((_, bi) => {
    const cells = members[bi];
    const spans = new Map<number, number>();
    for (const p of cells) {
      const n = spanOf.get(p) ?? 1;
      if (n > 1) {
        spans.set(p.from, n);
        for (let k = 1; k < n; k++) for (let c = p.from; c <= p.to; c++) coveredBy[bi + k].add(c);
      }
    }
    const covered = coveredBy[bi];
    return { category: false, cells, raw: (w: number) => rowFrom(cells, w, covered, spans) };
  });
}
