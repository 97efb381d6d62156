// Dimensional tables into controls {min, max, unit}. Two shapes:
// - grids keyed by district (a row or a column per district, a measure per header cell), e.g.
//   "Table 5.1 Dimensional Requirements";
// - building-type panes (Somerville's "a. Lot Standards | b. Building Placement"), read as a
//   stream of label and value cells. A measure printed with a dash and sub-rows ("Lot Width (min)
//   –" then "No Driveway Access 32 ft") gives one control per sub-row, qualified by it.
// A value that is not a plain number is kept as printed (value_text) with min and max null.
import { normalizeCode } from '../district-list.ts';
import type { ControlRecord, ParseIssue } from '../types.ts';
import { type Bound, type ControlKind, isGroup, kindOf, readLabel } from './lexicon.ts';
import type { Cell, Row, Table } from './tables.ts';
import type { Citer, Span } from './text.ts';
import { readValue, type Value } from './values.ts';
import type { OrdinanceHints } from '../manifest.ts';
import type { Grid } from './model.ts';

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

/** A grid with one row (or one column) per district and one measure per header cell. */
function readGrid(input: DimensionInput): ControlRecord[] | null {
  const { table, known } = input;
  const rows = table.rows.filter((r) => !r.ambiguous);
  const notes = footnotesOf(rows);
  const codeAt = (c: Cell | undefined) => (c && known.has(normalizeCode(c.text)) ? normalizeCode(c.text) : null);
  const districtRows = rows.filter((r) => codeAt(r.cells[0]));
  const header = rows.find((r) => !codeAt(r.cells[0]) && r.cells.slice(1).filter((c) => measureOf(c.text)).length >= 2);
  const out: ControlRecord[] = [];
  if (header && districtRows.length >= 1) {
    for (const r of districtRows) {
      header.cells.forEach((h, i) => {
        const m = i > 0 ? measureOf(h.text) : null;
        const cell = r.cells[i];
        if (!m || !cell || cell.text === '' || readValue(cell.text).kind === 'dash') return;
        out.push(record(input, m, codeAt(r.cells[0]) as string, [cell], { start: r.start, end: r.end }, null, r.cells[0].text, h.text, notes, null));
      });
    }
    return out;
  }
  const codeHeader = rows.find((r) => r.cells.slice(1).filter((c) => codeAt(c)).length >= 2);
  if (!codeHeader) return null;
  for (const r of rows) {
    const m = r === codeHeader ? null : measureOf(r.cells[0]?.text ?? '');
    if (!m) continue;
    codeHeader.cells.forEach((h, i) => {
      const code = i > 0 ? codeAt(h) : null;
      const cell = r.cells[i];
      if (!code || !cell || cell.text === '' || readValue(cell.text).kind === 'dash') return;
      out.push(record(input, m, code, [cell], { start: r.start, end: r.end }, null, r.cells[0].text, h.text, notes, null));
    });
  }
  return out;
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

export function readDimensionTable(input: DimensionInput): ControlRecord[] {
  const grid = readGrid(input);
  if (grid && grid.length > 0) return grid;
  const title = input.table.title?.text ?? '';
  return input.buildingType || /dimension|setback|height/i.test(title) ? readPanes(input) : [];
}
