// From one cell under one measure to controls: the labelled values it holds, the figures split by
// slashes the label names one by one, units from the cell, the label or the measure, bounds, and
// conditions from footnote marks and from what the cell says beside its figure.
import type { ControlRecord, ParseIssue } from '../types.ts';
import { cellLines, type Line, piecesOf } from './dimension-cells.ts';
import type { Bound } from './lexicon.ts';
import { boundOfMeasure, type Measure, type UnitSpec, unitOfMeasure } from './measures.ts';
import type { GridCell } from './model.ts';
import type { Citer, Span } from './text.ts';
import { type Amount, readAmount } from './values.ts';

export interface TableContext {
  citer: Citer;
  section: { ref: string; heading: string | null } | null;
  ref: string | null; // table_ref of every fact of the table
  notes: Map<string, string>; // footnote mark → its text
  buildingType: string | null; // of the enclosing section
  issues: ParseIssue[];
}

/** Where a fact stands in the table, for its citation and its context. */
export interface Place {
  codes: string[];
  row: string;
  column: string | null;
  buildingType: string | null;
  qualifier: string | null;
  marks: string[]; // of the row, column and group labels above the cell
}

const SECTION_REF = /(?:§+|\bsec(?:tions?|s)?\.?|\barticles?\b|\bart\.)\s*[\dA-Z][\w.]*(?:[-–][\w.]+)*/gi;
const BUILDING = /\b(buildings?|structures?)\b/i;
const MARK_AT_END = /\s*(?:\[(\d{1,2}|[a-z])\]|\((\d{1,2})\)|([\u00b9\u00b2\u00b3\u2070-\u2079]))\s*$/i;

/** Trailing footnote marks of a value: "[3]", "(3)", and a bare " 4" when the table has note 4. */
function stripMarks(raw: string, notes: Map<string, string>): { text: string; marks: string[] } {
  const marks: string[] = [];
  let s = raw.trim();
  for (let prev = ''; prev !== s; ) {
    prev = s;
    const m = MARK_AT_END.exec(s);
    if (m) {
      marks.unshift(m[1] ?? m[2] ?? String('⁰¹²³⁴⁵⁶⁷⁸⁹'.indexOf(m[3])));
      s = s.slice(0, m.index).trim();
      continue;
    }
    // "40 per du 4": a bare number after a whole figure is a mark when the table has that note ("0.3 to 1" is a ratio)
    const bare = /\s(\d{1,2}|\*{1,3})$/.exec(s);
    if (bare && notes.has(bare[1]) && readAmount(s).kind === 'text' && readAmount(s.slice(0, bare.index)).kind !== 'text') {
      marks.unshift(bare[1]);
      s = s.slice(0, bare.index).trim();
    }
  }
  return { text: s, marks };
}

interface Figure {
  amount: Amount;
  spec: UnitSpec | null;
  qualifier: string | null; // the label part a slash pairs it with ("Principal")
}

/** One value or several separated by slashes, paired with the label's units or parts when they count the same. */
function figuresOf(text: string, m: Measure, labelParts: string[]): Figure[] | null {
  // "35 ft. or 2½ stories": alternatives, each with its own unit, are read like slashed values
  const alternatives = text.split(/\s+or\s+/i);
  const own = alternatives.map((p) => readAmount(p)).map((a) => (a.kind === 'number' ? a.unit : null));
  const parts = alternatives.length > 1 && own.every(Boolean) && new Set(own).size === own.length ? alternatives : text.split(/\s*\/\s*/);
  if (parts.length < 2 || /\d\s*\/\s*(du|unit|acre)/i.test(text)) return [{ amount: readAmount(text), spec: m.units.length === 1 ? m.units[0] : null, qualifier: null }];
  const amounts = parts.map(readAmount);
  if (amounts.some((a) => a.kind === 'text')) return [{ amount: readAmount(text), spec: null, qualifier: null }];
  if (m.units.length === parts.length) return amounts.map((amount, i) => ({ amount, spec: m.units[i], qualifier: null }));
  if (labelParts.length === parts.length) return amounts.map((amount, i) => ({ amount, spec: null, qualifier: labelParts[i] }));
  const units = amounts.map((a) => (a.kind === 'number' ? a.unit : null));
  if (units.every(Boolean) && new Set(units).size === units.length) return amounts.map((amount) => ({ amount, spec: null, qualifier: null }));
  if (parts.length === 2 && boundOfMeasure(m) === 'min/max') return null; // a minimum and a maximum: read by the caller
  return [{ amount: { kind: 'text', numeric: true }, spec: null, qualifier: null }];
}

