// Use tables into permissions: district × use → level, read through the code's own key. The
// districts are the header's (columns.ts); the label is the row's name without its number ("1.",
// "4a.", "*10.", "C."); a row with a name and no mark, or a name across the whole width, is the
// category of the rows under it; a row that prints the header again is the header. A mark is
// read whole ("P", "SP"), with its footnote ("P(3)", "S¹", "P*": the note's text in conditions),
// or as a compound of marks the key defines ("P/-", "P/S": kept whole, level from its first part).
// A mark the key says is not permitted is a prohibition. A blank cell follows the code's rule for
// blank cells when it states one (cited); otherwise it, and a dash the key does not define, is
// indeterminate: kept apart, never dropped silently. A trailing column ("Use Standard",
// "Reference") goes into conditions. Pure.
import type { OrdinanceHints } from '../manifest.ts';
import { normalizeLabel } from '../labels.ts';
import type { ParseIssue, PermissionLevel, PermissionRecord } from '../types.ts';
import { cellKind, markCore } from './cells.ts';
import { noteLines } from './dimension-notes.ts';
import type { DistrictColumn, Layout } from './columns.ts';
import { type LegendEntry, levelOf, type Marks, markKey, readKey, readKeyTable, readProseKey } from './legend.ts';
import type { Grid, GridCell, GridRow } from './model.ts';
import type { Citer, Span } from './text.ts';

export interface BlankRule extends Span {
  text: string;
  level: PermissionLevel;
  section: { ref: string; heading: string | null } | null;
}

export interface UseTableInput {
  grid: Grid;
  layout: Layout;
  name: string | null; // how the table is named in facts and issues: its ref, caption or section
  text: string;
  citer: Citer;
  section: { ref: string; heading: string | null } | null;
  context: string; // prose before the table in its section and its parent's (prose legends)
  near: Span[]; // the paragraphs just before and after the table, in its section
  keyTables: Grid[]; // tables just before or after it, in its section, that may print its key
  hints: OrdinanceHints;
  inherited: { marks: Marks; from: string | null } | null; // another use table's key
  blankRule: BlankRule | null;
  issues: ParseIssue[];
}

export interface UseTableRead {
  permissions: PermissionRecord[];
  indeterminate: PermissionRecord[];
  marks: Marks; // the key the table was read with, when the document printed it
}

const distinct = (cells: GridCell[]) => cells.filter((c, i) => cells.indexOf(c) === i);

/** The key a table prints (a key cell, a note on its pages) or the paragraphs around it in its section state. */
export function ownKey(grid: Grid, text: string, context: string, near: Span[] = [...grid.before, ...grid.after], keyTables: Grid[] = []): Marks {
  const marks: Marks = new Map();
  const add = (found: Marks | null) => {
    for (const [k, v] of found ?? []) if (!marks.has(k)) marks.set(k, v);
  };
  for (const r of grid.rows) for (const c of distinct(r.cells)) if (c.text.length >= 5) add(readKey(c.text));
  for (const n of grid.notes) add(readKey(text.slice(n.start, n.end)));
  for (const k of keyTables) add(readKeyTable(k));
  for (const p of near) {
    const t = text.slice(p.start, p.end);
    if (t.length <= 600) add(readKey(t));
    add(readProseKey(t));
  }
  add(readProseKey(context));
  return marks;
}

/** Whether a table's value cells read as marks: the shape of a use table. */
export function marksShare(grid: Grid, layout: Layout): { marks: number; filled: number } {
  let marks = 0;
  let filled = 0;
  for (const r of grid.rows.slice(layout.headerEnd + 1)) {
    for (const c of distinct(layout.columns.map((col) => r.cells[col.index]))) {
      const covers = layout.columns.filter((col) => r.cells[col.index] === c).length;
      if (!c?.text || (covers > 1 && covers === layout.columns.length)) continue;
      filled++;
      if (isMarkCell(c.text)) marks++;
    }
  }
  return { marks, filled };
}

const NUMBER = /^(\*?(?:\d{1,3}[A-Za-z]?|[A-Z]|[ivx]{1,4})[.,)]|\(\d{1,3}[a-z]?\))\s+(?=\S)/;

const ROW_NUMBER = /^(?:\*?(?:\d{1,3}[A-Za-z]?|[A-Z]|[ivx]{1,4})[.,)]?|\(\d{1,3}[a-z]?\))$/;

