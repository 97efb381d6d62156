// Dimensional tables into controls {min, max, unit}. Three shapes:
// - grids keyed by district, districts as rows or as columns (dimension-grid.ts), e.g.
//   "Table 5.1 Dimensional Requirements", Chicago's "District | Minimum Lot Area";
// - label | value tables inside a district's section ("Minimum lot size | 19 acres"), read as a
//   grid whose one value column is that district;
// - building-type panes (Somerville's "a. Lot Standards | b. Building Placement"), read as a
//   stream of label and value cells. A measure printed with a dash and sub-rows ("Lot Width (min)
//   –" then "No Driveway Access 32 ft") gives one control per sub-row, qualified by it.
// A value that is not a plain number is kept as printed (value_text) with min and max null. A table
// that looks dimensional and is not read is reported (table_unread), naming its section and table.
import type { OrdinanceHints } from '../manifest.ts';
import type { ControlRecord, ParseIssue } from '../types.ts';
import type { TableContext } from './dimension-facts.ts';
import { readDistrictGrid, readLabelValues } from './dimension-grid.ts';
import { footnotes } from './dimension-notes.ts';
import { knownCodes } from './district-names.ts';
import { type Bound, type ControlKind, isGroup, kindOf, readLabel } from './lexicon.ts';
import { readMeasure } from './measures.ts';
import type { Grid } from './model.ts';
import type { Cell, Row, Table } from './tables.ts';
import type { Citer, Span } from './text.ts';
import { readValue, type Value } from './values.ts';

export interface DimensionInput {
  table: Table;
  grid: Grid; // the same table as the document model holds it (spans resolved)
  hints: OrdinanceHints;
  citer: Citer;
  section: { ref: string; heading: string | null } | null;
  known: Set<string>;
  around: string | null; // district of the enclosing section
  buildingType: string | null; // building type of the enclosing section
  issues: ParseIssue[];
}

interface Measure {
  kind: ControlKind;
  bound: Bound;
  unit: string | null;
  label: string;
  marks: string[];
}

function measureOf(raw: string): Measure | null {
  const info = readLabel(raw);
  if (!info.name || (isGroup(info.name) && !info.bound && !info.unit)) return null;
  const kind = kindOf(info.name);
  if (!kind.known && !info.bound && !info.unit) return null;
  return { kind, bound: info.bound ?? kind.bound, unit: info.unit, label: raw, marks: info.marks };
}

const isValue = (v: Value) => v.kind !== 'text' || v.numeric;

/** min, max, unit and the printed text of one or two value cells under a measure. */
function limits(m: Measure, values: Cell[]): Pick<ControlRecord, 'min' | 'max' | 'unit' | 'value_text'> {
  const read = values.map((c) => readValue(c.text));
  const value_text = values.map((c) => c.text).join(' / ');
  const nums = read.map((v) => (v.kind === 'number' ? v : null));
  const unit = nums.find((n) => n?.unit)?.unit ?? m.unit ?? m.kind.unit;
  if (nums.some((n) => n === null)) return { min: null, max: null, unit, value_text };
  const [a, b] = nums as { value: number }[];
  if (m.bound === 'min/max') return b ? { min: a.value, max: b.value, unit, value_text } : { min: null, max: null, unit, value_text };
  if (m.bound === 'min') return { min: a.value, max: null, unit, value_text };
  if (m.bound === 'max') return { min: null, max: a.value, unit, value_text };
  return { min: null, max: null, unit, value_text };
}

