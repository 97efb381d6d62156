// Text into blocks: headings, paragraphs and pipe tables, each with its offsets in the text.
// Markdown headings are `#` lines; an enCodePlus `<!-- secid:N -->` comment followed by a short
// plain line (a glossary term) starts a section too. In plain mode (text read from a PDF),
// headings are short numbered lines such as "3.1 Districts" or "Section 4. Use Regulations".
import { type Span, trimSpan } from './text.ts';

export interface HeadingBlock {
  level: number; // 1..6; 0 for a term heading (its level comes from the section above it)
  anchor: number; // where the section starts: the heading line, or the comment just before it
  line: Span; // the whole heading line
  title: Span; // the heading text without its markers
  ref?: string; // the section number when the numbering was detected ("Article IV, Section 2")
  heading?: string | null; // and its title (null when the line states none)
}

export interface Scan {
  headings: HeadingBlock[];
  paragraphs: Span[];
  tables: Span[][]; // the lines of each pipe table
}

export type ScanMode = 'markdown' | 'plain';

const ATX = /^(#{1,6})[ \t]+(.*?)[ \t]*#*[ \t]*$/;
const COMMENT = /^\s*<!--.*-->\s*$/;
const SECID = /^\s*<!--\s*secid:\s*\d+\s*-->\s*$/;
const PLAIN_HEADING = /^(?:(?:ARTICLE|Article|SECTION|Section|Sec\.|§)\s*)?\d+(?:\.\d+)*\.?\s+[A-Z(]/;
const SENTENCE_END = /[.;:,]\s*$/;

type Line = Span & { text: string };

/** The text's lines, each with its offsets (a CR before the LF is not part of the line). */
export function splitLines(text: string): Line[] {
  const out: Line[] = [];
  let start = 0;
  while (start <= text.length) {
    let nl = text.indexOf('\n', start);
    if (nl === -1) nl = text.length;
    const end = nl > start && text[nl - 1] === '\r' ? nl - 1 : nl;
    out.push({ start, end, text: text.slice(start, end) });
    start = nl + 1;
  }
  return out;
}

const blank = (l: Line | undefined) => !l || l.text.trim() === '';
const isRow = (l: Line | undefined) => !!l && l.text.trimStart().startsWith('|');

function plainLevel(s: string): number {
  const m = /(\d+(?:\.\d+)*)/.exec(s);
  const parts = m ? m[1].split('.').length : 1;
  return Math.min(6, /^(ARTICLE|Article)/.test(s) ? 1 : parts);
}

/** A glossary term after a secid comment: one short line, not a sentence, not a list item. */
function isTermLine(l: Line | undefined, next: Line | undefined): boolean {
  if (!l || blank(l) || !blank(next)) return false;
  const t = l.text.trim();
  return t.length <= 100 && !SENTENCE_END.test(t) && !/^(\d+\.|[-*+] |\||\[Image|<!--|#)/.test(t);
}

export function scan(text: string, mode: ScanMode = 'markdown'): Scan {
  const lines = splitLines(text);
  const headings: HeadingBlock[] = [];
  const paragraphs: Span[] = [];
  const tables: Span[][] = [];
  let para: Span | null = null;
  let anchor: number | null = null; // a section comment waiting for its heading
  const flush = () => {
    if (para) paragraphs.push(trimSpan(text, para.start, para.end));
    para = null;
  };
  for (let i = 0; i < lines.length; i++) {
    const l = lines[i];
    if (blank(l)) {
      flush();
      continue;
    }
    if (COMMENT.test(l.text)) {
      flush();
      if (SECID.test(l.text)) {
        anchor = l.start;
        let j = i + 1;
        while (blank(lines[j]) && j < lines.length - 1) j++;
        const next = lines[j];
        if (mode === 'markdown' && !ATX.test(next.text) && isTermLine(next, lines[j + 1])) {
          headings.push({ level: 0, anchor, line: next, title: trimSpan(text, next.start, next.end) });
          anchor = null;
          i = j;
        }
      }
      continue;
    }
    if (isRow(l) && (isRow(lines[i + 1]) || isRow(lines[i - 1]))) {
      flush();
      const rows: Span[] = [];
      while (i < lines.length && isRow(lines[i])) rows.push({ start: lines[i].start, end: lines[i].end }), i++;
      i--;
      tables.push(rows);
      anchor = null;
      continue;
    }
    const atx = mode === 'markdown' ? ATX.exec(l.text) : null;
    if (atx || (mode === 'plain' && l.text.trim().length <= 100 && PLAIN_HEADING.test(l.text.trim()) && !SENTENCE_END.test(l.text))) {
      flush();
      const level = atx ? atx[1].length : plainLevel(l.text.trim());
      const title = atx ? trimSpan(text, l.start + l.text.indexOf(atx[2], atx[1].length), l.start + l.text.indexOf(atx[2], atx[1].length) + atx[2].length) : trimSpan(text, l.start, l.end);
      headings.push({ level, anchor: anchor ?? l.start, line: { start: l.start, end: l.end }, title });
      anchor = null;
      continue;
    }
    anchor = null;
    if (para) para.end = l.end;
    else para = { start: l.start, end: l.end };
  }
  flush();
  return { headings, paragraphs, tables };
}
