// Plain text (a code captured from its publisher's pages, a Word file saved as text) into the
// document model. Sections come from the numbering the text repeats. Tables arrive three ways:
// cells separated by tabs or Word's cell mark U+0007; columns aligned by runs of spaces; or one
// cell per block, blocks separated by blank lines (where the text separates paragraphs by two
// blank lines, a single blank line stays inside a cell).
import { headerRowCount } from './cells.ts';
import { buildGrid, emptyGrid, type RawRow } from './grid.ts';
import { type Frag, layoutTables, type PLine } from './layout.ts';
import { type Chunk, linearTables } from './linear.ts';
import type { Grid } from './model.ts';
import { type Candidate, detectNumbering } from './numbering.ts';
import type { Span } from './text.ts';
import { type HeadingBlock, splitLines } from './markdown.ts';

interface Line extends Span {
  text: string;
  blank: boolean;
  indent: number;
}

function linesOf(text: string): Line[] {
  return splitLines(text).map((l) => {
    const lead = /^[ \t\u00a0]*/.exec(l.text)?.[0] ?? '';
    return { ...l, blank: l.text.trim() === '', indent: lead.replace(/\t/g, '    ').length };
  });
}

const CELL_MARK = String.fromCharCode(7); // Word's end-of-cell mark
const isSep = (c: string) => c === '\t' || c === CELL_MARK;
/** A line with a tab or cell mark between two printed characters. */
const separated = (s: string) => {
  const t = s.trim();
  for (let i = 1; i < t.length - 1; i++) if (isSep(t[i])) return true;
  return false;
};

/** Rows of cells separated by tabs or U+0007. */
function separatedTables(lines: Line[], used: Set<Line>): Grid[] {
  const grids: Grid[] = [];
  for (let i = 0; i < lines.length; ) {
    if (!separated(lines[i].text)) {
      i++;
      continue;
    }
    let j = i;
    while (j < lines.length && separated(lines[j].text)) j++;
    if (j - i >= 2) {
      const raw: RawRow[] = lines.slice(i, j).map((l) => {
        const cells: RawRow['cells'] = [];
        let body = l.text;
        while (body.length && isSep(body[body.length - 1])) body = body.slice(0, -1);
        let from = 0;
        for (let k = 0; k <= body.length; k++) {
          if (k < body.length && !isSep(body[k])) continue;
          const piece = body.slice(from, k);
          const lead = piece.length - piece.trimStart().length;
          const s = l.start + from + lead;
          cells.push({ start: s, end: s + piece.trim().length, text: piece.trim().replace(/\s+/g, ' ') });
          from = k + 1;
        }
        return { start: l.start, end: l.end, header: false, cells };
      });
      const { rows, width } = buildGrid(raw);
      const n = headerRowCount(rows.map((r) => r.cells.map((c) => c.text)));
      for (let h = 0; h < n; h++) rows[h].header = true;
      if (rows.length >= 2) {
        grids.push(emptyGrid('text', rows, width));
        for (const l of lines.slice(i, j)) used.add(l);
      }
    }
    i = j;
  }
  return grids;
}

/** Lines as fragments split by runs of two or more spaces, x in characters. */
function positioned(lines: Line[], used: Set<Line>): PLine[] {
  const out: PLine[] = [];
  lines.forEach((l, y) => {
    if (l.blank || used.has(l)) return;
    const frags: Frag[] = [];
    for (const m of l.text.matchAll(/\S+(?: \S+)*/g)) {
      const s = l.start + (m.index ?? 0);
      frags.push({ start: s, end: s + m[0].length, x0: m.index ?? 0, x1: (m.index ?? 0) + m[0].length, text: m[0] });
    }
    out.push({ start: l.start, end: l.end, y, size: 1, frags, page: 1 });
  });
  return out;
}

export interface PlainLayout {
  paragraphs: Span[];
  headings: HeadingBlock[];
  tables: Grid[];
}

export function readPlain(text: string): PlainLayout {
  const lines = linesOf(text);
  const filled = lines.filter((l) => !l.blank);
  const candidates: Candidate[] = filled.map((l, i) => {
    const title = { start: l.start + (l.text.length - l.text.trimStart().length), end: l.start + l.text.trimEnd().length };
    const next = filled[i + 1] ? { start: filled[i + 1].start, end: filled[i + 1].end } : undefined;
    return { line: { start: l.start, end: l.end }, title, emphasized: false, level: null, indent: l.indent, standalone: title.end - title.start <= 120, next };
  });
  const numbering = detectNumbering(text, candidates, { enumerations: () => false });
  const headingAt = new Set(numbering.headings.map((h) => h.anchor));

  const used = new Set<Line>();
  const tables = separatedTables(lines, used);
  const aligned = layoutTables(positioned(lines, used), { format: 'text', tolerance: 1, longFrag: 60 });
  const alignedLines = new Set([...aligned.used].map((p) => p.start));
  for (const l of lines) if (alignedLines.has(l.start)) used.add(l);
  tables.push(...aligned.grids);

  // blocks: runs of lines between blank lines; two blank lines apart when the text spaces its paragraphs so
  const runs: number[] = [];
  let blank = 0;
  for (const l of lines) {
    if (l.blank) blank++;
    else {
      if (blank) runs.push(blank);
      blank = 0;
    }
  }
  const wide = runs.filter((n) => n >= 2).length >= runs.length * 0.4 && runs.length > 0;
  const chunks: Chunk[] = [];
  const paragraphs: Span[] = [];
  let cur: { lines: Line[] } | null = null;
  let gap = 0;
  const close = () => {
    if (!cur) return;
    const first = cur.lines[0];
    const last = cur.lines[cur.lines.length - 1];
    const start = first.start + (first.text.length - first.text.trimStart().length);
    const end = last.start + last.text.trimEnd().length;
    chunks.push({ start, end, text: cur.lines.map((l) => l.text.trim()).join(' ').replace(/\s+/g, ' '), heading: headingAt.has(first.start) });
    cur = null;
  };
  for (const l of lines) {
    if (used.has(l)) {
      close();
      gap = 0;
      continue;
    }
    if (l.blank) {
      gap++;
      continue;
    }
    if (cur && (runs.length === 0 || (wide ? gap >= 2 : gap >= 1) || headingAt.has(l.start))) close();
    if (!cur) cur = { lines: [] };
    cur.lines.push(l);
    gap = 0;
    if (runs.length === 0) close();
  }
  close();
  for (const c of chunks) paragraphs.push({ start: c.start, end: c.end });
  for (const t of linearTables(chunks)) tables.push(t.grid);
  tables.sort((a, b) => a.start - b.start);
  return { paragraphs: paragraphs.filter((p) => !tables.some((t) => p.start >= t.start && p.end <= t.end)), headings: numbering.headings, tables };
}