/** A row's name from its label cells: a number in a cell of its own apart, a section reference in another label column kept as a condition. */
export function nameOf(cells: GridCell[], headOf: (col: number) => string): { label: string; number: string | null; refs: string[] } {
  let number: string | null = null;
  const parts: string[] = [];
  const refs: string[] = [];
  cells.forEach((c, i) => {
    if (i === 0 && cells.length > 1 && ROW_NUMBER.test(c.text)) number = c.text;
    else if (i > 0 && parts.length > 0 && (cellKind(c.text) === 'ref' || cellKind(c.text) === 'number')) refs.push(`${headOf(c.col)}: ${c.text}`);
    else parts.push(c.text);
  });
  const split = splitLabel(parts.join(' '));
  return { label: split.label, number: number ?? split.number, refs };
}

/**
 * The leftmost of several label columns when it groups the rows (its header says category, group
 * or class, or it is printed only on the first row of each run while the next column names every
 * row that prints marks), or null. A column of row numbers is no grouping.
 */
function groupingColumn(body: GridRow[], layout: Layout, headOf: (col: number) => string): number | null {
  if (layout.labelCols.length < 2) return null;
  const [col, next] = layout.labelCols;
  const own = body.filter((r) => r.cells[col] !== r.cells[next] && layout.columns.some((c) => r.cells[c.index]?.text.trim()));
  const printed = own.filter((r) => r.cells[col].text.trim());
  if (printed.length === 0 || printed.some((r) => ROW_NUMBER.test(r.cells[col].text.trim()))) return null;
  if (!own.every((r) => r.cells[next].text.trim() || !r.cells[col].text.trim())) return null;
  const named = /\b(?:categor(?:y|ies)|groups?|class(?:es)?|classifications?)\b/i.test(headOf(col));
  return named || printed.length < own.length ? col : null;
}

/** A row's name and its number: "1. Detached House" → "Detached House", "1.". */
export function splitLabel(raw: string): { label: string; number: string | null } {
  const s = raw.replace(/\s+/g, ' ').trim();
  const m = NUMBER.exec(s);
  if (!m || s.length === m[0].length) return { label: s, number: null };
  return { label: s.slice(m[0].length).trim(), number: m[1] };
}

interface ReadMark {
  kind: 'mark' | 'blank' | 'dash' | 'unknown';
  level: PermissionLevel;
  entry: LegendEntry | null;
  parts: Array<{ mark: string; level: PermissionLevel; meaning: string | null }> | null;
  note: string | null; // the footnote key it points to
}

const SELF = /^(?:yes|no|permitted|not permitted|prohibited|allowed|not allowed|by right|conditional(?: use)?|special (?:use|permit|exception))$/i;

/** Whether a cell reads as a mark: a short capital mark or dash, or a word that says its meaning. */
export const isMarkCell = (text: string) => cellKind(text) === 'mark' || SELF.test(markCore(text.trim()).replace(/\.$/, ''));

const SUPER: Record<string, string> = { '¹': '1', '²': '2', '³': '3', '⁴': '4', '⁵': '5', '⁶': '6', '⁷': '7', '⁸': '8', '⁹': '9', '⁰': '0' };

function noteKey(decoration: string): string | null {
  const d = decoration.trim();
  if (!d) return null;
  const inner = /^[[(]\s*([A-Za-z0-9]{1,3})\s*[\])]$/.exec(d);
  if (inner) return inner[1];
  if (/^\*+$/.test(d)) return d;
  const sup = [...d].map((c) => SUPER[c] ?? '').join('');
  return sup || d;
}

