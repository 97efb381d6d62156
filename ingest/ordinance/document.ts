// Bytes of a code in any supported format into the one document model: text, headings,
// paragraphs and tables as grids. Pure apart from the PDF reader's worker thread.
import type { ParseIssue } from '../types.ts';
import { attachContext } from './grid.ts';
import { readHtml } from './html.ts';
import { type HeadingBlock, scan } from './markdown.ts';
import type { DocLayout, Grid } from './model.ts';
import { type Candidate, detectNumbering } from './numbering.ts';
import { pdfText } from './pdf.ts';
import { pdfTables } from './pdf-tables.ts';
import { readPlain } from './plain.ts';
import { readTable, tableRef, tableToGrid } from './tables.ts';
import type { Span } from './text.ts';

const SEPARATOR = /^\s*\|?\s*:?-{3,}:?\s*(\|\s*:?-{3,}:?\s*)*\|?\s*$/;

function markdownLayout(text: string, issues: ParseIssue[]): DocLayout {
  const scanned = scan(text, 'markdown');
  const paragraphBefore = (start: number): Span | null => {
    let best: Span | null = null;
    for (const p of scanned.paragraphs) if (p.end <= start && start - p.end < 4) best = p;
    return best;
  };
  const tables: Grid[] = scanned.tables.map((lines) => {
    const t = readTable(text, lines, paragraphBefore(lines[0].start), issues);
    const sep = lines.findIndex((l) => SEPARATOR.test(text.slice(l.start, l.end)));
    const titleRow = t.title && t.title.start >= lines[0].start ? 1 : 0;
    const grid = tableToGrid(t, Math.max(0, sep - titleRow));
    attachContext(grid, text, scanned.paragraphs, tableRef);
    return grid;
  });
  return { text, pageStarts: null, headings: scanned.headings, paragraphs: scanned.paragraphs, tables };
}

function htmlLayout(html: string): DocLayout {
  const r = readHtml(html);
  const { text } = r;
  // a numbered heading is set apart (bold, centred, a heading tag); plain numbered paragraphs are list items or contents.
  // A page styled by a stylesheet it does not carry (Municode's "Sec. 17.20.030. - Title." in a classed div)
  // sets nothing apart: then its numbered, titled lines are read as plain text's are (no bare "1." enumerations).
  const emphasized = detectNumbering(text, r.candidates.filter((c) => c.emphasized), { enumerations: () => true });
  const numbering = emphasized.headings.length ? emphasized : detectNumbering(text, r.candidates, { enumerations: () => false });
  // h1–h6 are the sections when the document puts its numbered headings in them, or numbers none
  const tagged = r.candidates.filter((c) => c.level);
  const numberedTags = tagged.filter((c) => numbering.numbered.has(c)).length;
  let headings: HeadingBlock[];
  if (tagged.length && (numbering.headings.length === 0 || numberedTags / numbering.headings.length >= 0.6)) {
    headings = tagged.map((c) => ({ level: c.level as number, anchor: c.line.start, line: c.line, title: c.title }));
  } else headings = numbering.headings;
  for (const g of r.tables) attachContext(g, text, r.paragraphs, tableRef);
  return { text, pageStarts: null, headings, paragraphs: r.paragraphs, tables: r.tables };
}

function plainLayout(text: string): DocLayout {
  const r = readPlain(text);
  for (const g of r.tables) attachContext(g, text, r.paragraphs, tableRef);
  return { text, pageStarts: null, headings: r.headings, paragraphs: r.paragraphs, tables: r.tables };
}

async function pdfLayout(bytes: Uint8Array, issues: ParseIssue[]): Promise<DocLayout> {
  try {
    const { text, pageStarts, lines, rules } = await pdfText(bytes);
    if (text.replace(/\s/g, '').length === 0) {
      issues.push({ severity: 'error', code: 'pdf_no_text_layer', detail: 'the PDF has no text layer (a scan?); nothing can be quoted from it' });
      return { text, pageStarts, headings: [], paragraphs: [], tables: [] };
    }
    const pageOf = (offset: number) => {
      let p = 0;
      while (p + 1 < pageStarts.length && pageStarts[p + 1] <= offset) p++;
      return p + 1;
    };
    const { tables, paragraphs, used } = pdfTables(text, lines, rules);
    // lines inside tables are cells, not headings; a line ending in a page number set apart is a contents entry
    const free = lines.filter((l) => !used.has(l) && l.frags.length > 0);
    const candidates: Candidate[] = free.map((l, i) => {
      const s = text.slice(l.start, l.end);
      const title = { start: l.start + (s.length - s.trimStart().length), end: l.start + s.trimEnd().length };
      const last = l.frags[l.frags.length - 1];
      const contents = l.frags.length >= 2 && /^(?:\d{1,4}|[ivxlc]{1,6})$/i.test(last.text) && last.x0 - l.frags[l.frags.length - 2].x1 > 20;
      const next = free[i + 1] && free[i + 1].page === l.page ? { start: free[i + 1].start, end: free[i + 1].end } : undefined;
      return { line: { start: l.start, end: l.end }, title, emphasized: false, level: null, indent: 0, standalone: title.end - title.start <= 120, next, contents };
    });
    const numbering = detectNumbering(text, candidates, { enumerations: () => false, pageOf });
    for (const g of tables) attachContext(g, text, paragraphs, tableRef);
    return { text, pageStarts, headings: numbering.headings, paragraphs, tables };
  } catch (e) {
    issues.push({ severity: 'error', code: 'pdf_unreadable', detail: `the PDF could not be read: ${(e as Error).message}` });
    return { text: '', pageStarts: null, headings: [], paragraphs: [], tables: [] };
  }
}

/** The document model of a code's bytes; what could not be read is reported in `issues`. */
export async function readDocument(bytes: Uint8Array, mediaType: string, issues: ParseIssue[]): Promise<DocLayout> {
  if (mediaType === 'application/pdf') return pdfLayout(bytes, issues);
  const raw = new TextDecoder('utf-8').decode(bytes);
  if (mediaType === 'text/html') return htmlLayout(raw);
  if (mediaType === 'text/plain') return plainLayout(raw);
  return markdownLayout(raw, issues);
}