const typeFor = (m: Measure, unit: string | null, perUnit: boolean): string => {
  let t = m.kind.type;
  if (t === 'dimensional.height' && unit === 'stories') t = 'dimensional.stories';
  else if (t === 'dimensional.stories' && unit === 'ft') t = 'dimensional.height';
  if (perUnit && !/_per_(dwelling_)?unit$/.test(t)) t = `${t}_per_unit`;
  return t;
};

function limits(bound: Bound, a: Amount): { min: number | null; max: number | null } {
  if (a.kind !== 'number') return { min: null, max: null };
  if (bound === 'min') return { min: a.value, max: null };
  if (bound === 'max') return { min: null, max: a.value };
  return { min: null, max: null };
}

/** Controls a cell states under a measure, for every district of its place. */
export function factsOf(ctx: TableContext, cell: GridCell, m: Measure, place: Place, labelParts: string[] = [], lines?: Line[]): ControlRecord[] {
  const text = ctx.citer.text;
  const out: ControlRecord[] = [];
  for (const piece of piecesOf(lines ?? cellLines(cell, text))) {
    const { text: value, marks } = stripMarks(piece.text, ctx.notes);
    if (!value && !marks.length) continue;
    const labels = piece.path.map((l) => l.replace(/\s*\(.*\)\s*$/, '').trim() || l);
    const building = labels.length && BUILDING.test(labels[0]) ? labels[0] : null;
    const quals = [place.qualifier, ...(building ? labels.slice(1) : labels)].filter(Boolean) as string[];
    // a cell printed on several lines with other cells' text between them (a PDF) is cited by its first line
    const contiguous = piece.lines.every((l, i) => i === 0 || !/\S/.test(text.slice(piece.lines[i - 1].end, l.start)));
    const printed = contiguous ? text.slice(piece.labelStart, piece.end).replace(/\s+/g, ' ').trim() : [piece.label, piece.text].filter(Boolean).join(': ');
    const span: Span = contiguous || !piece.lines.length ? { start: piece.labelStart, end: piece.end } : { start: piece.labelStart, end: piece.lines[0].end };
    const figures = value ? figuresOf(value, m, labelParts.length ? labelParts : m.parts) : [{ amount: { kind: 'text', numeric: false } as Amount, spec: null, qualifier: null }];
    const noteTexts = (extra: (string | null)[]) => {
      const all = [...new Set([...place.marks, ...m.marks, ...marks])].map((k) => ctx.notes.get(k) ?? `note ${k}`);
      return [...all, ...extra.filter(Boolean)].map((t) => (t as string).replace(/[\s.;]+$/, '')).join('; ') || null;
    };
    const emit = (type: string, unit: string | null, lim: { min: number | null; max: number | null }, qualifier: string | null, note: string | null) => {
      for (const code of place.codes) {
        out.push({
          district_code: code,
          control_type: type,
          building_type: place.buildingType ?? building ?? ctx.buildingType,
          qualifier: [...quals, qualifier, m.kind.rest].filter(Boolean).join('; ') || null,
          ...lim,
          unit,
          value_text: printed || piece.text,
          conditions: noteTexts([note, m.note]),
          table_ref: ctx.ref,
          citation: ctx.citer.cite(span, { section: ctx.section?.ref ?? null, heading: ctx.section?.heading ?? null, table: ctx.ref, row: place.row, column: place.column }, ctx.section?.ref ?? null),
        });
      }
    };
    const bound = boundOfMeasure(m);
    if (figures === null) {
      // "2 ft / 15 ft" under a (min/max) measure
      const [a, b] = value.split(/\s*\/\s*/).map(readAmount);
      const unit = (a.kind === 'number' && a.unit) || unitOfMeasure(m);
      const ok = a.kind === 'number' && b.kind === 'number';
      emit(m.kind.type, unit, ok ? { min: (a as { value: number }).value, max: (b as { value: number }).value } : { min: null, max: null }, null, null);
      continue;
    }
    for (const f of figures) {
      const a = f.amount;
      const perUnit = (a.kind === 'number' && a.perUnit) || !!f.spec?.perUnit;
      const unit = (a.kind === 'number' && a.unit) || f.spec?.unit || unitOfMeasure(m);
      const note = a.kind === 'number' || a.kind === 'none' ? a.note : null;
      if (a.kind === 'text' && a.numeric && value && /\d/.test(value.replace(SECTION_REF, '')))
        ctx.issues.push({ severity: 'warning', code: 'value_unparsed', detail: `${ctx.ref}: ${place.row}${place.column ? ` / ${place.column}` : ''} "${value}" is kept as text`, locator: { table: ctx.ref, row: place.row, start: span.start, end: span.end } });
      emit(typeFor(m, unit, perUnit), a.kind === 'none' || !value ? null : unit, limits(bound, a), f.qualifier, note);
    }
  }
  return out;
}
