// An ordinance page in HTML into the document model. The retained text has headings as `#`
// lines, paragraphs and list items as their own lines, and tables as pipe tables (caption on the
// line before), so every quote is a verbatim substring of it; tables are also read as grids with
// colspan and rowspan resolved. Emphasis (bold or centred blocks, h1–h6) is kept for headings.
import { decodeEntities } from '../records/html-table.ts';
import { headerRowCount } from './cells.ts';
import { buildGrid, emptyGrid, type RawRow } from './grid.ts';
import { attr, boldOf, centeredOf, readStyleSheets, type StyleSheet } from './html-style.ts';
import type { Grid, GridRow } from './model.ts';
import type { Candidate } from './numbering.ts';
import type { Span } from './text.ts';

const BLOCK = new Set(['p', 'div', 'li', 'ul', 'ol', 'section', 'article', 'main', 'header', 'footer', 'blockquote', 'dd', 'dt', 'dl', 'br', 'hr', 'center', 'pre', 'address', 'figure', 'figcaption', 'body']);
const VOID = new Set(['br', 'hr', 'img', 'meta', 'link', 'input', 'col', 'wbr', 'area', 'base', 'source']);
const SKIP = /<!--[\s\S]*?-->|<(script|style|head|nav|noscript|template)\b[^>]*>[\s\S]*?<\/\1\s*>/gi;
const squash = (s: string) => s.replace(/\s+/g, ' ').trim();
const pipeSafe = (s: string) => s.replace(/\|/g, '\\|');
const LETTER = /[A-Za-z0-9]/g;
const SUPER_DIGITS = '⁰¹²³⁴⁵⁶⁷⁸⁹';

/**
 * A superscript as the retained text keeps it: digits as superscript digits ("35<sup>2</sup>" is
 * "35²", never the number 352), one letter or a bracketed mark as "[a]", words ("1<sup>st</sup>")
 * as they are.
 */
export function superscript(s: string): string {
  const t = s.trim();
  if (/^\d{1,3}$/.test(t)) return [...t].map((d) => SUPER_DIGITS[Number(d)]).join('');
  const mark = /^[([]?([A-Za-z]|\d{1,2})[)\]]?$/.exec(t);
  if (mark && (t.length === 1 || t !== mark[1])) return `[${mark[1]}]`;
  return s;
}

export interface HtmlLayout {
  text: string;
  paragraphs: Span[];
  candidates: Candidate[];
  tables: Grid[];
}

interface CellState {
  text: string;
  colspan: number;
  rowspan: number;
  th: boolean;
}

interface TableFrame {
  rows: { cells: CellState[]; head: boolean }[];
  cell: CellState | null;
  inHead: boolean;
  caption: string | null;
  inCaption: boolean;
  nested: number; // tables inside a cell: their text joins the cell's
}

class Writer {
  text = '';
  paragraphs: Span[] = [];
  candidates: Candidate[] = [];
  tables: Grid[] = [];

  /** Appends a block; returns the offset where it starts. */
  block(s: string): number {
    if (this.text) this.text += '\n\n';
    const start = this.text.length;
    this.text += s;
    return start;
  }
}

/**
 * Word exports draw some rows on a column grid of their own: a row that prints as many cells as
 * the header's last row, but with widths that cross its column boundaries, takes the header's
 * widths cell by cell (Ray County's use table). Returns whether a row changed.
 */
function realign(raw: RawRow[], rows: GridRow[]): boolean {
  const head = raw.filter((_, i) => rows[i]?.header).pop();
  const full = rows[0]?.cells.length ?? 0;
  const widths = head?.cells.map((c) => c.colspan ?? 1) ?? [];
  // only a header row that spans the table by its own cells sets the widths
  if (!head || head.cells.some((c) => (c.rowspan ?? 1) !== 1) || widths.reduce((a, b) => a + b, 0) !== full) return false;
  const edges = (ws: number[]) => {
    let at = 0;
    return ws.map((x) => (at += x));
  };
  const target = edges(widths).join();
  let changed = false;
  raw.forEach((r, i) => {
    if (rows[i]?.header || r.cells.length !== widths.length || r.cells.some((c) => (c.rowspan ?? 1) !== 1)) return;
    if (r.cells.reduce((a, c) => a + (c.colspan ?? 1), 0) !== full) return;
    if (edges(r.cells.map((c) => c.colspan ?? 1)).join() === target) return;
    r.cells.forEach((c, k) => {
      c.colspan = widths[k];
    });
    changed = true;
  });
  return changed;
}