/** A cell's mark through the key. */
export function readMark(raw: string, marks: Marks): ReadMark {
  const t = raw.replace(/\u00a0/g, ' ').replace(/\s+/g, ' ').trim();
  const none: ReadMark = { kind: 'unknown', level: 'unknown', entry: null, parts: null, note: null };
  if (t === '') return { ...none, kind: 'blank' };
  const whole = marks.get(markKey(t));
  if (whole) return { ...none, kind: 'mark', level: whole.level, entry: whole };
  const core = markCore(t);
  const note = noteKey(t.slice(core.length));
  const direct = marks.get(markKey(core));
  if (direct) return { kind: 'mark', level: direct.level, entry: direct, parts: null, note };
  const pieces = core.split(/\s*\/\s*/);
  if (pieces.length > 1 && pieces.every((p) => marks.has(markKey(p)))) {
    const parts = pieces.map((p) => {
      const e = marks.get(markKey(p)) as LegendEntry;
      return { mark: p, level: e.level, meaning: e.meaning };
    });
    return { kind: 'mark', level: parts[0].level, entry: null, parts, note };
  }
  if (/^[-\u2010-\u2015\u2212]+$/.test(core)) return { ...none, kind: 'dash', note };
  // a cell that says its meaning in words ("Yes", "Not permitted") needs no key
  if (SELF.test(core.replace(/\.$/, ''))) {
    const entry: LegendEntry = { meaning: core, level: levelOf(core), source: 'table' };
    return { kind: 'mark', level: entry.level, entry, parts: null, note };
  }
  return { ...none, note };
}

/** Footnotes of a table: rows, page notes and the paragraphs after it that start with a note's key. */
function footnotesOf(grid: Grid, text: string, labelCols: number[]): Map<string, string> {
  const notes = new Map<string, string>();
  const LINE = /^\s*(?:\(\s*(\d{1,2}|[a-z])\s*\)|\[\s*(\d{1,2}|[A-Z])\s*\]|(\d{1,2})[.:]|(\*{1,3})|([¹²³⁴⁵⁶⁷⁸⁹]+)|note\s+(\d{1,2})[.:]?)\s+(\S.*)$/i;
  const take = (line: string) => {
    // a key's entry for a footnote mark ("…; * = on upper floors only")
    for (const k of line.matchAll(/(?:^|[;,]\s*)(\*{1,3})\s*(?:=|:|[\u2013\u2014])\s*([^;]+)/g)) if (!notes.has(k[1])) notes.set(k[1], `${k[1]} ${k[2].trim()}`);
    const m = LINE.exec(line);
    if (!m) return;
    const key = m[1] ?? m[2] ?? m[3] ?? m[4] ?? (m[5] ? noteKey(m[5]) : null) ?? m[6];
    if (key && !notes.has(key)) notes.set(key, line.trim());
  };
  for (const r of grid.rows) {
    const cells = distinct(r.cells).filter((c) => c.text);
    if (cells.length === 1 && labelCols.includes(cells[0].col)) for (const line of noteLines(cells[0].text)) take(line);
  }
  for (const s of [...grid.notes, ...grid.after]) for (const line of noteLines(text.slice(s.start, s.end))) take(line);
  return notes;
}

/** A cell spanning k rows that prints k marks, one a row ("SP SP" over two rows of a PDF): this row's mark. */
function splitsOver(cell: GridCell | undefined, row: GridRow, grid: Grid, marks: Marks): string | null {
  if (!cell || cell.rowspan < 2) return null;
  const parts = cell.text.split(/\s+/);
  const at = grid.rows.indexOf(row) - cell.row;
  if (parts.length !== cell.rowspan || at < 0 || at >= parts.length) return null;
  return parts.every((p) => readMark(p, marks).kind === 'mark') ? parts[at] : null;
}

const repeatsHeader = (row: GridRow, columns: DistrictColumn[]) => {
  const hits = columns.filter((c) => {
    const t = row.cells[c.index]?.text ?? '';
    return t !== '' && (t === c.printed || c.printed.endsWith(` ${t}`) || c.codes.includes(t));
  });
  return hits.length >= Math.max(Math.min(2, columns.length), Math.ceil(columns.length / 2));
};

