// Tables a PDF draws with rules (cell borders): the rules that touch one another form a table; the
// distinct x of its vertical rules and y of its horizontal rules cut it into elementary cells, and
// two neighbouring cells are one (a merged cell) where no rule stands between them. Text goes to
// the cell its centre stands in, lines top to bottom. This places merged cells exactly where text
// alignment alone can only guess (a value printed once between the rows it covers). Leading rows
// of labels are the header; full-width rows of prose under the body (notes, a legend) are left out
// of the table, to be read as the paragraphs after it.
import type { Frag, PLine } from './layout.ts';
import type { Grid, GridCell, GridRow } from './model.ts';
import type { Rule } from './pdf-layout.ts';

const TOL = 2; // points: rules this close are one line, or touch
// rules closer than this are one border (a double border, or a row's border drawn a few points off
// the rows above): no column is narrower, no row lower
const COLUMN_BAND = 8;
const ROW_BAND = 4;

interface Seg {
  at: number; // x of a vertical rule, y of a horizontal one
  from: number;
  to: number;
}

function merge(segs: Seg[]): Seg[] {
  const out: Seg[] = [];
  for (const s of [...segs].sort((a, b) => a.at - b.at || a.from - b.from)) {
    const hit = out.find((o) => Math.abs(o.at - s.at) <= TOL && s.from <= o.to + TOL && o.from <= s.to + TOL);
    if (hit) {
      hit.from = Math.min(hit.from, s.from);
      hit.to = Math.max(hit.to, s.to);
    } else out.push({ ...s });
  }
  return out;
}

/** Border positions: rules closer than `band` to the last are one border, at their mean. */
function cuts(values: number[], band: number): number[] {
  const groups: number[][] = [];
  for (const v of [...values].sort((a, b) => a - b)) {
    const g = groups[groups.length - 1];
    if (g && v - g[g.length - 1] <= band) g.push(v);
    else groups.push([v]);
  }
  return groups.map((g) => g.reduce((x, y) => x + y, 0) / g.length);
}

/** Whether rules of a border (those within `band` of `at`) cover a stretch of it for most of its length. */
function covered(segs: Seg[], at: number, band: number, a: number, b: number): boolean {
  let len = 0;
  for (const s of segs) if (Math.abs(s.at - at) <= band) len += Math.max(0, Math.min(b, s.to) - Math.max(a, s.from));
  return len >= (b - a) * 0.6;
}

/** Disjoint sets over 0 … n-1: find with path halving, union. */
function disjoint(n: number): { find: (i: number) => number; union: (a: number, b: number) => void } {
  const parent = Array.from({ length: n }, (_, i) => i);
  const find = (i: number): number => {
    let x = i;
    while (parent[x] !== x) {
      parent[x] = parent[parent[x]];
      x = parent[x];
    }
    return x;
  };
  const union = (a: number, b: number) => {
    parent[find(a)] = find(b);
  };
  return { find, union };
}

interface Box {
  h: Seg[];
  v: Seg[];
  x0: number;
  x1: number;
  y0: number;
  y1: number;
}

/** Groups of rules that touch one another. */
function boxes(h: Seg[], v: Seg[]): Box[] {
  const all = [...h.map((s) => ({ s, hor: true })), ...v.map((s) => ({ s, hor: false }))];
  const { find, union } = disjoint(all.length);
  const touch = (a: Seg, b: Seg) => b.at >= a.from - TOL && b.at <= a.to + TOL && a.at >= b.from - TOL && a.at <= b.to + TOL;
  for (let i = 0; i < all.length; i++) for (let j = i + 1; j < all.length; j++) if (all[i].hor !== all[j].hor && touch(all[i].s, all[j].s)) union(i, j);
  const groups = new Map<number, Box>();
  all.forEach((x, i) => {
    const g = groups.get(find(i)) ?? { h: [], v: [], x0: Infinity, x1: -Infinity, y0: Infinity, y1: -Infinity };
    (x.hor ? g.h : g.v).push(x.s);
    if (x.hor) {
      g.x0 = Math.min(g.x0, x.s.from);
      g.x1 = Math.max(g.x1, x.s.to);
      g.y0 = Math.min(g.y0, x.s.at);
      g.y1 = Math.max(g.y1, x.s.at);
    } else {
      g.x0 = Math.min(g.x0, x.s.at);
      g.x1 = Math.max(g.x1, x.s.at);
      g.y0 = Math.min(g.y0, x.s.from);
      g.y1 = Math.max(g.y1, x.s.to);
    }
    groups.set(find(i), g);
  });
  return [...groups.values()].filter((b) => b.h.length >= 2 && b.v.length >= 2);
}

