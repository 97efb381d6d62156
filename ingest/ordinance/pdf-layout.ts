// A PDF's text items into lines and the retained text. Items on one baseline (within half a font
// size: superscripts stay on their line) form a line, read left to right; items closer than
// 0.7 em join into one fragment, wider gaps separate fragments (table columns). Lines are read
// top to bottom, one text line each; a page ends with an empty line.
import type { Frag, PLine } from './layout.ts';

export interface PdfPage {
  height: number;
  items: [string, number, number, number, number][]; // text, x, y (from the bottom), width, size
}

interface Item {
  s: string;
  x: number;
  top: number;
  w: number;
  size: number;
}

const COLUMN_GAP = 0.7;

function linesOf(page: PdfPage): Item[][] {
  const items: Item[] = page.items.map(([s, x, y, w, size]) => ({ s, x, top: page.height - y, w, size }));
  items.sort((a, b) => a.top - b.top || a.x - b.x);
  const lines: Item[][] = [];
  for (const it of items) {
    const line = lines[lines.length - 1];
    const base = line?.[0];
    if (base && Math.abs(it.top - base.top) <= 0.45 * Math.min(it.size, base.size)) line.push(it);
    else lines.push([it]);
  }
  for (const l of lines) l.sort((a, b) => a.x - b.x);
  return lines;
}

/** Text, page starts and positioned lines of a whole PDF. */
export function pdfLines(pages: PdfPage[]): { text: string; pageStarts: number[]; lines: PLine[] } {
  const parts: string[] = [];
  let length = 0;
  const pageStarts: number[] = [];
  const out: PLine[] = [];
  pages.forEach((page, pi) => {
    pageStarts.push(length);
    for (const items of linesOf(page)) {
      const base = length;
      let line = '';
      const frags: Frag[] = [];
      let frag: Frag | null = null;
      let prevEnd = Number.NEGATIVE_INFINITY;
      for (const it of items) {
        const gap = it.x - prevEnd;
        const s = it.s.replace(/\s+$/, '');
        if (frag && gap < COLUMN_GAP * it.size) {
          // same fragment: a space where the page shows one
          if (gap > 0.15 * it.size && !/\s$/.test(line) && !/^\s/.test(s)) line += ' ';
          line += s;
          frag.end = base + line.length;
          frag.x1 = it.x + it.w;
        } else {
          if (frag) line += ' ';
          const lead = s.length - s.trimStart().length;
          const fs = base + line.length + lead;
          line += s;
          frag = { start: fs, end: base + line.length, x0: it.x, x1: it.x + it.w, text: '' };
          frags.push(frag);
        }
        prevEnd = Math.max(prevEnd, it.x + it.w);
      }
      for (const f of frags) f.text = line.slice(f.start - base, f.end - base).trim();
      out.push({ start: base, end: base + line.length, y: items[0].top, size: Math.max(...items.map((it) => it.size)), frags: frags.filter((f) => f.end > f.start), page: pi + 1 });
      parts.push(line, '\n');
      length += line.length + 1;
    }
    parts.push('\n');
    length += 1;
  });
  return { text: parts.join(''), pageStarts, lines: out };
}
