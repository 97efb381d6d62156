// Tables whose cells are placed in columns on a page: a PDF's text layer (x in points) or plain
// text aligned by runs of spaces (x in characters). Lines with several fragments whose left edges
// line up form a region; its columns are the left edges that recur; header lines come before the
// first row label; a row is a line of values with the label lines around it (a label that opens
// with "1." starts a row, the lines up to the next one continue it).
import type { RawCell } from './grid.ts';
import { gridOf } from './layout-grid.ts';
import type { Grid } from './model.ts';
import type { Span } from './text.ts';

export interface Frag extends Span {
  x0: number;
  x1: number;
  text: string;
}

export interface PLine extends Span {
  y: number; // grows down the page (text: the line number)
  size: number; // the font size (text: 1)
  frags: Frag[];
  page: number;
}

export interface LayoutOptions {
  format: Grid['format'];
  tolerance: number; // how far apart two left edges may be and still be one column
  longFrag: number; // a fragment longer than this (in characters) is prose, not a cell
}

export const ENUM = /^\*?(?:\d{1,3}[a-z]?|[A-Za-z])[.,)](?:\s|$)/;
const LEGEND = /\b[A-Z]{1,3}\s*[=\u2013\u2014-]\s*[A-Z][a-z]/;

const MARKER = /^(?:\(?[0-9A-Za-z]{1,4}[.)]|[-\u2022*])$/;
// two fragments where the first is "1." or "(a)" are a list item, not a row
const columnish = (l: PLine, o: LayoutOptions) => l.frags.length >= 3 || (l.frags.length === 2 && l.frags.every((f) => f.text.length <= o.longFrag) && !MARKER.test(l.frags[0].text));

/**
 * Columns as x intervals: the fragments of the fullest lines (the rows with a fragment in every
 * column), merged where they overlap. Centred, left- and right-aligned cells all overlap their
 * column's other cells; a header spanning several columns is not among the fullest lines.
 */
export function columnsOf(lines: PLine[], o: LayoutOptions): [number, number][] {
  const rows = lines.filter((l) => columnish(l, o));
  if (!rows.length) return [];
  const most = Math.max(...rows.map((l) => l.frags.length));
  const full = rows.filter((l) => l.frags.length >= Math.max(2, most * 0.8));
  const spans = full.flatMap((l) => l.frags.map((f) => [f.x0, f.x1] as [number, number])).sort((a, b) => a[0] - b[0]);
  const merge = (list: [number, number][]) => {
    const cols: [number, number][] = [];
    for (const [a, b] of list.sort((x, y) => x[0] - y[0])) {
      const last = cols[cols.length - 1];
      if (last && a <= last[1] + o.tolerance) last[1] = Math.max(last[1], b);
      else cols.push([a, b]);
    }
    return cols;
  };
  const cols = merge(spans);
  // columns the fullest rows leave empty (a merged cell printed once, a district named once)
  const more = lines.flatMap((l) => l.frags.map((f) => [f.x0, f.x1] as [number, number])).filter(([a, b]) => !cols.some(([x, y]) => a <= y + o.tolerance && x <= b + o.tolerance));
  // such a column holds at least two lines' fragments, and a figure unless it comes before all others (a label column)
  const inside = (a: number, b: number) => lines.flatMap((l) => l.frags.filter((f) => f.x0 >= a - o.tolerance && f.x1 <= b + o.tolerance));
  const extra = merge(more).filter(([a, b]) => {
    const fs = inside(a, b);
    const figures = fs.filter((f) => /^[\d.,$]+|^[A-Z]{1,3}$/.test(f.text)).length;
    return new Set(fs.map((f) => f.start)).size >= 2 && (b < cols[0][0] || figures >= 2);
  });
  return merge([...cols, ...extra]);
}

/** The columns a fragment stands in: the one it overlaps most, or several when it spans them. */
export function columnsAt(cols: [number, number][], f: Frag): [number, number] {
  const over = cols.map(([a, b]) => Math.max(0, Math.min(b, f.x1) - Math.max(a, f.x0)));
  const hit = over.map((v, i) => (v > 0 && v >= 0.3 * Math.min(cols[i][1] - cols[i][0], f.x1 - f.x0) ? i : -1)).filter((i) => i >= 0);
  if (hit.length > 1) return [hit[0], hit[hit.length - 1]];
  if (hit.length === 1) return [hit[0], hit[0]];
  const mid = (f.x0 + f.x1) / 2;
  let best = 0;
  cols.forEach(([a, b], i) => {
    if (Math.abs((a + b) / 2 - mid) < Math.abs((cols[best][0] + cols[best][1]) / 2 - mid)) best = i;
  });
  return [best, best];
}

