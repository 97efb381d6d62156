// Tables linearized one cell per block (text captured from a code publisher's page, a Word file
// saved as text): cells come one after another, separated by blank lines. The width is read from
// the header: a run of short cells followed by rows whose first cell is a label and whose other
// cells are values. Where the capture dropped empty cells, a use table is read by the kinds of its
// cells instead: an optional row number, a label, a run of as many marks as the header has district
// columns, then references (use standards, parking standards).
import { cellKind, wordCount } from './cells.ts';
import { buildGrid, emptyGrid, type RawCell, type RawRow } from './grid.ts';
import type { Grid } from './model.ts';
import type { Span } from './text.ts';

export interface Chunk extends Span {
  text: string; // squashed
  heading: boolean; // opens a numbered section
}

const ROWNUM = /^\*?\d{1,3}[a-z]?\.$/;
const LEGEND = /(?:^|\s)(?:[A-Z]{1,3}|[-\u2013\u2014])\s*[=\u2013\u2014:-]\s*\S/;
const isLegend = (c: Chunk) => (c.text.match(new RegExp(LEGEND.source, 'g')) ?? []).length >= 2 && /=|\u2013|\u2014/.test(c.text);
const LIST_ITEM = /^(?:\(?\d{1,3}[a-z]?[.)]|\([a-z]{1,4}\))\s/;
const CAPTION = /^(?:table|figure|exhibit|schedule|illustration)\s+\S/i;
const isProse = (c: Chunk) => c.heading || wordCount(c.text) >= 30 || (/[.;:]["”’)]?$/.test(c.text) && wordCount(c.text) >= 8 && cellKind(c.text) === 'text');
const short = (c: Chunk) => !c.heading && wordCount(c.text) <= 25 && !/\.$/.test(c.text) && !isProse(c) && !CAPTION.test(c.text);
const labelLike = (c: Chunk) => !c.heading && (cellKind(c.text) === 'text' || cellKind(c.text) === 'ref') && wordCount(c.text) <= 12 && !CAPTION.test(c.text);
const valueLike = (c: Chunk) =>
  !c.heading && !LIST_ITEM.test(c.text) && (['mark', 'number'].includes(cellKind(c.text)) || /\d/.test(c.text) || /^(none|n\/a|no\b|not\b|see\b|yes\b)/i.test(c.text));
const isMark = (c: Chunk) => !c.heading && cellKind(c.text) === 'mark';

const cell = (c: Chunk, colspan = 1, rowspan = 1): RawCell => ({ start: c.start, end: c.end, text: c.text, colspan, rowspan });
const same = (a: Chunk[], b: Chunk[]) => a.length === b.length && a.every((c, i) => c.text === b[i]?.text);

interface Found {
  grid: Grid;
  end: number; // index after the last chunk used
  cells: number;
}

/** Every row the same width: a header of `w` short cells, then label + values rows. */
function fixedWidth(chunks: Chunk[], s: number): Found | null {
  let best: Found | null = null;
  for (let w = 2; w <= 12 && s + w <= chunks.length; w++) {
    const header = chunks.slice(s, s + w);
    if (!header.every(short) || !header.some((c) => cellKind(c.text) === 'text')) break;
    let i = s + w;
    const raw: RawRow[] = [{ start: header[0].start, end: header[w - 1].end, header: true, cells: header.map((c) => cell(c)) }];
    const notes: Span[] = [];
    let rows = 0;
    for (;;) {
      const r = chunks.slice(i, i + w);
      if (r.length < w) break;
      if (same(r, header)) {
        notes.push({ start: r[0].start, end: r[w - 1].end });
        i += w;
        continue;
      }
      if (!labelLike(r[0]) || !r.slice(1).every(valueLike)) break;
      raw.push({ start: r[0].start, end: r[w - 1].end, header: false, cells: r.map((c) => cell(c)) });
      rows++;
      i += w;
    }
    if (rows < 2) continue;
    const score = rows * w;
    if (!best || score > best.cells) {
      const { rows: gridRows, width } = buildGrid(raw);
      const grid = emptyGrid('text', gridRows, width);
      grid.notes = notes;
      best = { grid, end: i, cells: score };
    }
  }
  return best;
}

/** Maximal runs of marks: [start index, length]. */
function markRuns(chunks: Chunk[], from: number, to: number): [number, number][] {
  const runs: [number, number][] = [];
  for (let i = from; i < to; ) {
    if (!isMark(chunks[i])) {
      i++;
      continue;
    }
    let j = i;
    while (j < to && isMark(chunks[j])) j++;
    runs.push([i, j - i]);
    i = j;
  }
  return runs;
}

/** A use table whose empty cells the capture dropped, read by cell kinds. */
function byKinds(chunks: Chunk[], s: number): Found | null {
  let stop = s;
  while (stop < chunks.length && !chunks[stop].heading) stop++;
  const runs = markRuns(chunks, s, stop);
  const lengths = new Map<number, number>();
  for (const [, n] of runs) if (n >= 2) lengths.set(n, (lengths.get(n) ?? 0) + 1);
  const k = [...lengths.entries()].sort((a, b) => b[1] - a[1] || b[0] - a[0])[0]?.[0];
  if (!k || (lengths.get(k) ?? 0) < 3) return null;
  // header: short cells up to the legend, or up to the first run of district codes
  let i = s;
  const legendAt = chunks.slice(s, Math.min(stop, s + 6 * k)).findIndex(isLegend);
  const legendMarks = new Set<string>();
  if (legendAt >= 0) for (const m of chunks[s + legendAt].text.matchAll(/(?:^|\s)([A-Z]{1,3}|[-\u2013\u2014])\s*=/g)) legendMarks.add(m[1]);
  const codeRun = (at: number) => {
    const r = chunks.slice(at, at + k);
    return r.length === k && r.every((c) => !c.heading && c.text.length <= 10 && !legendMarks.has(c.text)) && !r.some((c) => /^[-\u2013\u2014]$|^[A-Z]$/.test(c.text));
  };
  let headerEnd = -1;
  if (legendAt >= 0) headerEnd = s + legendAt + 1;
  else {
    for (let j = s; j < stop && j < s + 6 * k; j++)
      if (codeRun(j)) {
        headerEnd = j + k;
        j += k - 1;
      } else if (isMark(chunks[j])) break;
  }
  if (headerEnd < 0) return null;
  const header = chunks.slice(s, headerEnd);
  if (!header.every((c) => short(c) || isLegend(c))) return null;
  i = headerEnd;
  const notes: Span[] = [];
  if (same(chunks.slice(i, i + header.length), header)) {
    notes.push({ start: chunks[i].start, end: chunks[i + header.length - 1].end });
    i += header.length;
  }
  // body rows
  const counts = new Map<string, number>();
  for (let j = i; j < stop; j++) counts.set(chunks[j].text, (counts.get(chunks[j].text) ?? 0) + 1);
  const tailish = (c: Chunk) => !c.heading && (cellKind(c.text) === 'ref' || /^\d+(?:[.-]\d+)+[A-Za-z-]*$/.test(c.text) || (counts.get(c.text) ?? 0) >= 3) && !ROWNUM.test(c.text);
  interface Row {
    lead: Chunk[];
    marks: Chunk[];
    tail: Chunk[];
  }
  const rows: Row[] = [];
  let cur: Row = { lead: [], marks: [], tail: [] };
  const emit = () => {
    if (cur.lead.length || cur.marks.length) rows.push(cur);
    cur = { lead: [], marks: [], tail: [] };
  };
  let end = i;
  for (; i < stop; i++) {
    const c = chunks[i];
    if (isMark(c) && cur.marks.length < k && cur.tail.length === 0) {
      cur.marks.push(c);
      end = i + 1;
      continue;
    }
    if (cur.marks.length === k && tailish(c)) {
      cur.tail.push(c);
      end = i + 1;
      continue;
    }
    if (isProse(c)) {
      // a note inside the table when rows go on right after it
      if (chunks.slice(i + 1, i + 4).some(isMark)) {
        emit();
        notes.push({ start: c.start, end: c.end });
        continue;
      }
      break;
    }
    if (!labelLike(c) && !ROWNUM.test(c.text)) break;
    if (cur.marks.length) emit();
    // a label after a label: the one before was a category row
    if (cur.lead.some((l) => !ROWNUM.test(l.text)) || cur.lead.length >= 2) emit();
    cur.lead.push(c);
  }
  if (cur.marks.length) emit();
  while (rows.length && rows[rows.length - 1].marks.length === 0) rows.pop();
  const body = rows.filter((r) => r.marks.length);
  if (body.length < 3) return null;
  const lead = Math.max(1, ...body.map((r) => r.lead.length));
  const tail = Math.max(0, ...body.map((r) => r.tail.length));
  const width = lead + k + tail;
  const raw: RawRow[] = headerRows(header, k, lead, tail);
  const tailColumns = Array.from({ length: tail }, (_, j) => body.filter((r) => r.tail.length === tail).map((r) => r.tail[j].text));
  for (const r of rows) {
    const all = [...r.lead, ...r.marks, ...r.tail];
    const row: RawRow = { start: all[0].start, end: all[all.length - 1].end, header: false, cells: [] };
    if (r.marks.length === 0) {
      row.cells = [cell(r.lead[r.lead.length - 1], width)];
      if (r.lead.length > 1) row.cells = [cell(r.lead[0]), cell(r.lead[1], width - 1)];
    } else {
      row.cells = r.lead.length === lead ? r.lead.map((c) => cell(c)) : [cell(r.lead[0] ?? r.marks[0], lead)];
      if (r.lead.length === 0) row.cells = [{ start: row.start, end: row.start, text: '', colspan: lead }];
      row.cells.push(...r.marks.map((c) => cell(c)));
      const placed = placeTail(r.tail, tailColumns);
      for (let j = 0; j < tail; j++) row.cells.push(placed.cells[j] ? cell(placed.cells[j] as Chunk) : { start: row.end, end: row.end, text: '' });
      const uncertain: number[] = [];
      if (r.marks.length < k) for (let c = lead; c < width; c++) uncertain.push(c);
      else if (!placed.sure) for (let c = lead + k; c < width; c++) uncertain.push(c);
      if (uncertain.length) row.uncertain = uncertain;
    }
    raw.push(row);
  }
  const built = buildGrid(raw);
  const grid = emptyGrid('text', built.rows, built.width);
  grid.notes = notes;
  return { grid, end, cells: body.length * k };
}

const common = (a: string, b: string) => {
  let n = 0;
  while (n < a.length && a[n] === b[n]) n++;
  return n;
};

/**
 * Trailing cells of a row that printed fewer than the table's trailing columns: each goes to the
 * column whose complete rows print the most alike values (longest common beginning), in order.
 */
function placeTail(cells: Chunk[], columns: string[][]): { cells: (Chunk | null)[]; sure: boolean } {
  const out: (Chunk | null)[] = columns.map(() => null);
  if (cells.length === columns.length || cells.length === 0) {
    cells.forEach((c, j) => {
      out[j] = c;
    });
    return { cells: out, sure: true };
  }
  let sure = true;
  let from = 0;
  cells.forEach((c, i) => {
    const room = columns.length - (cells.length - i); // last column this cell may take
    let best = from;
    let bestScore = -1;
    let tie = false;
    for (let j = from; j <= room; j++) {
      const score = Math.max(0, ...columns[j].map((v) => common(v, c.text)));
      if (score > bestScore) {
        best = j;
        bestScore = score;
        tie = false;
      } else if (score === bestScore) tie = true;
    }
    if (tie || bestScore <= 0) sure = false;
    out[best] = c;
    from = best + 1;
  });
  return { cells: out, sure };
}

/** The header's cells as rows: district-code runs with the label before them, cells above spanning. */
function headerRows(header: Chunk[], k: number, lead: number, tail: number): RawRow[] {
  const runs: number[] = [];
  for (let j = 0; j + k <= header.length; j++)
    if (header.slice(j, j + k).every((c) => c.text.length <= 10) && !isLegend(header[j])) {
      runs.push(j);
      j += k - 1;
    }
  const rows: RawRow[] = [];
  const span = (cs: Chunk[]) => ({ start: cs[0].start, end: cs[cs.length - 1].end });
  const firstLead = runs.length ? Math.max(0, runs[0] - 1) : header.length;
  const top = header.slice(0, firstLead);
  if (top.length) {
    const cells: RawCell[] =
      top.length === 2 + tail && runs.length ? [cell(top[0], lead), cell(top[1], k), ...top.slice(2).map((c) => cell(c, 1, 1 + runs.length - 1))] : top.length === 1 ? [cell(top[0], lead + k + tail)] : top.map((c) => cell(c));
    rows.push({ ...span(top), header: true, cells });
  }
  runs.forEach((at, n) => {
    const nextLead = n + 1 < runs.length ? runs[n + 1] - 1 : header.length;
    const before = at > 0 && (n === 0 || at - 1 >= runs[n - 1] + k) ? header[at - 1] : null;
    const after = header.slice(at + k, nextLead);
    const cs = [...(before ? [before] : []), ...header.slice(at, at + k), ...after];
    const cells: RawCell[] = [before ? cell(before, lead) : { start: header[at].start, end: header[at].start, text: '', colspan: lead }];
    cells.push(...header.slice(at, at + k).map((c) => cell(c)));
    if (after.length) cells.push(...after.map((c, i) => cell(c, i === after.length - 1 ? Math.max(1, tail - after.length + 1) : 1)));
    rows.push({ ...span(cs), header: true, cells });
  });
  if (!rows.length) rows.push({ ...span(header), header: true, cells: header.map((c) => cell(c)) });
  return rows;
}

/** Linearized tables among a text's blocks; returns them with the block ranges they use. */
export function linearTables(chunks: Chunk[]): { grid: Grid; from: number; to: number }[] {
  const out: { grid: Grid; from: number; to: number }[] = [];
  for (let s = 0; s < chunks.length; ) {
    if (!short(chunks[s])) {
      s++;
      continue;
    }
    const found = [fixedWidth(chunks, s), byKinds(chunks, s)].filter((f): f is Found => !!f).sort((a, b) => b.cells - a.cells)[0];
    if (!found) {
      s++;
      continue;
    }
    out.push({ grid: found.grid, from: s, to: found.end });
    s = found.end;
  }
  return out;
}
