// A PDF's text items into lines and the retained text. Items on one baseline (within half a font
// size: superscripts stay on their line) form a line, read left to right; items closer than
// 0.7 em join into one fragment, wider gaps separate fragments (table columns), and so does a
// drawn vertical rule between them (a table's border). Lines are read top to bottom, one text line
// each; a page ends with an empty line.
import type { Frag, PLine } from './layout.ts';

export interface PdfPage {
  height: number;
  items: [string, number, number, number, number][]; // text, x, y (from the bottom), width, size
  rules?: number[][]; // drawn straight rules [x0, y0, x1, y1], y from the bottom
}

/** A drawn rule on a page, y growing down the page like the lines' y. */
export interface Rule {
  page: number;
  x0: number;
  y0: number;
  x1: number;
  y1: number;
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
  // a superscript ("SIDE¹", "Residential³") is raised above its word's baseline: it joins the word's line
  for (let i = 0; i + 1 < lines.length; i++) {
    const below = lines[i + 1];
    lines[i] = lines[i].filter((sup) => {
      const word = below.find((n) => sup.size <= 0.8 * n.size && sup.s.trim().length <= 4 && n.top - sup.top > 0 && n.top - sup.top <= 0.6 * n.size && sup.x >= n.x + n.w - 1 && sup.x <= n.x + n.w + 0.5 * n.size);
      if (word) below.push(sup);
      return !word;
    });
  }
  const kept = lines.filter((l) => l.length);
  for (const l of kept) l.sort((a, b) => a.x - b.x);
  return kept;
}

/** Whether a vertical rule stands between two x positions across a line's text. */
const ruleBetween = (vertical: Rule[], a: number, b: number, top: number, size: number) =>
  vertical.some((r) => r.x0 > a - 0.5 && r.x0 < b + 0.5 && r.y0 < top - size * 0.5 && r.y1 > top - size * 0.3);

/** Text, page starts, positioned lines and drawn rules of a whole PDF. */
export function pdfLines(pages: PdfPage[]): { text: string; pageStarts: number[]; lines: PLine[]; rules: Rule[] } {
  const parts: string[] = [];
  let length = 0;
  const pageStarts: number[] = [];
  const out: PLine[] = [];
  const rules: Rule[] = [];
  pages.forEach((page, pi) => {
    pageStarts.push(length);
    const own = (page.rules ?? []).map(([x0, y0, x1, y1]) => ({ page: pi + 1, x0, x1, y0: page.height - y1, y1: page.height - y0 }));
    rules.push(...own);
    const vertical = own.filter((r) => r.x1 - r.x0 < 0.5 && r.y1 - r.y0 > 2);
    for (const items of linesOf(page)) {
      const base = length;
      let line = '';
      const frags: Frag[] = [];
      let frag: Frag | null = null;
      let prevEnd = Number.NEGATIVE_INFINITY;
      for (const it of items) {
        const gap = it.x - prevEnd;
        const s = it.s.replace(/\s+$/, '');
        if (frag && gap < COLUMN_GAP * it.size && !ruleBetween(vertical, prevEnd, it.x, it.top, it.size)) {
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
  return { text: parts.join(''), pageStarts, lines: out, rules };
}
