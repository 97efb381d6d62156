// Use tables into permissions: district × use → level, read through the code's own legend
// ("P - Permitted • SP - Special Permit Required • N - Not Permitted"). A mark the legend does not
// explain is kept with level `unknown` and reported; a dash or an empty cell states nothing.
import { normalizeCode } from '../district-list.ts';
import { normalizeLabel } from '../labels.ts';
import type { ParseIssue, PermissionLevel, PermissionRecord, UnlistedUseRecord } from '../types.ts';
import type { Row, Table } from './tables.ts';
import type { Citer } from './text.ts';
import { readValue } from './values.ts';
import type { OrdinanceHints } from '../manifest.ts';
import type { Grid } from './model.ts';

export interface Legend {
  marks: Map<string, { meaning: string; level: PermissionLevel }>;
  row: Row | null; // the legend row, when the table carries it
}

const SPLIT = /\s*[•;]\s*|\.\s+(?=[A-Z][A-Za-z/]{0,4}\s*[=:\-\u2013\u2014]\s)/;
const ENTRY = /^\s*([A-Z][A-Za-z/]{0,4})\s*[=:\-\u2013\u2014]\s*(\S.*?)\.?\s*$/;

export function levelOf(meaning: string): PermissionLevel {
  const m = meaning.toLowerCase();
  if (/\bnot (permitted|allowed)\b|\bprohibited\b/.test(m)) return 'prohibited';
  if (/special permit|conditional|board of appeals/.test(m)) return 'conditional_use';
  if (/site plan|administrative|staff review/.test(m)) return 'administrative_approval';
  if (/with (standards|conditions)|subject to (standards|conditions)/.test(m)) return 'permitted_with_standards';
  if (/\bpermitted\b|by right|\ballowed\b/.test(m)) return 'by_right';
  return 'unknown';
}

/** The legend a line states, or null when it states fewer than two marks. */
export function readLegend(line: string): Map<string, { meaning: string; level: PermissionLevel }> | null {
  const body = line.replace(/^\s*(legend|key)\s*:\s*/i, '');
  const marks = new Map<string, { meaning: string; level: PermissionLevel }>();
  for (const piece of body.split(SPLIT)) {
    const m = ENTRY.exec(piece);
    if (m) marks.set(m[1], { meaning: m[2], level: levelOf(m[2]) });
  }
  return marks.size >= 2 && [...marks.values()].some((v) => v.level !== 'unknown') ? marks : null;
}

const MARK = /^([A-Z]{1,4})(?:\s*\(?(\d{1,2}|\*{1,3})\)?)?$/;

/** Which district each column speaks for: its code, or the enclosing district for numbered columns. */
function columnDistricts(header: Row, known: Set<string>, around: string | null): Map<number, { code: string; column: string; variant: number | null }> | null {
  const cols = new Map<number, { code: string; column: string; variant: number | null }>();
  header.cells.forEach((c, i) => {
    if (i === 0 || c.text === '') return;
    const code = normalizeCode(c.text);
    if (known.has(code)) cols.set(i, { code, column: c.text, variant: null });
    else if (around && /^\d$/.test(c.text)) cols.set(i, { code: around, column: c.text, variant: Number(c.text) });
  });
  const coded = [...cols.values()].filter((v) => v.variant === null).length;
  return coded >= 1 || cols.size >= 1 ? cols : null;
}

export interface UseTableInput {
  table: Table;
  grid: Grid; // the same table as the document model holds it (spans resolved)
  hints: OrdinanceHints;
  text: string;
  citer: Citer;
  section: { ref: string; heading: string | null } | null;
  known: Set<string>; // district codes the code establishes
  around: string | null; // the district whose section holds the table
  legendNearby: string[]; // paragraphs after the table, where a legend may stand
  inherited: Legend['marks'] | null; // the legend an earlier use table of the same code printed
  issues: ParseIssue[];
}

