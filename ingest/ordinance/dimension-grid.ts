// Dimensional grids keyed by district, read from the document model's grid (spans resolved):
// - districts as rows: a column headed "District" (or holding known codes), measures in the
//   column heads ("YARD SETBACKS / FRONT / Minimum depth (linear ft.)"), and label columns between
//   them naming the use or building type each row is for ("USE": "Single-family detached");
// - districts as columns: a header of codes, measures as row labels; a label row with no values
//   opens a group ("Minimum Setbacks (ft.)") whose sub-rows are either measures with it
//   ("Front/Street Side": front and street side setbacks) or qualifiers of it ("House", "1-Story");
//   a label row that is no measure names the building type of the rows below it.
import { codeKey } from '../district-codes.ts';
import type { ControlRecord } from '../types.ts';
import { cellKind, headerRowCount } from './cells.ts';
import { cellLines, joinLines, type Line } from './dimension-cells.ts';
import { factsOf, type Place, type TableContext } from './dimension-facts.ts';
import { type KnownCodes, knownCodes as knownCodesOf, type Named, namedDistricts, othersOf } from './district-names.ts';
import { exactKind, isGroup } from './lexicon.ts';
import { alternatives, DIMENSION_WORD, type Measure, readMeasure, takeMarks } from './measures.ts';
import type { Grid, GridCell } from './model.ts';
import { readAmount, readValue } from './values.ts';

export interface GridRead {
  controls: ControlRecord[];
  axis: 'rows' | 'columns' | null; // where the table names its districts
  measures: number; // measures it names
}

const DISTRICT_HEAD = /\b(districts?|zones?|zoning)\b/i;

/** Rows that form the header: as marked, else as the structure shows it. */
function headerCount(g: Grid): number {
  const marked = g.rows.findIndex((r) => !r.header);
  if (marked > 0) return marked;
  if (marked === -1) return g.rows.length;
  return headerRowCount(g.rows.map((r) => r.cells.map((c, i) => (c.col === i ? c.text : ''))));
}

/** Each column's header texts, top to bottom, a cell spanning rows or columns counted once per column. */
function headsOf(g: Grid, top: number): string[] {
  return Array.from({ length: g.width }, (_, c) => {
    const seen: GridCell[] = [];
    for (const r of g.rows.slice(0, top)) if (r.cells[c].text && !seen.includes(r.cells[c])) seen.push(r.cells[c]);
    return seen.map((x) => x.text).join(' ');
  });
}

/** Distinct cells in a row, each once, with the first column it stands in. */
const distinct = (cells: GridCell[]) => cells.filter((c, i) => cells.indexOf(c) === i);

// a label the lexicon does not know is a measure when it is short and names a dimension ("Assumed Setback on Vacant Lots")
const isMeasureHead = (m: Measure | null): m is Measure => !!m && (m.strong || ((m.units.length > 0 || DIMENSION_WORD.test(m.name)) && m.name.split(/\s+/).length <= 6));

/** Lines that each state a whole figure or none ("5,000" over "NA"): one value per line. */
const valuePerLine = (ls: Line[]) => ls.every((l) => readAmount(takeMarks(l.text).text.replace(/\s*\.$/, '')).kind !== 'text');

/** The code list a named cell stands for, once the whole axis is known ("All other R districts"). */
function resolve(n: Named, elsewhere: Set<string>, known: KnownCodes, ctx: TableContext, where: string): string[] {
  if (n.unresolved) ctx.issues.push({ severity: 'warning', code: 'district_unresolved', detail: `${ctx.ref ?? 'a table'}: "${where}" names districts not held in order (${n.unresolved}); that row is not read for them` });
  if (n.kind !== 'others') return n.codes;
  const codes = othersOf(n, elsewhere, known);
  if (!codes.length) ctx.issues.push({ severity: 'warning', code: 'district_unresolved', detail: `${ctx.ref ?? 'a table'}: "${where}" needs the jurisdiction's other districts, none held` });
  return codes;
}

// ---- districts as rows ----

function rowAxis(g: Grid, heads: string[], top: number, known: KnownCodes): { col: number; says: boolean } | null {
  for (let c = 0; c < Math.min(3, g.width - 1); c++) {
    const says = DISTRICT_HEAD.test(heads[c]) && heads[c].length < 40;
    const cells = distinct(g.rows.slice(top).map((r) => r.cells[c])).filter((x) => x.text && x.colspan < g.width);
    if (!cells.length) continue;
    const named = cells.map((x) => namedDistricts(x.text, known, says, says));
    const n = named.filter(Boolean).length;
    const held = named.filter((x) => x?.kind === 'code' && known.byKey.has(codeKey(x.codes[0]))).length;
    if ((says && n >= 1 && n >= cells.length * 0.5) || (held >= 2 && n >= cells.length * 0.6)) return { col: c, says };
  }
  return null;
}

