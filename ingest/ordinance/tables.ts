// Pipe tables read cell by cell with exact offsets. A row whose cell count differs from the
// table's is reported (table_columns_mismatch): missing trailing cells are read as empty, and
// extra cells are dropped only when they are empty; otherwise the row is kept but marked
// ambiguous, and no fact is read from it.
import type { ParseIssue } from '../types.ts';
import type { Grid, GridRow } from './model.ts';
import { type Span, trimSpan } from './text.ts';

export interface Cell extends Span {
  text: string; // as printed, trimmed
}

export interface Row extends Span {
  cells: Cell[];
  ambiguous: boolean;
}

export interface Table extends Span {
  title: Cell | null; // "Table 3.1.16 Permitted Uses", from the first row or the line before
  ref: string | null; // "Table 3.1.16"
  rows: Row[]; // without the title row and separator rows
  width: number;
}

const SEPARATOR = /^\s*\|?\s*:?-{3,}:?\s*(\|\s*:?-{3,}:?\s*)*\|?\s*$/;
const TITLE = /^(?:Table|TABLE)\s+\d[\dA-Za-z]*(?:\s*[.-]\s*\d[\dA-Za-z]*)*\.?(?:\s*\([a-z0-9]\))?/;

/** "Table 8.4.12 (a)" from "Table 8.4.12 (a) Superseding Dimensional Standards". */
export function tableRef(title: string): string | null {
  const m = TITLE.exec(title.trim());
  return m ? m[0].replace(/\s+/g, ' ').replace(/\.$/, '').trim() : null;
}

function cellsOf(text: string, line: Span): Cell[] {
  const cells: Cell[] = [];
  let i = line.start;
  while (i < line.end && (text[i] === ' ' || text[i] === '\t')) i++;
  if (text[i] === '|') i++;
  let start = i;
  for (; i <= line.end; i++) {
    const c = i < line.end ? text[i] : '|';
    if (c === '\\' && i + 1 < line.end) {
      i++;
      continue;
    }
    if (c !== '|') continue;
    const s = trimSpan(text, start, i);
    cells.push({ ...s, text: text.slice(s.start, s.end) });
    start = i + 1;
  }
  // a trailing pipe leaves one empty cell after it
  const last = cells[cells.length - 1];
  if (cells.length > 1 && last.text === '' && /\|\s*$/.test(text.slice(line.start, line.end))) cells.pop();
  return cells;
}

export function readTable(text: string, lines: Span[], before: Span | null, issues: ParseIssue[]): Table {
  const all = lines.map((l) => ({ line: l, sep: SEPARATOR.test(text.slice(l.start, l.end)) }));
  const sepAt = all.findIndex((l) => l.sep);
  const rowsRaw = all.filter((l) => !l.sep).map((l) => ({ ...trimSpan(text, l.line.start, l.line.end), cells: cellsOf(text, l.line) }));
  const width = sepAt >= 0 ? cellsOf(text, all[sepAt].line).length : Math.max(...rowsRaw.map((r) => r.cells.length));
  let title: Cell | null = null;
  const lead = rowsRaw.findIndex((r) => r.cells.some((c) => c.text !== ''));
  const first = rowsRaw[lead];
  if (first && TITLE.test(first.cells[0]?.text ?? '') && first.cells.slice(1).every((c) => c.text === '')) {
    title = first.cells[0];
    rowsRaw.splice(0, lead + 1);
  } else if (before && TITLE.test(text.slice(before.start, before.end)) && before.end - before.start < 160) {
    title = { ...before, text: text.slice(before.start, before.end) };
  }
  const ref = title ? tableRef(title.text) : null;
  const rows: Row[] = rowsRaw.map((r) => {
    if (r.cells.length === width) return { ...r, ambiguous: false };
    const extra = r.cells.slice(width);
    const ambiguous = extra.some((c) => c.text !== '');
    issues.push({
      severity: 'warning',
      code: 'table_columns_mismatch',
      detail: `${ref ?? 'table'}: a row has ${r.cells.length} cells, the table ${width}${ambiguous ? '; no fact is read from it' : '; read with the missing or empty cells as empty'}`,
      locator: { table: ref, start: r.start, end: r.end },
    });
    const cells = r.cells.slice(0, width);
    const end = cells.length ? cells[cells.length - 1].end : r.start;
    while (cells.length < width) cells.push({ start: end, end, text: '' });
    return { ...r, cells, ambiguous };
  });
  const start = title && title.start < lines[0].start ? title.start : lines[0].start;
  return { start, end: lines[lines.length - 1].end, title, ref, rows, width };
}

/** Texts of the non-empty cells of a row. */
export const filled = (row: Row) => row.cells.filter((c) => c.text !== '');

/** A pipe table as a grid: its rows above the separator line are the header. */
export function tableToGrid(t: Table, headerRows: number): Grid {
  const rows: GridRow[] = t.rows.map((r, ri) => {
    const row: GridRow = { start: r.start, end: r.end, header: ri < headerRows, cells: r.cells.map((c, ci) => ({ ...c, row: ri, col: ci, rowspan: 1, colspan: 1 })) };
    if (r.ambiguous) row.ambiguous = true;
    return row;
  });
  return { format: 'markdown', start: t.start, end: t.end, caption: t.title, ref: t.ref, rows, width: t.width, before: [], after: [], notes: [] };
}

/** The grid as the row-by-row table the use and dimension readers take: a spanned cell's text once, where it starts. */
export function gridToTable(g: Grid): Table {
  const rows: Row[] = g.rows.map((r, ri) => ({
    start: r.start,
    end: r.end,
    ambiguous: !!r.ambiguous,
    cells: r.cells.map((c, ci) => (c.row === ri && c.col === ci ? { start: c.start, end: c.end, text: c.text } : { start: r.end, end: r.end, text: '' })),
  }));
  return { start: g.start, end: g.end, title: g.caption, ref: g.ref, rows, width: g.width };
}