interface Placed {
  f: Frag;
  line: PLine;
}

/** A short cell of letters and digits that a body prints: a figure or a mark (P, SP, NA). */
const figureLike = (t: string) => /^[$]?[\d.,]+/.test(t) || /^[A-Z]{1,2}(?:\/[A-Z-]{1,2})?\*?$/.test(t.trim()) || /^[-\u2013\u2014]$/.test(t.trim());

export interface RuledTables {
  grids: Grid[];
  used: Set<PLine>;
}

/** The ruled tables of one page. */
function pageTables(lines: PLine[], rules: Rule[]): RuledTables {
  const h = merge(rules.filter((r) => r.y1 - r.y0 < 0.5 && r.x1 - r.x0 > TOL).map((r) => ({ at: (r.y0 + r.y1) / 2, from: r.x0, to: r.x1 })));
  const v = merge(rules.filter((r) => r.x1 - r.x0 < 0.5 && r.y1 - r.y0 > TOL).map((r) => ({ at: (r.x0 + r.x1) / 2, from: r.y0, to: r.y1 })));
  const grids: Grid[] = [];
  const used = new Set<PLine>();
  for (const b of boxes(h, v)) {
    const xs = cuts(
      b.v.map((s) => s.at),
      COLUMN_BAND,
    );
    const ys = cuts(
      b.h.map((s) => s.at),
      ROW_BAND,
    );
    if (xs.length < 3 || ys.length < 3) continue;
    const R = ys.length - 1;
    const C = xs.length - 1;
    // union elementary cells where no rule separates them
    const id = (i: number, j: number) => i * C + j;
    const { find, union } = disjoint(R * C);
    for (let i = 0; i < R; i++)
      for (let j = 0; j < C; j++) {
        if (j + 1 < C && !covered(b.v, xs[j + 1], COLUMN_BAND / 2 + TOL, ys[i], ys[i + 1])) union(id(i, j), id(i, j + 1));
        if (i + 1 < R && !covered(b.h, ys[i + 1], ROW_BAND / 2 + TOL, xs[j], xs[j + 1])) union(id(i, j), id(i + 1, j));
      }
    const span = new Map<number, { r0: number; r1: number; c0: number; c1: number; texts: Placed[] }>();
    for (let i = 0; i < R; i++)
      for (let j = 0; j < C; j++) {
        const k = find(id(i, j));
        const s = span.get(k) ?? { r0: i, r1: i, c0: j, c1: j, texts: [] };
        s.r0 = Math.min(s.r0, i);
        s.r1 = Math.max(s.r1, i);
        s.c0 = Math.min(s.c0, j);
        s.c1 = Math.max(s.c1, j);
        span.set(k, s);
      }
    // a merged region that is not a rectangle: the rules are not a grid; leave it to the layout reader
    const size = new Map<number, number>();
    for (let q = 0; q < R * C; q++) size.set(find(q), (size.get(find(q)) ?? 0) + 1);
    if ([...span].some(([k, s]) => (s.r1 - s.r0 + 1) * (s.c1 - s.c0 + 1) !== size.get(k))) continue;
    const inside: PLine[] = [];
    for (const l of lines) {
      const mid = l.y - l.size * 0.35;
      if (mid < ys[0] || mid > ys[R]) continue;
      let any = false;
      for (const f of l.frags) {
        const cx = (f.x0 + f.x1) / 2;
        if (cx < xs[0] || cx > xs[C]) continue;
        const i = ys.findIndex((y, q) => q < R && mid >= y && mid <= ys[q + 1]);
        const j = xs.findIndex((x, q) => q < C && cx >= x && cx <= xs[q + 1]);
        if (i < 0 || j < 0) continue;
        span.get(find(id(i, j)))?.texts.push({ f, line: l });
        any = true;
      }
      if (any) inside.push(l);
    }
    const g = gridOf(span, R, C, inside);
    if (!g) continue;
    grids.push(g.grid);
    for (const l of g.lines) used.add(l);
  }
  return { grids, used };
}

