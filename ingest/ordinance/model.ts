// The one document model every format is read into: the retained text, heading lines, paragraphs
// and tables as grids. Every span is an offset range into `text`; a quote is text.slice(start, end).
import type { HeadingBlock } from './markdown.ts';
import type { Span } from './text.ts';

/** A printed cell. A spanned cell is the same object in every column (and row) it covers. */
export interface GridCell extends Span {
  text: string; // as printed, white space squashed; '' for an empty cell
  row: number; // the first row and column it occupies
  col: number;
  rowspan: number;
  colspan: number;
  /** the pieces of a cell printed on several lines with other text between (PDF, aligned text) */
  parts?: Span[];
}

export interface GridRow extends Span {
  cells: GridCell[]; // exactly `width` entries, by column
  header: boolean; // a header row: marked up as one (thead, th, a Markdown head) or shown by the structure
  /** the format dropped empty cells, so these columns' cells may belong elsewhere */
  uncertain?: number[];
  /** the row printed more cells than the table has columns: no fact is read from it */
  ambiguous?: boolean;
  page?: number;
}

export interface Grid extends Span {
  format: 'html' | 'markdown' | 'pdf' | 'text';
  caption: (Span & { text: string }) | null; // "Table 4.1 Permitted Uses", from <caption> or the line above
  ref: string | null; // "Table 4.1"
  rows: GridRow[];
  width: number;
  before: Span[]; // up to two paragraphs just before the table (legends, introductions)
  after: Span[]; // up to three paragraphs just after it (legends, notes)
  /** text inside the table's extent that is not a cell: page footers, legends between page parts */
  notes: Span[];
}

/** A format's reading, before sections are built. */
export interface DocLayout {
  text: string;
  pageStarts: number[] | null; // PDFs: where each page's text begins
  headings: HeadingBlock[];
  paragraphs: Span[];
  tables: Grid[];
}

/** The cells a row holds between two columns (inclusive), each once, in column order. */
export function cellsUnder(row: GridRow, from: number, to: number): GridCell[] {
  const out: GridCell[] = [];
  for (let c = Math.max(0, from); c <= Math.min(to, row.cells.length - 1); c++) {
    const cell = row.cells[c];
    if (out[out.length - 1] !== cell) out.push(cell);
  }
  return out;
}

/** Header rows' texts per column, top to bottom, a spanned header counted once per column: ["RS", "1"]. */
export function columnHeads(grid: Grid): string[][] {
  const heads: string[][] = Array.from({ length: grid.width }, () => []);
  const last: (GridCell | null)[] = Array.from({ length: grid.width }, () => null);
  for (const r of grid.rows) {
    if (!r.header) continue;
    r.cells.forEach((c, i) => {
      if (c.text && last[i] !== c) heads[i].push(c.text);
      last[i] = c;
    });
  }
  return heads;
}