function footnotesOf(rows: Row[]): Map<string, string> {
  const notes = new Map<string, string>();
  for (const r of rows)
    for (const c of r.cells) {
      const m = /^(\d{1,2}|\*{1,3})\s+([A-Z(§].*)$/.exec(c.text);
      if (m) notes.set(m[1], c.text);
    }
  return notes;
}

function record(input: DimensionInput, m: Measure, district: string, values: Cell[], span: Span, qualifier: string | null, rowLabel: string, column: string | null, notes: Map<string, string>, group: string | null): ControlRecord {
  const { section, table } = input;
  const ref = table.ref ?? (section ? `§ ${section.ref}` : null);
  let type = m.kind.type;
  if (group && /parking/i.test(group) && /setback/.test(type)) type = type.replace('dimensional.', 'dimensional.parking_');
  const conditions = m.marks.map((k) => notes.get(k) ?? `note ${k}`).join('; ') || null;
  const lim = limits(m, values);
  if (lim.min === null && lim.max === null && values.some((c) => { const v = readValue(c.text); return v.kind === 'text' && v.numeric; }))
    input.issues.push({ severity: 'warning', code: 'value_unparsed', detail: `${ref}: ${rowLabel}${column ? ` / ${column}` : ''} "${lim.value_text}" is kept as text`, locator: { table: ref, row: rowLabel, start: span.start, end: span.end } });
  return {
    district_code: district,
    control_type: type,
    building_type: input.buildingType,
    qualifier: [m.kind.rest, qualifier].filter(Boolean).join('; ') || null,
    ...lim,
    conditions,
    table_ref: ref,
    citation: input.citer.cite(span, { section: section?.ref ?? null, heading: section?.heading ?? null, table: ref, row: rowLabel, column }, section?.ref ?? null),
  };
}

interface Parent {
  m: Measure;
  col: number;
  opened: number;
  quals: string[];
  open: boolean;
}

/** Building-type panes: label and value cells in reading order. */
function readPanes(input: DimensionInput): ControlRecord[] {
  const { table, around } = input;
  if (!around) return [];
  const rows = table.rows.filter((r) => !r.ambiguous);
  const notes = footnotesOf(rows);
  const out: ControlRecord[] = [];
  const parents: Parent[] = [];
  let group: string | null = null;
  let n = 0;
  const pick = (q: string, col: number): Parent | null => {
    const open = parents.filter((p) => p.open && !p.quals.includes(q));
    // follow a series another measure already showed ("No Driveway Access", "Side or Rear …")
    const series = open.find((p) => parents.some((o) => o !== p && o.quals.length > p.quals.length && p.quals.every((x, i) => o.quals[i] === x) && o.quals[p.quals.length] === q));
    if (series) return series;
    const near = open.sort((a, b) => Math.abs(a.col - col) - Math.abs(b.col - col) || b.opened - a.opened);
    return near[0] ?? null;
  };
  for (const row of rows) {
    const cells = row.cells.map((c, i) => ({ c, i })).filter(({ c }) => c.text !== '' && !/^\[Image\b/.test(c.text));
    for (let k = 0; k < cells.length; k++) {
      const { c, i } = cells[k];
      const name = readLabel(c.text).name;
      if (isGroup(name)) {
        group = name;
        continue;
      }
      if (/^(\d{1,2}|\*{1,3})\s+[A-Z(§]/.test(c.text)) continue; // a footnote
      const v = readValue(c.text);
      if (isValue(v) && v.kind !== 'text') continue; // a value with no label before it
      const m = measureOf(c.text);
      const next = cells[k + 1];
      const values: Cell[] = [];
      if (next) values.push(next.c);
      const after = cells[k + 2];
      if (m?.bound === 'min/max' && after && isValue(readValue(after.c.text))) values.push(after.c);
      if (m) {
        for (const p of parents) if (p.col === i) p.open = false;
        if (values.length === 0) continue;
        k += values.length;
        if (readValue(values[0].text).kind === 'dash') {
          parents.push({ m, col: i, opened: n++, quals: [], open: true });
          continue;
        }
        out.push(record(input, m, around, values, { start: c.start, end: values[values.length - 1].end }, null, c.text, null, notes, group));
        continue;
      }
      if (!next || !isValue(readValue(next.c.text))) continue;
      const parent = pick(c.text, i);
      k += 1;
      if (!parent) {
        input.issues.push({ severity: 'warning', code: 'value_orphaned', detail: `§ ${input.section?.ref}: "${c.text} ${next.c.text}" has no measure above it; not read`, locator: { start: c.start, end: next.c.end } });
        continue;
      }
      parent.quals.push(c.text);
      // "Green Score –" then "Minimum 0.35" and "Ideal 0.40": a bare minimum or maximum row is the bound
      const said = /^(min|max)(imum)?$/i.exec(c.text)?.[1].toLowerCase() as 'min' | 'max' | undefined;
      const pm = said && !parent.m.bound ? { ...parent.m, bound: said } : parent.m;
      out.push(record(input, pm, around, [next.c], { start: c.start, end: next.c.end }, c.text, `${pm.label} / ${c.text}`, null, notes, group));
    }
  }
  return out;
}

/** The table's name in facts and issues (as the use reader names tables): its ref, else its section, else its caption. */
export function tableName(grid: Grid, section: DimensionInput['section']): string | null {
  return grid.ref ?? (section ? `§ ${section.ref}` : null) ?? (grid.caption ? grid.caption.text.replace(/\s+/g, ' ').trim() : null);
}

// the measures of lots and the buildings on them that district tables state (a sign's height is not one)
const CORE = /setback|rear_yard|lot_(area|width|depth)|coverage|\.far$|stories|open_space/;

/** Whether a table states district dimensions: two core measures among its first rows and columns, or a caption that says so. */
function looksDimensional(g: Grid): boolean {
  // its cells hold figures, not prose (a glossary names lot area and front yard too)
  const values = g.rows.flatMap((r) => r.cells.slice(1).filter((c, i) => c.text && r.cells.indexOf(c) === i + 1));
  if (values.filter((c) => /\d/.test(c.text) && c.text.length < 40).length < Math.max(2, values.length * 0.3)) return false;
  if (/\bdimensional\b|\bsetbacks?\b|\bbulk\b|\blot (area|size|width)\b|\bheight and area\b/i.test(g.caption?.text ?? '')) return true;
  const labels = new Set([...g.rows.slice(0, 3).flatMap((r) => r.cells.map((c) => c.text)), ...g.rows.flatMap((r) => r.cells.slice(0, 2).map((c) => c.text))]);
  const kinds = new Set(
    [...labels]
      .map((l) => readMeasure(l)?.kind)
      .filter((k) => k?.known && k.rest === null && CORE.test(k.type))
      .map((k) => k?.type),
  );
  return kinds.size >= 2;
}

export function readDimensionTable(input: DimensionInput): ControlRecord[] {
  const { grid, citer, section } = input;
  const known = knownCodes(input.known, input.hints.code_aliases ?? {}, citer.text);
  const ref = tableName(grid, section);
  const ctx: TableContext = { citer, section, ref, notes: footnotes(grid, citer.text), buildingType: input.buildingType, issues: input.issues };
  const read = readDistrictGrid(grid, ctx, known);
  if (read.controls.length) return read.controls;
  if (!read.axis && input.around) {
    const own = readLabelValues(grid, ctx, input.around);
    if (own.length) return own;
    const title = input.table.title?.text ?? '';
    const panes = input.buildingType || /dimension|setback|height/i.test(title) ? readPanes(input) : [];
    if (panes.length) return panes;
  }
  if ((read.axis && read.measures > 0) || looksDimensional(grid)) {
    const why = read.axis ? 'its districts are named but none of its values could be read' : 'no district it speaks for is named in its header or known for its section';
    input.issues.push({ severity: 'warning', code: 'table_unread', detail: `${ref ?? 'a table'}: looks dimensional, but ${why}`, locator: { section: section?.ref ?? null, table: ref } });
  }
  return [];
}