type Region = { r0: number; r1: number; c0: number; c1: number; texts: Placed[] };

function gridOf(span: Map<number, Region>, R: number, C: number, lines: PLine[]): { grid: Grid; lines: PLine[] } | null {
  const regions = [...span.values()];
  const textOf = (s: Region) =>
    s.texts
      .sort((a, b) => a.line.y - b.line.y || a.f.x0 - b.f.x0)
      .map((p) => p.f.text)
      .join(' ')
      .replace(/\s+/g, ' ')
      .trim();
  // rows kept: those where a cell with text begins; full-width prose rows under the body are left out
  let last = R - 1;
  const fullProse = (i: number) => {
    const own = regions.filter((s) => s.r0 === i && s.texts.length);
    return own.length === 1 && own[0].c0 === 0 && own[0].c1 === C - 1 && textOf(own[0]).length > 30;
  };
  while (last > 0 && (fullProse(last) || !regions.some((s) => s.r0 === last && s.texts.length))) last--;
  const keep = Array.from({ length: last + 1 }, (_, i) => i).filter((i) => regions.some((s) => s.r0 === i && s.texts.length));
  if (keep.length < 2) return null;
  const rowOf = new Map(keep.map((i, k) => [i, k]));
  const rows: GridRow[] = keep.map(() => ({ start: 0, end: 0, cells: [], header: false }));
  const cells: GridCell[] = [];
  for (const s of regions) {
    const covered = keep.filter((i) => i >= s.r0 && i <= s.r1);
    if (!covered.length) continue;
    const frags = s.texts.map((p) => p.f).sort((a, b) => a.start - b.start);
    const text = textOf(s);
    const start = frags.length ? frags[0].start : 0;
    const end = frags.length ? Math.max(...frags.map((f) => f.end)) : 0;
    const cell: GridCell = { text, start, end, row: rowOf.get(covered[0]) as number, col: s.c0, rowspan: covered.length, colspan: s.c1 - s.c0 + 1 };
    if (frags.length > 1) cell.parts = frags.map((f) => ({ start: f.start, end: f.end }));
    cells.push(cell);
    for (const i of covered) for (let j = s.c0; j <= s.c1; j++) rows[rowOf.get(i) as number].cells[j] = cell;
  }
  const used = new Set<PLine>();
  rows.forEach((r, k) => {
    const own = cells.filter((c) => c.row === k && c.text);
    const mine = lines.filter((l) => own.some((c) => c.start >= l.start && c.start <= l.end) || own.some((c) => c.parts?.some((p) => p.start >= l.start && p.start <= l.end)));
    for (const l of mine) used.add(l);
    r.start = mine.length ? Math.min(...mine.map((l) => l.start)) : 0;
    r.end = mine.length ? Math.max(...mine.map((l) => l.end)) : 0;
    r.page = mine[0]?.page;
    for (let j = 0; j < C; j++) if (!r.cells[j]) r.cells[j] = { text: '', start: r.end, end: r.end, row: k, col: j, rowspan: 1, colspan: 1 };
  });
  // the cells' empty ones stand at their row's end
  for (const c of cells) if (!c.text) c.start = c.end = rows[c.row].end;
  // header: leading rows of labels, before the first row printing figures or marks
  for (let k = 0; k < Math.min(4, rows.length - 1); k++) {
    const own = cells.filter((c) => c.row === k && c.text);
    if (own.length === 0 || own.filter((c) => figureLike(c.text)).length > own.length * 0.2) break;
    rows[k].header = true;
  }
  const start = Math.min(...rows.map((r) => r.start));
  const end = Math.max(...rows.map((r) => r.end));
  return { grid: { format: 'pdf', start, end, caption: null, ref: null, rows, width: C, before: [], after: [], notes: [] }, lines: [...used] };
}

/** The ruled tables of a document, page by page, and the lines they hold. */
export function ruledTables(lines: PLine[], rules: Rule[]): RuledTables {
  const grids: Grid[] = [];
  const used = new Set<PLine>();
  const pages = new Set(rules.map((r) => r.page));
  for (const p of pages) {
    const t = pageTables(
      lines.filter((l) => l.page === p),
      rules.filter((r) => r.page === p),
    );
    grids.push(...t.grids);
    for (const l of t.used) used.add(l);
  }
  return { grids: grids.sort((a, b) => a.start - b.start), used };
}