function renderTable(w: Writer, t: TableFrame): void {
  const raw: RawRow[] = t.rows.map((r) => ({ start: 0, end: 0, header: r.head || (r.cells.length > 0 && r.cells.every((c) => c.th)), cells: r.cells.map((c) => ({ start: 0, end: 0, text: squash(c.text), colspan: c.colspan, rowspan: c.rowspan })) }));
  let { rows, width } = buildGrid(raw);
  if (rows.length === 0) return;
  if (!rows.some((r) => r.header)) {
    const n = headerRowCount(rows.map((r) => r.cells.map((c, i) => (c.col === i ? c.text : ''))));
    for (let i = 0; i < n; i++) rows[i].header = true;
  }
  const kept = raw.filter((r) => r.cells.some((c) => c.text !== ''));
  if (realign(kept, rows)) ({ rows, width } = buildGrid(kept.map((r, i) => ({ ...r, header: rows[i].header }))));
  const caption = t.caption !== null ? squash(t.caption) : '';
  let captionSpan: (Span & { text: string }) | null = null;
  if (caption) {
    const start = w.block(caption);
    captionSpan = { start, end: start + caption.length, text: caption };
  }
  // the pipe table: header rows, a separator, body rows; a spanned cell prints once
  const headEnd = Math.max(1, rows.findIndex((r) => !r.header) === -1 ? rows.length : rows.findIndex((r) => !r.header));
  let out = '';
  const base = w.text ? w.text.length + 2 : 0;
  rows.forEach((r, ri) => {
    if (ri === headEnd) out += `\n| ${Array(width).fill('---').join(' | ')} |`;
    if (ri > 0) out += '\n';
    r.start = base + out.length;
    out += '|';
    r.cells.forEach((c, ci) => {
      out += ' ';
      const own = c.row === ri && c.col === ci;
      const s = own ? pipeSafe(c.text) : '';
      if (own) {
        c.start = base + out.length;
        c.end = c.start + s.length;
      }
      out += `${s} |`;
    });
    r.end = base + out.length;
  });
  if (headEnd >= rows.length) out += `\n| ${Array(width).fill('---').join(' | ')} |`;
  w.block(out);
  // an empty cell a row does not own (a spanned one elsewhere) keeps the spans set above; an
  // unprinted column's empty cell sits at its row's end
  for (const r of rows) for (const c of r.cells) if (c.text === '' && c.start === 0 && c.end === 0) c.start = c.end = r.end;
  const grid = emptyGrid('html', rows, width);
  grid.caption = captionSpan;
  if (captionSpan) grid.start = captionSpan.start;
  w.tables.push(grid);
}