export function readUseTable(input: UseTableInput): { permissions: PermissionRecord[]; legend: Legend['marks'] } | null {
  const { table, text, citer, section, known, around, issues } = input;
  const headerAt = table.rows.slice(0, 3).findIndex((r) => columnDistricts(r, known, around) !== null);
  if (headerAt < 0) return null;
  const header = table.rows[headerAt];
  const cols = columnDistricts(header, known, around) as NonNullable<ReturnType<typeof columnDistricts>>;
  const body = table.rows.slice(headerAt + 1);
  // a use table's cells are short marks; a dimensional table with district columns is not one
  const cells = body.flatMap((r) => [...cols.keys()].map((i) => r.cells[i]?.text ?? '')).filter((t) => t !== '');
  const marks = cells.filter((t) => MARK.test(t) || readValue(t).kind === 'dash');
  if (cells.length === 0 || marks.length / cells.length < 0.8) return null;

  let legend: Legend = { marks: new Map(), row: null };
  for (const r of body) {
    const found = r.cells[0] ? readLegend(r.cells[0].text) : null;
    if (found) legend = { marks: found, row: r };
  }
  if (!legend.row) {
    for (const p of input.legendNearby) {
      const found = readLegend(p);
      if (found) {
        legend = { marks: found, row: null };
        break;
      }
    }
  }
  // a table is a use table when its title says so, or when it prints a legend of its own
  const titled = /\buses?\b/i.test(table.title?.text ?? '');
  if (!titled && legend.marks.size === 0) return null;
  const ref = table.ref ?? (section ? `§ ${section.ref}` : null);
  if (legend.marks.size === 0 && input.inherited) {
    legend = { marks: input.inherited, row: null };
    issues.push({ severity: 'warning', code: 'legend_inherited', detail: `${ref}: prints no legend; read with the legend of the code's earlier use tables`, locator: { table: ref, start: table.start, end: table.end } });
  }
  if (legend.marks.size === 0) issues.push({ severity: 'warning', code: 'legend_missing', detail: `${ref ?? 'a use table'}: no legend found; its marks are kept with level unknown`, locator: { table: ref, start: table.start, end: table.end } });

  const footnotes = new Map<string, string>();
  for (const r of body) {
    const m = /^(\d{1,2}|\*{1,3})\s+(\S.*)$/.exec(r.cells[0]?.text ?? '');
    if (m && r.cells.slice(1).every((c) => c.text === '')) footnotes.set(m[1], m[2]);
  }
  const labelCount = new Map<string, number>();
  for (const r of body) {
    const label = normalizeLabel(r.cells[0]?.text ?? '');
    labelCount.set(label, (labelCount.get(label) ?? 0) + 1);
  }

  const out: PermissionRecord[] = [];
  let category: string | null = null;
  for (const row of body) {
    if (row === legend.row || row.ambiguous) continue;
    const label = row.cells[0]?.text ?? '';
    const values = [...cols.keys()].map((i) => row.cells[i]?.text ?? '');
    if (label === '' || /^(\d{1,2}|\*{1,3})\s/.test(label)) continue;
    if (values.every((v) => v === '')) {
      category = label;
      continue;
    }
    const normalized = normalizeLabel(label);
    const keyLabel = (labelCount.get(normalized) ?? 0) > 1 && category ? normalizeLabel(`${label} ${category}`) : normalized;
    for (const [i, col] of cols) {
      const cell = row.cells[i];
      if (!cell || cell.text === '' || readValue(cell.text).kind === 'dash') continue;
      const m = MARK.exec(cell.text);
      const symbol = m ? m[1] : cell.text;
      const meaning = legend.marks.get(symbol);
      if (!meaning) issues.push({ severity: 'warning', code: 'symbol_unknown', detail: `${ref}: "${cell.text}" for ${label} in ${col.column} is not in the legend; kept with level unknown`, locator: { table: ref, row: label, column: col.column, start: cell.start, end: cell.end } });
      const note = m?.[2] ? `note ${m[2]}${footnotes.has(m[2]) ? `: ${footnotes.get(m[2])}` : ''}` : null;
      const variant = col.variant && col.variant > 1 ? `column ${col.variant} of ${ref}` : null;
      const level = meaning?.level ?? 'unknown';
      out.push({
        district_code: col.code,
        use_label_raw: label,
        use_label_normalized: keyLabel,
        symbol,
        level,
        process: level === 'conditional_use' || level === 'administrative_approval' ? (meaning?.meaning ?? null) : null,
        conditions: [variant, note].filter(Boolean).join('; ') || null,
        table_ref: col.variant && col.variant > 1 ? `${ref}, column ${col.variant}` : ref,
        citation: citer.cite({ start: row.start, end: row.end }, { section: section?.ref ?? null, heading: section?.heading ?? null, table: ref, row: label, column: col.column }, section?.ref ?? null),
      });
    }
  }
  return { permissions: out, legend: legend.marks };
}

const UNLISTED = /\b(?:a |any )?uses?(?: categories)?(?: that are)? not (?:listed|identified|named|shown)(?: (?:in|on) (Table [\dA-Za-z.]+?))?\.?,? (?:is|are|shall be) (not permitted|prohibited|permitted by special permit|permitted)\b[^.]*\./gi;

/** The code's rule for uses its tables never name; the one tied to the widest use table wins. */
export function readUnlistedRule(text: string, citer: Citer, sectionOf: (offset: number) => { ref: string; heading: string | null } | null, preferTable: string | null): UnlistedUseRecord | null {
  let best: { rec: UnlistedUseRecord; score: number } | null = null;
  for (const m of text.matchAll(UNLISTED)) {
    const start = (m.index ?? 0) + (m[0].length - m[0].trimStart().length);
    const result = /permitted by special permit/i.test(m[2]) ? 'conditional' : /not permitted|prohibited/i.test(m[2]) ? 'prohibited' : 'permitted';
    const sec = sectionOf(start);
    const score = (preferTable && m[1] && m[1].replace(/\.$/, '') === preferTable ? 2 : 0) + (/district/i.test(m[0]) || !m[1] ? 1 : 0);
    const rec: UnlistedUseRecord = {
      result,
      process: result === 'conditional' ? 'special permit' : null,
      citation: citer.cite({ start, end: (m.index ?? 0) + m[0].length }, { section: sec?.ref ?? null, heading: sec?.heading ?? null }, sec?.ref ?? null),
    };
    if (!best || score > best.score) best = { rec, score };
  }
  return best?.rec ?? null;
}
