// Tables of a PDF from its drawn rules (pdf-ruled.ts) and, where none are drawn, from its
// positioned lines, joined across pages: a table whose header repeats at the top of the next page
// continues there (its repeated header is dropped, a group label printed above it becomes a
// category row, the page's footer and running title become notes). Paragraphs are the runs of
// other lines, split where the line spacing opens up.
import { buildGrid, type RawRow } from './grid.ts';
import { layoutTables, type PLine } from './layout.ts';
import { columnHeads, type Grid, type GridRow } from './model.ts';
import type { Rule } from './pdf-layout.ts';
import { ruledTables } from './pdf-ruled.ts';
import type { Span } from './text.ts';

const squashed = (s: string) => s.toLowerCase().replace(/[^a-z0-9]/g, '');
// the header a page repeats, letters and digits only (a superscript or a line break may differ)
const headKey = (g: Grid) => columnHeads(g).map((h) => squashed(h.join(' '))).join('|');

function paragraphsOf(lines: PLine[], used: Set<PLine>): Span[] {
  const out: Span[] = [];
  let cur: Span | null = null;
  let prev: PLine | null = null;
  let typical = 12;
  for (const l of lines) {
    if (used.has(l) || l.frags.length === 0) {
      if (cur) out.push(cur);
      cur = null;
      prev = null;
      continue;
    }
    const gap = prev && prev.page === l.page ? l.y - prev.y : Number.POSITIVE_INFINITY;
    if (prev && gap < 40) typical = typical * 0.8 + gap * 0.2;
    if (cur && gap <= typical * 1.35) cur.end = l.end;
    else {
      if (cur) out.push(cur);
      cur = { start: l.start, end: l.end };
    }
    prev = l;
  }
  if (cur) out.push(cur);
  return out;
}

/** The text of the lines just above a table: its caption and running title. */
function titleAbove(text: string, lines: PLine[], g: Grid): string {
  const first = lines.findIndex((l) => l.start >= g.start);
  return squashed(
    lines
      .slice(Math.max(0, first - 3), Math.max(0, first))
      .map((l) => text.slice(l.start, l.end))
      .join(' '),
  );
}

/** A short line just above a continued table that is not its running title: a group label. */
function groupLabel(text: string, lines: PLine[], g: Grid, title: string): PLine | null {
  const first = lines.findIndex((l) => l.start >= g.start);
  for (let i = first - 1; i >= Math.max(0, first - 2); i--) {
    const l = lines[i];
    const s = text.slice(l.start, l.end).trim();
    if (l.frags.length !== 1 || s.length > 60 || /\btable\s+\d/i.test(s) || /^\d+$/.test(s) || (squashed(s).length > 8 && title.includes(squashed(s)))) continue;
    if (/[a-z]/.test(s.replace(/continued/gi, '')) && s !== s.toUpperCase()) continue;
    return l;
  }
  return null;
}

/** A grid back into printed rows (each cell once, where it starts). */
function rawOf(g: Grid, keep: (r: GridRow) => boolean): RawRow[] {
  return g.rows
    .map((r, ri) => ({ r, ri }))
    .filter(({ r }) => keep(r))
    .map(({ r, ri }) => ({
      start: r.start,
      end: r.end,
      header: r.header,
      page: r.page,
      uncertain: r.uncertain,
      cells: r.cells.filter((c, ci) => c.row === ri && c.col === ci).map((c) => ({ start: c.start, end: c.end, text: c.text, colspan: c.colspan, rowspan: c.rowspan, parts: c.parts })),
    }));
}

export function pdfTables(text: string, lines: PLine[], rules: Rule[] = []): { tables: Grid[]; paragraphs: Span[]; used: Set<PLine> } {
  const ruled = ruledTables(lines, rules);
  const laid = layoutTables(
    lines.filter((l) => !ruled.used.has(l)),
    { format: 'pdf', tolerance: 3, longFrag: 60 },
  );
  const grids = [...ruled.grids, ...laid.grids].sort((a, b) => a.start - b.start);
  const used = new Set([...ruled.used, ...laid.used]);
  const tables: Grid[] = [];
  const titles = new Map<Grid, string>();
  for (const g of grids) {
    const prev = tables[tables.length - 1];
    const page = g.rows[0]?.page ?? 0;
    const prevPage = prev?.rows[prev.rows.length - 1]?.page ?? -1;
    if (!prev || page !== prevPage + 1 || prev.width !== g.width || headKey(prev) !== headKey(g)) {
      tables.push(g);
      titles.set(g, titleAbove(text, lines, g));
      continue;
    }
    const label = groupLabel(text, lines, g, titles.get(prev) ?? '');
    const labelRow: RawRow[] = label ? [{ start: label.start, end: label.end, header: false, page, cells: [{ start: label.frags[0].start, end: label.frags[0].end, text: label.frags[0].text, colspan: g.width }] }] : [];
    const merged = buildGrid([...rawOf(prev, () => true), ...labelRow, ...rawOf(g, (r) => !r.header)]);
    prev.notes.push({ start: prev.end, end: label ? label.start : g.rows.find((r) => !r.header)?.start ?? g.start });
    prev.rows = merged.rows;
    prev.end = g.end;
  }
  return { tables, paragraphs: paragraphsOf(lines, used), used };
}