function readByRows(g: Grid, ctx: TableContext, known: KnownCodes, axis: { col: number; says: boolean }, heads: string[], top: number): GridRead {
  const text = ctx.citer.text;
  const measures = new Map<number, Measure>();
  const labels: number[] = [];
  for (let c = 0; c < g.width; c++) {
    if (c === axis.col) continue;
    const m = readMeasure(heads[c]);
    const body = distinct(g.rows.slice(top).map((r) => r.cells[c])).filter((x) => x.text && x.col === c);
    const words = body.filter((x) => cellKind(x.text) === 'text').length;
    if (isMeasureHead(m) && (m.strong || words < body.length * 0.6)) measures.set(c, m);
    else if (c > axis.col && measures.size === 0 && words >= body.length * 0.6) labels.push(c);
  }
  const rows = g.rows.slice(top);
  const named = rows.map((r) => namedDistricts(r.cells[axis.col].text, known, true, true));
  const elsewhere = new Set(named.flatMap((n) => (n && n.kind !== 'others' ? n.codes.map(codeKey) : [])));
  const out: ControlRecord[] = [];
  const seen = new Set<string>();
  rows.forEach((r, ri) => {
    const n = named[ri];
    const dcell = r.cells[axis.col];
    if (!n || dcell.colspan >= g.width) return;
    const codes = resolve(n, elsewhere, known, ctx, dcell.text);
    if (!codes.length) return;
    // the use or building type the row is for, line by line when its cell lists several
    const bcells = labels.map((c) => r.cells[c]).filter((x) => x.text);
    const bLines: Line[] = bcells.flatMap((x) => cellLines(x, text));
    const btOf = (ls: Line[]) => {
      const t = takeMarks(joinLines(ls)).text.replace(/\s*\.$/, '');
      return t && !/^all( uses)?$/i.test(t) ? t : null;
    };
    const lineCount = bLines.length;
    // a cell listing uses line by line ("Residential" over "Non-residential") is paired with cells giving one value per line
    const paired =
      lineCount >= 2 &&
      [...measures.keys()].some((c) => {
        const ls = cellLines(r.cells[c], text);
        return ls.length === lineCount && valuePerLine(ls);
      });
    for (const [c, m] of measures) {
      const cell = r.cells[c];
      if (!cell.text || cell === dcell || bcells.includes(cell)) continue;
      const lines = cellLines(cell, text);
      const uses = paired ? bLines.map((l) => [l]) : [bLines];
      uses.forEach((use, ui) => {
        const bt = btOf(use);
        const key = `${cell.row}:${cell.col}|${codes.join(',')}|${bt}`;
        if (seen.has(key)) return;
        seen.add(key);
        const own = paired && lines.length === lineCount && valuePerLine(lines) ? [lines[ui]] : lines;
        const place: Place = { codes, row: [dcell.text, ...bcells.map((x) => x.text)].join(' / '), column: heads[c], buildingType: bt, qualifier: null, marks: takeMarks(joinLines(use)).marks };
        out.push(...factsOf(ctx, cell, m, place, [], own));
      });
    }
  });
  return { controls: out, axis: 'rows', measures: measures.size };
}

// ---- districts as columns ----

function columnAxis(g: Grid, heads: string[], top: number, known: KnownCodes): { row: number; cols: Map<number, Named> } | null {
  const tries: Array<{ row: number; texts: string[] }> = g.rows.slice(0, Math.max(1, Math.min(top, 4))).map((r, ri) => ({ row: ri, texts: r.cells.map((c, i) => (c.col === i && c.colspan === 1 ? c.text : '')) }));
  if (top > 1) tries.push({ row: top - 1, texts: heads });
  for (const t of tries) {
    const cols = new Map<number, Named>();
    let filled = 0;
    t.texts.forEach((s, i) => {
      if (i === 0 || !s) return;
      filled++;
      const n = namedDistricts(s, known, true);
      if (n?.codes.length) cols.set(i, n);
    });
    if (cols.size >= 2 && cols.size >= filled * 0.6) return { row: t.row, cols };
  }
  return null;
}

/**
 * A row label under an open group: measures it names with the group ("Front/Street Side" +
 * "Setbacks"), or with the group's subject ("Width" under "Minimum Lot Size" is the lot's width),
 * or null.
 */
function subMeasures(label: string, group: Measure): Measure[] | null {
  const parts = takeMarks(label)
    .text.replace(/\s*\([^)]*\)\s*$/, '')
    .split(/\s*\/\s*/)
    .filter(Boolean);
  const words = group.name.split(/\s+/).filter(Boolean);
  const stems = words.slice(0, -1).map((_, i) => words.slice(0, words.length - 1 - i).join(' '));
  const kinds = parts.map((p) => exactKind(`${p} ${group.name}`) ?? exactKind(`${group.name} ${p}`) ?? stems.map((s) => exactKind(`${s} ${p}`)).find(Boolean) ?? null);
  if (!kinds.every(Boolean)) return null;
  // the row's own unit ("Area (acres)") over the group's
  const own = readMeasure(label);
  const units = own?.units.length ? { units: own.units, unit: own.unit } : {};
  return kinds.map((k) => ({ ...group, ...units, kind: k ?? group.kind, marks: [...group.marks, ...takeMarks(label).marks] }));
}

