// A small reader for the tables of an HTML page (clerk lists, feeds published as pages):
// each table with its caption, the nearest heading before it, and rows of cells with their
// text and links. Tolerates omitted closing tags; nested tables are read as their own tables.

export interface HtmlCell {
  text: string;
  links: string[];
  header: boolean; // a <th>, or a cell of a <thead> row
}

export interface HtmlTable {
  id: string | null;
  caption: string | null;
  heading: string | null;
  rows: HtmlCell[][];
}

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ', ndash: '–', mdash: '—', sect: '§', rsquo: '’', lsquo: '‘', ldquo: '“', rdquo: '”', hellip: '…' };

export function decodeEntities(s: string): string {
  return s.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (all, e: string) => {
    if (e[0] === '#') {
      const code = e[1] === 'x' || e[1] === 'X' ? Number.parseInt(e.slice(2), 16) : Number.parseInt(e.slice(1), 10);
      return Number.isFinite(code) ? String.fromCodePoint(code) : all;
    }
    return ENTITIES[e.toLowerCase()] ?? all;
  });
}

const attr = (attrs: string, name: string): string | null => {
  const m = new RegExp(`\\b${name}\\s*=\\s*(?:"([^"]*)"|'([^']*)'|([^\\s>]+))`, 'i').exec(attrs);
  return m ? decodeEntities(m[1] ?? m[2] ?? m[3] ?? '') : null;
};

const squash = (s: string) => s.replace(/\s+/g, ' ').trim();

interface Frame {
  table: HtmlTable;
  row: HtmlCell[] | null;
  cell: HtmlCell | null;
  inHead: boolean;
  inCaption: boolean;
}

export function readHtmlTables(html: string): HtmlTable[] {
  const tables: HtmlTable[] = [];
  const stack: Frame[] = [];
  let heading: string | null = null;
  let headingText: string | null = null;
  const token = /<!--[\s\S]*?-->|<(script|style)\b[^>]*>[\s\S]*?<\/\1\s*>|<(\/?)([a-zA-Z][a-zA-Z0-9]*)\b([^>]*)>|([^<]+)/g;
  for (let m = token.exec(html); m; m = token.exec(html)) {
    const top = stack[stack.length - 1];
    if (m[5] !== undefined) {
      const text = decodeEntities(m[5]);
      if (headingText !== null) headingText += text;
      if (top?.inCaption) top.table.caption = (top.table.caption ?? '') + text;
      else if (top?.cell) top.cell.text += text;
      continue;
    }
    if (!m[3]) continue;
    const closing = m[2] === '/';
    const tag = m[3].toLowerCase();
    if (/^h[1-6]$/.test(tag)) {
      if (!closing) headingText = '';
      else if (headingText !== null) {
        heading = squash(headingText);
        headingText = null;
      }
      continue;
    }
    if (tag === 'table') {
      if (!closing) {
        const table: HtmlTable = { id: attr(m[4], 'id'), caption: null, heading, rows: [] };
        tables.push(table);
        stack.push({ table, row: null, cell: null, inHead: false, inCaption: false });
      } else if (stack.length) {
        const f = stack.pop()!;
        if (f.table.caption !== null) f.table.caption = squash(f.table.caption);
      }
      continue;
    }
    if (!top) continue;
    if (tag === 'caption') top.inCaption = !closing;
    else if (tag === 'thead') top.inHead = !closing;
    else if (tag === 'tbody' || tag === 'tfoot') top.inHead = false;
    else if (tag === 'tr') {
      endCell(top);
      top.row = null;
      if (!closing) {
        top.row = [];
        top.table.rows.push(top.row);
      }
    } else if (tag === 'td' || tag === 'th') {
      endCell(top);
      if (!closing) {
        if (!top.row) {
          top.row = [];
          top.table.rows.push(top.row);
        }
        top.cell = { text: '', links: [], header: tag === 'th' || top.inHead };
        top.row.push(top.cell);
        const span = Number(attr(m[4], 'colspan') ?? '1');
        for (let i = 1; i < span && i < 50; i++) top.row.push({ text: '', links: [], header: top.cell.header });
      }
    } else if (tag === 'br' || tag === 'p' || tag === 'li' || tag === 'div') {
      if (top.cell) top.cell.text += ' ';
    } else if (tag === 'a' && !closing && top.cell) {
      const href = attr(m[4], 'href');
      if (href) top.cell.links.push(href);
    }
  }
  for (const t of tables) for (const r of t.rows) for (const c of r) c.text = squash(c.text);
  return tables;
}

function endCell(f: Frame) {
  f.cell = null;
}