/** Whether two lines set their fragments in the same places (most fragments of `l` line up with `ref`'s). */
function aligned(l: PLine, ref: PLine, tol: number): boolean {
  const centres = ref.frags.map((f) => (f.x0 + f.x1) / 2);
  const hits = l.frags.filter((f) => centres.some((c) => Math.abs((f.x0 + f.x1) / 2 - c) <= tol * 3) || ref.frags.some((r) => Math.abs(r.x0 - f.x0) <= tol)).length;
  return hits >= l.frags.length * 0.6;
}

interface Region {
  lines: PLine[];
}

/** Runs of lines that look like one table. */
function regions(lines: PLine[], o: LayoutOptions): Region[] {
  const out: Region[] = [];
  let i = 0;
  while (i < lines.length) {
    if (!columnish(lines[i], o)) {
      i++;
      continue;
    }
    const run: PLine[] = [lines[i]];
    let lastRow = lines[i];
    const seen: PLine[] = [lines[i]];
    const gaps: number[] = [];
    let j = i + 1;
    while (j < lines.length && lines[j].page === lines[i].page) {
      const l = lines[j];
      const gap = l.y - run[run.length - 1].y;
      const typical = gaps.length ? gaps.slice(-8).sort((a, b) => a - b)[Math.min(gaps.length, 8) >> 1] : gap;
      if (columnish(l, o)) {
        // a row set like the rows before it belongs, however far down; another layout ends the table
        if (!seen.some((r) => aligned(l, r, o.tolerance) || aligned(r, l, o.tolerance)) && gap > Math.max(typical * 2.2, l.size * 3)) break;
        run.push(l);
        lastRow = l;
        seen.push(l);
        gaps.push(gap);
        j++;
        continue;
      }
      // a line of one fragment stays when a column-ish line follows soon, or it continues the last row
      const ahead = lines.slice(j + 1, j + 4).some((n) => n.page === l.page && columnish(n, o) && seen.some((r) => aligned(n, r, o.tolerance)));
      const long = l.frags.some((f) => f.text.length > o.longFrag * 2);
      if (long || LEGEND.test(l.frags.map((f) => f.text).join(' '))) break;
      if (ahead || gap <= Math.max(typical * 1.2, l.size * 1.4)) {
        run.push(l);
        gaps.push(gap);
        j++;
        continue;
      }
      break;
    }
    // trailing lines after the last row are not the table's
    const median = gaps.length ? gaps.slice().sort((a, b) => a - b)[gaps.length >> 1] : 0;
    while (run.length && !columnish(run[run.length - 1], o) && run[run.length - 1].y - lastRow.y > median * 2.5 + 0.01) run.pop();
    if (run.filter((l) => columnish(l, o)).length >= 3) out.push({ lines: run });
    i = Math.max(i + run.length, i + 1);
  }
  return out;
}

/** Joins fragments of one cell. */
export function cellOf(frags: Frag[]): RawCell {
  const text = frags.map((f) => f.text.trim()).join(' ').replace(/\s+/g, ' ');
  const start = Math.min(...frags.map((f) => f.start));
  const end = Math.max(...frags.map((f) => f.end));
  const cell: RawCell = { start, end, text };
  if (frags.length > 1) cell.parts = frags.map((f) => ({ start: f.start, end: f.end }));
  return cell;
}

/** Tables found among positioned lines, and the lines they use. */
export function layoutTables(lines: PLine[], o: LayoutOptions): { grids: Grid[]; used: Set<PLine> } {
  const grids: Grid[] = [];
  const used = new Set<PLine>();
  for (const r of regions(lines, o)) {
    const g = gridOf(r.lines, columnsOf(r.lines, o), o);
    if (!g) continue;
    grids.push(g);
    for (const l of r.lines) used.add(l);
  }
  return { grids, used };
}