/** The permissions a use table states. */
export function readUseTable(input: UseTableInput): UseTableRead {
  const { grid, layout, text, citer, section, issues, name: ref } = input;
  const own = ownKey(grid, text, input.context, input.near, input.keyTables);
  const marks: Marks = new Map(own);
  for (const [k, v] of Object.entries(input.hints.legend ?? {})) {
    const key = markKey(k);
    if (!marks.has(key)) marks.set(key, { meaning: v.process ?? v.level.replace(/_/g, ' '), level: v.level, source: 'hint' });
  }
  const locator = { section: section?.ref ?? null, table: ref, start: grid.start, end: grid.end };
  if (marks.size === 0 && input.inherited) {
    for (const [k, v] of input.inherited.marks) marks.set(k, v);
    issues.push({ severity: 'warning', code: 'legend_inherited', detail: `${ref ?? 'a use table'}: prints no legend; read with the legend of ${input.inherited.from ?? "the code's other use tables"}`, locator });
  }
  if (layout.unknown.length) issues.push({ severity: 'warning', code: 'district_code_unknown', detail: `${ref ?? 'a use table'}: header codes ${layout.unknown.join(', ')} name no district the code or its map holds; their columns are not read`, locator });

  const notes = footnotesOf(grid, text, layout.labelCols);
  let body = grid.rows.slice(layout.headerEnd + 1);
  // with no header found, a first row whose value is no mark of the key is the header ("Use Category | PSR")
  if (layout.headerEnd < 0 && body.length && marks.size > 0) {
    const first = body[0].cells[layout.columns[0].index]?.text ?? '';
    if (first && readMark(first, marks).kind === 'unknown') {
      layout.columns[0].printed = first;
      body = body.slice(1);
    }
  }
  const firstCol = layout.columns[0].index;
  type Row = { row: GridRow; label: string; raw: string; number: string | null; category: string | null; refs: string[] };
  const headOf = (col: number) => {
    const texts = grid.rows.slice(0, layout.headerEnd + 1).map((r) => r.cells[col]?.text ?? '').filter(Boolean);
    return texts[texts.length - 1] ?? `column ${col + 1}`;
  };
  const uses: Row[] = [];
  let category: string | null = null;
  let previous: GridRow | null = null;
  const groupCol = groupingColumn(body, layout, headOf);
  const useOf = new Map<GridRow, Row>(); // a use row, and the rows that go on with its name
  for (const row of body) {
    const prior = previous;
    previous = row;
    if (row.ambiguous) continue;
    let labelCells = distinct(layout.labelCols.map((i) => row.cells[i]));
    // a grouping column ("Use Category | Specific Use"): its text is the category of the rows it heads
    if (groupCol !== null && row.cells[groupCol] !== row.cells[groupCol + 1]) {
      const group = row.cells[groupCol].text.trim();
      if (group) category = group;
      labelCells = labelCells.filter((c) => c !== row.cells[groupCol]);
    }
    const spansValues = labelCells.some((c) => c.col + c.colspan > firstCol);
    const raw = labelCells.map((c) => c.text).filter(Boolean).join(' ');
    const named = nameOf(labelCells.filter((c) => c.text), headOf);
    const values = distinct(layout.columns.map((c) => row.cells[c.index]));
    if (distinct(row.cells).some((c) => c.text.length >= 5 && readKey(c.text))) continue; // a legend row
    if (spansValues) {
      if (raw) category = raw;
      continue;
    }
    if (repeatsHeader(row, layout.columns)) continue;
    const filled = values.filter((c) => c.text !== '');
    if (row.header && !filled.some((c) => readMark(c.text, marks).kind === 'mark')) continue; // the header printed again
    if (filled.length === 0) {
      const open = prior ? useOf.get(prior) : undefined;
      // a name's next line printed as a row of its own ("community" under "Continuing care retirement")
      if (raw && /^[a-z(]/.test(raw) && open) {
        open.label = `${open.label} ${raw}`;
        useOf.set(row, open);
      } else if (raw && !/^(\d{1,2}|\*{1,3})\s/.test(raw)) category = raw;
      continue;
    }
    if (values.length === 1 && layout.columns.length > 1) continue; // one cell across the districts: a note or a group
    const { label, number, refs } = named;
    const words = (c: GridCell) => cellKind(c.text) === 'text' && readMark(c.text, marks).kind === 'unknown' && !splitsOver(c, row, grid, marks);
    if (filled.filter(words).length * 2 > filled.length) {
      issues.push({ severity: 'warning', code: 'row_unread', detail: `${ref}: the row "${raw}" prints words where its marks should be; not read`, locator: { ...locator, start: row.start, end: row.end } });
      continue;
    }
    if (!label) {
      issues.push({ severity: 'warning', code: 'label_missing', detail: `${ref}: a row prints marks and no use name; not read`, locator: { ...locator, start: row.start, end: row.end } });
      continue;
    }
    const use = { row, label, raw, number, category, refs };
    uses.push(use);
    useOf.set(row, use);
  }

  const labelCount = new Map<string, number>();
  for (const u of uses) labelCount.set(normalizeLabel(u.label), (labelCount.get(normalizeLabel(u.label)) ?? 0) + 1);
  const permissions: PermissionRecord[] = [];
  const indeterminate: PermissionRecord[] = [];
  let blanks = 0;
  for (const u of uses) {
    const normalized = normalizeLabel(u.label);
    const keyLabel = (labelCount.get(normalized) ?? 0) > 1 && u.category ? normalizeLabel(`${u.label} ${u.category}`) : normalized;
    const standards = layout.trailing
      .map((t) => ({ t, cell: u.row.cells[t.index] }))
      .filter(({ cell }) => cell?.text && !readKey(cell.text))
      .map(({ t, cell }) => `${t.name}: ${cell.text}`);
    standards.unshift(...u.refs);
    for (const col of layout.columns) {
      const cell = u.row.cells[col.index];
      const printed = (splitsOver(cell, u.row, grid, marks) ?? cell?.text ?? '').replace(/\s+/g, ' ').trim();
      const read = readMark(printed, marks);
      const tableRef = col.variant && col.variant > 1 ? `${ref}, column ${col.variant}` : ref;
      const variant = col.variant && col.variant > 1 ? `column ${col.variant} of ${ref}` : null;
      const locatorOf = { section: section?.ref ?? null, heading: section?.heading ?? null, table: ref, row: u.raw, column: col.printed };
      const cite = citer.cite({ start: u.row.start, end: u.row.end }, locatorOf, section?.ref ?? null);
      const base = { use_label_raw: u.label, use_label_normalized: keyLabel, table_ref: tableRef, row_number: u.number, category: u.category };
      if (read.kind === 'blank' && input.blankRule) {
        const rule = input.blankRule;
        for (const code of col.codes)
          permissions.push({
            ...base,
            district_code: code,
            symbol: '',
            level: rule.level,
            process: null,
            conditions: [variant, 'blank cell, read by the rule the citation quotes', ...standards].filter(Boolean).join('; '),
            citation: citer.cite(rule, { ...locatorOf, section: rule.section?.ref ?? null, heading: rule.section?.heading ?? null }, rule.section?.ref ?? null),
          });
        continue;
      }
      if (read.kind === 'blank' || read.kind === 'dash') {
        blanks += col.codes.length;
        const why = read.kind === 'blank' ? 'blank cell; the code states no rule for blank cells' : `"${printed}" is not in the legend`;
        for (const code of col.codes) indeterminate.push({ ...base, district_code: code, symbol: printed, level: 'indeterminate', process: null, conditions: [variant, why, ...standards].filter(Boolean).join('; '), citation: cite });
        continue;
      }
      if (read.kind === 'unknown' && marks.size > 0)
        issues.push({ severity: 'warning', code: 'symbol_unknown', detail: `${ref}: "${printed}" for ${u.label} in ${col.printed} is not in the legend; kept with level unknown`, locator: { ...locatorOf, start: cell.start, end: cell.end } });
      const note = read.note ? `note ${read.note}${notes.has(read.note) ? `: ${notes.get(read.note)}` : ''}` : null;
      const compound = read.parts ? `${read.parts.map((x) => x.mark).join('/')}: ${read.parts.map((p) => `${p.mark} = ${p.meaning ?? p.level}`).join(' or ')}; level from its first part` : null;
      const level = read.level;
      const meaning = read.entry?.meaning ?? read.parts?.[0].meaning ?? null;
      for (const code of col.codes)
        permissions.push({
          ...base,
          district_code: code,
          symbol: printed,
          level,
          process: level === 'conditional_use' || level === 'administrative_approval' ? meaning : null,
          conditions: [variant, compound, note, ...standards].filter(Boolean).join('; ') || null,
          ...(read.parts ? { parts: read.parts } : {}),
          citation: cite,
        });
    }
  }
  if (marks.size === 0 && permissions.some((x) => x.level === 'unknown'))
    issues.push({ severity: 'warning', code: 'legend_missing', detail: `${ref ?? 'a use table'}: no legend found; its marks are kept with level unknown`, locator });
  if (blanks > 0)
    issues.push({ severity: 'warning', code: 'cells_indeterminate', detail: `${ref}: ${blanks} district cells are blank or print a dash the legend does not define, and the code states no rule for them; kept as indeterminate`, locator });
  return { permissions, indeterminate, marks: own };
}
