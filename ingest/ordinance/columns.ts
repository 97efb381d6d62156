// Which columns of a table speak for which districts. The header is the block of leading rows
// (at most six) that names the most districts: a code per column, a code split over two lines
// ("RS" over "10"), a merged column ("RM 5-5.5"), a list ("R-A/R-1"). Columns left of the first
// district are the row's label (and its number); columns right of the last are notes or standards.
// Inside a district's own section, numbered columns ("1 | 2") are that district's. Pure.
import { type DistrictIndex, readCodes, splitCodeList } from './codes.ts';
import type { Grid, GridCell, GridRow } from './model.ts';
import type { Span } from './text.ts';

export interface DistrictColumn extends Span {
  index: number;
  codes: string[]; // the districts it speaks for, as held
  printed: string; // the header as printed ("RS 1", "RM 5-5.5")
  variant: number | null; // a numbered column inside a district's section
}

export interface Layout {
  headerEnd: number; // the last header row (-1: none)
  columns: DistrictColumn[];
  labelCols: number[];
  trailing: Array<{ index: number; name: string }>;
  unknown: string[]; // header texts shaped like codes that name no district held
}

/** Header texts of a column from the first rows to `end`, a spanned cell once. */
function headsOf(rows: GridRow[], end: number, col: number): { texts: string[]; cells: GridCell[] } {
  const texts: string[] = [];
  const cells: GridCell[] = [];
  let last: GridCell | null = null;
  for (let r = 0; r <= end; r++) {
    const c = rows[r].cells[col];
    if (c && c !== last && c.text) {
      texts.push(c.text);
      cells.push(c);
    }
    last = c ?? null;
  }
  return { texts, cells };
}

export interface LayoutOptions {
  index: DistrictIndex;
  /** whether a printed code names a district */
  accept: (code: string) => boolean;
  around: string | null;
}

/** The district columns of a table, or null when its header names none. */
export function layoutOf(grid: Grid, opts: LayoutOptions): Layout | null {
  const { rows } = grid;
  if (rows.length < 2 || grid.width < 2) return null;
  const { accept } = opts;
  const resolve = (code: string) => opts.index.resolve(code) ?? code.replace(/^([A-Z]+)\s(\d)/, '$1$2');
  let best: { end: number; columns: DistrictColumn[]; unknown: string[] } | null = null;
  const limit = Math.min(5, rows.length - 2);
  for (let end = 0; end <= limit; end++) {
    const columns: DistrictColumn[] = [];
    const unknown: string[] = [];
    let previous: GridCell | null = null;
    for (let col = 1; col < grid.width; col++) {
      const { texts, cells } = headsOf(rows, end, col);
      const top = cells[cells.length - 1];
      if (texts.length === 0 || top === previous) continue;
      previous = top;
      const read = readCodes(texts, accept, opts.index);
      const from = read ? cells[read.at] : top;
      const to = read?.how === 'split' ? cells[read.at + 1] : from;
      if (read) columns.push({ index: col, codes: read.codes.map(resolve), printed: read.how === 'split' ? texts.slice(read.at, read.at + 2).join(' ') : texts[read.at], variant: null, start: from.start, end: to.end });
      else unknown.push(...(splitCodeList(texts[texts.length - 1].replace(/:$/, '')) ?? []).filter((c) => c.length > 1 && !accept(c)));
    }
    // a district has one column: a header whose columns repeat a code ("Y | Y | N | N") reaches into the body
    const codes = columns.flatMap((c) => c.codes);
    if (new Set(codes).size < codes.length) continue;
    if (columns.length > 0 && (!best || columns.length > best.columns.length)) best = { end, columns, unknown };
  }
  if (!best && opts.around) {
    // numbered columns inside a district's own section ("Use Category | 1 | 2")
    for (let end = 0; end <= Math.min(2, rows.length - 2); end++) {
      const columns: DistrictColumn[] = [];
      rows[end].cells.forEach((c, col) => {
        if (col > 0 && /^\d$/.test(c.text) && c !== rows[end].cells[col - 1]) columns.push({ index: col, codes: [opts.around as string], printed: c.text, variant: Number(c.text), start: c.start, end: c.end });
      });
      if (columns.length > 0) {
        best = { end, columns, unknown: [] };
        break;
      }
    }
  }
  if (!best) return null;
  const first = best.columns[0].index;
  const last = best.columns[best.columns.length - 1].index;
  const labelCols = Array.from({ length: first }, (_, i) => i);
  const trailing: Layout['trailing'] = [];
  for (let col = last + 1; col < grid.width; col++) {
    const { texts } = headsOf(rows, best.end, col);
    const name = [...texts].reverse().find((t) => t.length <= 60 && !/=/.test(t)) ?? texts[0] ?? `column ${col + 1}`;
    if (!trailing.some((t) => t.name === name && rows.every((r) => r.cells[col] === r.cells[t.index]))) trailing.push({ index: col, name });
  }
  return { headerEnd: best.end, columns: best.columns, labelCols, trailing, unknown: best.unknown };
}