const REFERENCE = /^\s*(?:subject to|see|refer to|as (?:required|provided|specified) (?:in|by)|per)\b/i;
const dashOnly = (cells: GridCell[]) => cells.length > 0 && cells.every((c) => readValue(c.text).kind === 'dash' && !/^n\/?a$/i.test(c.text.trim()));

function readByColumns(g: Grid, ctx: TableContext, known: KnownCodes, axis: { row: number; cols: Map<number, Named> }): GridRead {
  const first = Math.min(...axis.cols.keys());
  const elsewhere = new Set([...axis.cols.values()].flatMap((n) => (n.kind !== 'others' ? n.codes.map(codeKey) : [])));
  const codesOf = new Map([...axis.cols].map(([c, n]) => [c, resolve(n, elsewhere, known, ctx, n.codes.join(', '))]));
  const out: ControlRecord[] = [];
  let group: Measure | null = null;
  let category: string | null = null;
  let measures = 0;
  const rows = g.rows.slice(axis.row + 1).map((r) => {
    const labelCells = distinct(r.cells.slice(0, first)).filter((x) => x.text);
    const label = labelCells.map((x) => x.text).join(' ');
    const cells = [...axis.cols.keys()].filter((c) => r.cells[c].text && !labelCells.includes(r.cells[c])).map((c) => ({ c, cell: r.cells[c] }));
    const own = label ? readMeasure(label) : null;
    return { label, cells, own, strong: !!own && !!own.name && own.strong };
  });
  rows.forEach(({ label, cells, own, strong }, i) => {
    if (!label) return;
    // a measure with no values, or only dashes above sub-rows that are no measures, opens a group
    const opens = cells.length === 0 || (strong && dashOnly(cells.map((x) => x.cell)) && !!rows[i + 1]?.label && !rows[i + 1].strong);
    if (opens) {
      if (own?.name && (own.strong || own.units.length)) group = own;
      else {
        group = null;
        if (!isGroup(takeMarks(label).text)) category = takeMarks(label).text;
      }
      return;
    }
    let list: Array<{ m: Measure; qualifier: string | null; parts: string[] }> = [];
    const subs = group ? subMeasures(label, group) : null;
    if (subs) list = subs.map((m) => ({ m, qualifier: null, parts: [] }));
    else if (own && strong) {
      list = alternatives(own).map((m) => ({ m, qualifier: null, parts: [] }));
      group = null;
    } else if (group && own && !own.name && own.bound) list = [{ m: { ...group, bound: own.bound }, qualifier: label, parts: [] }];
    else if (group && cells.every((x) => REFERENCE.test(x.cell.text))) {
      group = null; // "Accessory Structures | Subject to 60.3B": a pointer elsewhere ends the group
      return;
    } else if (group) {
      const q = takeMarks(label);
      list = [{ m: { ...group, marks: [...group.marks, ...q.marks] }, qualifier: q.text, parts: q.text.split(/\s*\/\s*/) }];
    }
    if (!list.length) return;
    measures += list.length;
    for (const { c, cell } of cells) {
      const codes = codesOf.get(c) ?? [];
      if (!codes.length) continue;
      for (const { m, qualifier, parts } of list) {
        const place: Place = { codes, row: label, column: g.rows[axis.row]?.cells[c].text ?? null, buildingType: category, qualifier: parts.length > 1 ? null : qualifier, marks: [] };
        out.push(...factsOf(ctx, cell, m, place, parts.length > 1 ? parts : []));
      }
    }
  });
  return { controls: out, axis: 'columns', measures };
}

/** A grid keyed by district, read; or axis null when the table names no district. */
export function readDistrictGrid(g: Grid, ctx: TableContext, known: KnownCodes): GridRead {
  if (g.rows.length < 2 || g.width < 2) return { controls: [], axis: null, measures: 0 };
  const top = Math.max(1, Math.min(headerCount(g), g.rows.length - 1));
  const heads = headsOf(g, top);
  const byCols = columnAxis(g, heads, top, known);
  if (byCols) return readByColumns(g, ctx, known, byCols);
  const byRows = rowAxis(g, heads, top, known);
  if (byRows) return readByRows(g, ctx, known, byRows, heads, top);
  return { controls: [], axis: null, measures: 0 };
}

/** A table of labels and values inside one district's section ("Minimum lot size | 19 acres"). */
export function readLabelValues(g: Grid, ctx: TableContext, district: string): ControlRecord[] {
  if (g.width !== 2) return [];
  const strong = g.rows.filter((r) => readMeasure(r.cells[0].text)?.strong).length;
  if (strong < 2) return [];
  const cols = new Map<number, Named>([[1, { codes: [district], kind: 'code', unresolved: null }]]);
  return readByColumns(g, ctx, knownCodesOf(district), { row: -1, cols }).controls;
}
