// Rows of printed cells, with their colspan and rowspan, into a grid where a spanned cell is known
// in every column and row it covers. Rows with nothing printed (spacer rows) are dropped.
import type { Grid, GridCell, GridRow } from './model.ts';
import type { Span } from './text.ts';

export interface RawCell extends Span {
  text: string;
  colspan?: number;
  rowspan?: number;
  parts?: Span[];
}

export interface RawRow extends Span {
  cells: RawCell[];
  header: boolean;
  page?: number;
  uncertain?: number[];
}

const MAX_SPAN = 200;
const clampSpan = (n: number | undefined) => Math.min(MAX_SPAN, Math.max(1, Math.floor(n ?? 1) || 1));

/** Resolve spans. A rowspan of 0 or past the end covers the remaining rows. */
export function buildGrid(raw: RawRow[]): { rows: GridRow[]; width: number } {
  const kept = raw.filter((r) => r.cells.some((c) => c.text !== ''));
  const placed: GridCell[][] = kept.map(() => []);
  let width = 0;
  kept.forEach((r, ri) => {
    let col = 0;
    for (const c of r.cells) {
      while (placed[ri][col]) col++;
      const colspan = clampSpan(c.colspan);
      const rowspan = c.rowspan === 0 ? kept.length - ri : Math.min(kept.length - ri, clampSpan(c.rowspan));
      const cell: GridCell = { text: c.text, start: c.start, end: c.end, row: ri, col, rowspan, colspan, ...(c.parts ? { parts: c.parts } : {}) };
      for (let dr = 0; dr < rowspan; dr++) for (let dc = 0; dc < colspan; dc++) placed[ri + dr][col + dc] = cell;
      col += colspan;
    }
    width = Math.max(width, placed[ri].length);
  });
  const rows: GridRow[] = kept.map((r, ri) => {
    const cells = placed[ri];
    for (let c = 0; c < width; c++) {
      if (cells[c]) continue;
      // a column this row does not print: an empty cell at the row's end
      cells[c] = { text: '', start: r.end, end: r.end, row: ri, col: c, rowspan: 1, colspan: 1 };
    }
    const row: GridRow = { start: r.start, end: r.end, cells, header: r.header };
    if (r.page !== undefined) row.page = r.page;
    if (r.uncertain?.length) row.uncertain = r.uncertain;
    return row;
  });
  return { rows, width };
}

/** A grid with no caption, context or notes yet. */
export function emptyGrid(format: Grid['format'], rows: GridRow[], width: number): Grid {
  const start = rows.length ? Math.min(...rows.map((r) => r.start)) : 0;
  const end = rows.length ? Math.max(...rows.map((r) => r.end)) : 0;
  return { format, start, end, caption: null, ref: null, rows, width, before: [], after: [], notes: [] };
}

/** Paragraphs just before and after each table, and a "Table N" caption from the line above. */
export function attachContext(grid: Grid, text: string, paragraphs: Span[], tableRef: (s: string) => string | null): void {
  const before = paragraphs.filter((p) => p.end <= grid.start).slice(-2);
  const after = paragraphs.filter((p) => p.start >= grid.end).slice(0, 3);
  grid.before = before;
  grid.after = after;
  if (grid.caption) {
    grid.ref = grid.ref ?? tableRef(grid.caption.text);
    return;
  }
  const last = before[before.length - 1];
  if (last && grid.start - last.end < 8 && last.end - last.start < 200) {
    const s = text.slice(last.start, last.end);
    const ref = tableRef(s);
    if (ref) {
      grid.caption = { ...last, text: s.replace(/\s+/g, ' ') };
      grid.ref = ref;
    }
  }
}