/** The document model of an HTML ordinance page (paragraph spans, heading candidates, grids). */
export function readHtml(html: string): HtmlLayout {
  const css = [...html.matchAll(/<style\b[^>]*>([\s\S]*?)<\/style\s*>/gi)].map((m) => m[1]).join('\n');
  const sheet: StyleSheet = readStyleSheets(css);
  const w = new Writer();
  const src = html.replace(SKIP, ' ');
  const stack: { tag: string; bold: boolean | null }[] = [];
  const tables: TableFrame[] = [];
  let buf = '';
  // where a <sup> began: the text it wrote is rewritten when it closes (superscript)
  let sup: { cell: CellState | null; at: number } | null = null;
  let bold = 0;
  let letters = 0;
  let heading = 0;
  let centered = false;
  const isBold = () => {
    for (let i = stack.length - 1; i >= 0; i--) if (stack[i].bold !== null) return stack[i].bold as boolean;
    return false;
  };
  const flush = () => {
    const s = squash(buf);
    if (s) {
      const line = heading ? `${'#'.repeat(heading)} ${s}` : s;
      const start = w.block(line);
      const span = { start, end: start + line.length };
      const title = { start: start + (heading ? heading + 1 : 0), end: span.end };
      if (!heading) w.paragraphs.push(span);
      const emphasized = heading > 0 || centered || (letters > 0 && bold / letters >= 0.85);
      w.candidates.push({ line: span, title, emphasized, level: heading || null, indent: 0, standalone: true });
    }
    buf = '';
    bold = 0;
    letters = 0;
    centered = false;
  };
  const token = /<(\/?)([a-zA-Z][a-zA-Z0-9]*)\b([^>]*)>|([^<]+)/g;
  for (let m = token.exec(src); m; m = token.exec(src)) {
    const table = tables[tables.length - 1];
    if (m[4] !== undefined) {
      const text = decodeEntities(m[4]);
      if (table) {
        if (table.inCaption) table.caption = (table.caption ?? '') + text;
        else if (table.cell) table.cell.text += text;
      } else {
        buf += text;
        const n = text.match(LETTER)?.length ?? 0;
        letters += n;
        if (n && isBold()) bold += n;
      }
      continue;
    }
    const closing = m[1] === '/';
    const tag = m[2].toLowerCase();
    const attrs = m[3];
    if (tag === 'sup') {
      const cell = table && !table.inCaption ? table.cell : null;
      if (!closing) sup = { cell, at: cell ? cell.text.length : buf.length };
      else if (sup && sup.cell === cell) {
        if (cell) cell.text = cell.text.slice(0, sup.at) + superscript(cell.text.slice(sup.at));
        else buf = buf.slice(0, sup.at) + superscript(buf.slice(sup.at));
        sup = null;
      }
      continue;
    }
    if (!VOID.has(tag) && !attrs.endsWith('/')) {
      if (!closing) stack.push({ tag, bold: boldOf(tag, attrs, sheet) });
      else {
        const at = stack.map((e) => e.tag).lastIndexOf(tag);
        if (at >= 0) stack.length = at;
      }
    }
    if (tag === 'table') {
      if (table?.cell && !closing) {
        table.nested++;
        continue;
      }
      if (table && closing && table.nested > 0) {
        table.nested--;
        if (table.cell) table.cell.text += ' ';
        continue;
      }
      if (!closing) {
        flush();
        tables.push({ rows: [], cell: null, inHead: false, caption: null, inCaption: false, nested: 0 });
      } else if (table) {
        tables.pop();
        if (tables.length === 0) renderTable(w, table);
        else if (tables[tables.length - 1].cell) (tables[tables.length - 1].cell as CellState).text += ' ';
      }
      continue;
    }
    if (table) {
      if (table.nested > 0) {
        if (table.cell && /^(td|th|tr|p|div|br|li)$/.test(tag)) table.cell.text += ' ';
        continue;
      }
      if (tag === 'caption') table.inCaption = !closing;
      else if (tag === 'thead') table.inHead = !closing;
      else if (tag === 'tbody' || tag === 'tfoot') table.inHead = false;
      else if (tag === 'tr') {
        table.cell = null;
        if (!closing) table.rows.push({ cells: [], head: table.inHead });
      } else if (tag === 'td' || tag === 'th') {
        table.cell = null;
        if (!closing) {
          if (!table.rows.length) table.rows.push({ cells: [], head: table.inHead });
          const span = (name: string) => Number(/^\s*(\d+)/.exec(attr(attrs, name) ?? '')?.[1] ?? '1');
          const cell: CellState = { text: '', colspan: span('colspan'), rowspan: span('rowspan'), th: tag === 'th' };
          table.rows[table.rows.length - 1].cells.push(cell);
          table.cell = cell;
        }
      } else if (table.cell && (BLOCK.has(tag) || /^h[1-6]$/.test(tag))) table.cell.text += ' ';
      continue;
    }
    if (/^h[1-6]$/.test(tag)) {
      flush();
      heading = closing ? 0 : Number(tag[1]);
      continue;
    }
    if (BLOCK.has(tag) || tag === 'td' || tag === 'th') {
      flush();
      if (!closing && centeredOf(attrs, sheet)) centered = true;
    }
  }
  flush();
  while (tables.length) {
    const t = tables.pop() as TableFrame;
    if (tables.length === 0) renderTable(w, t);
  }
  return { text: `${w.text}\n`, paragraphs: w.paragraphs, candidates: w.candidates, tables: w.tables };
}
