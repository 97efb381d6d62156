// An ordinance page in HTML into the text the parser reads: headings as `#` lines, paragraphs
// and list items as their own lines, tables as pipe tables (caption on the line before). This
// text is what the version retains, so every quote is a verbatim substring of it.
import { decodeEntities } from '../records/html-table.ts';

const BLOCK = new Set(['p', 'div', 'li', 'ul', 'ol', 'section', 'article', 'main', 'header', 'footer', 'nav', 'blockquote', 'dd', 'dt', 'dl', 'br']);
const SKIP = /<!--[\s\S]*?-->|<(script|style|head|nav)\b[^>]*>[\s\S]*?<\/\1\s*>/gi;
const squash = (s: string) => s.replace(/\s+/g, ' ').trim();
const pipeSafe = (s: string) => s.replace(/\|/g, '\\|');

interface TableState {
  caption: string;
  rows: { cells: string[]; head: boolean }[];
  cell: string | null;
  inCaption: boolean;
  inHead: boolean;
  span: number;
}

function renderTable(t: TableState): string {
  const width = Math.max(1, ...t.rows.map((r) => r.cells.length));
  const line = (cells: string[]) => `| ${[...cells, ...Array(width - cells.length).fill('')].map(pipeSafe).join(' | ')} |`;
  const out: string[] = [];
  if (t.caption) out.push(squash(t.caption), '');
  const headEnd = t.rows.findIndex((r) => !r.head);
  const head = headEnd > 0 ? t.rows.slice(0, headEnd) : t.rows.slice(0, 1);
  const body = headEnd > 0 ? t.rows.slice(headEnd) : t.rows.slice(1);
  for (const r of head) out.push(line(r.cells));
  out.push(`| ${Array(width).fill('---').join(' | ')} |`);
  for (const r of body) out.push(line(r.cells));
  return out.join('\n');
}

/** The readable text of an HTML ordinance page. */
export function htmlToText(html: string): string {
  const blocks: string[] = [];
  let buf = '';
  let heading = 0;
  let table: TableState | null = null;
  const flush = () => {
    const s = squash(buf);
    if (s) blocks.push(heading ? `${'#'.repeat(heading)} ${s}` : s);
    buf = '';
  };
  const token = /<(\/?)([a-zA-Z][a-zA-Z0-9]*)\b([^>]*)>|([^<]+)/g;
  const src = html.replace(SKIP, ' ');
  for (let m = token.exec(src); m; m = token.exec(src)) {
    if (m[4] !== undefined) {
      const text = decodeEntities(m[4]);
      if (table) {
        if (table.inCaption) table.caption += text;
        else if (table.cell !== null) table.cell += text;
      } else buf += text;
      continue;
    }
    const closing = m[1] === '/';
    const tag = m[2].toLowerCase();
    if (tag === 'table') {
      if (!closing) {
        flush();
        table = { caption: '', rows: [], cell: null, inCaption: false, inHead: false, span: 1 };
      } else if (table) {
        if (table.cell !== null) table.rows[table.rows.length - 1]?.cells.push(squash(table.cell), ...Array(table.span - 1).fill(''));
        blocks.push(renderTable(table));
        table = null;
      }
      continue;
    }
    if (table) {
      const t = table;
      const endCell = () => {
        const row = t.rows[t.rows.length - 1];
        if (row && t.cell !== null) row.cells.push(squash(t.cell), ...Array(t.span - 1).fill(''));
        t.cell = null;
      };
      if (tag === 'caption') t.inCaption = !closing;
      else if (tag === 'thead') t.inHead = !closing;
      else if (tag === 'tr') {
        endCell();
        if (!closing) t.rows.push({ cells: [], head: t.inHead });
      } else if (tag === 'td' || tag === 'th') {
        endCell();
        if (!closing) {
          if (!t.rows.length) t.rows.push({ cells: [], head: t.inHead });
          // a spanning cell prints its text once, then empty cells for the columns it covers
          t.span = Math.min(50, Math.max(1, Number(/colspan\s*=\s*["']?(\d+)/i.exec(m[3])?.[1] ?? '1')));
          t.cell = '';
        }
      } else if (tag === 'br' && table.cell !== null) table.cell += ' ';
      continue;
    }
    if (/^h[1-6]$/.test(tag)) {
      flush();
      heading = closing ? 0 : Number(tag[1]);
      continue;
    }
    if (BLOCK.has(tag)) flush();
  }
  flush();
  return `${blocks.join('\n\n')}\n`;
}
