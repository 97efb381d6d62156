// The measuring stick for the ordinance reader: hand-checked gold samples
// (test/fixtures/ordinance-gold/*.json), their validation, and the scoring of a parse against them.
// Pure: no I/O but loadGold's read of one file.
import { readFileSync } from 'node:fs';
import type { ControlRecord, PermissionRecord } from '../ingest/types.ts';

export const LEVELS = ['by_right', 'permitted_with_standards', 'administrative_approval', 'conditional_use', 'prohibited', 'unknown', 'indeterminate'] as const;
export type GoldLevel = (typeof LEVELS)[number];
export const UNITS = ['ft', 'sq_ft', 'percent', 'stories', 'units', 'acres', 'in', 'ratio', 'units_per_acre'];
export const GOAL = { precision: 0.98, recall: 0.95 };
export const MIN_USE_CELLS = 40;
export const MIN_CONTROLS = 20;

export interface GoldCell {
  column: string; // the column's header as printed
  district: string; // the district it speaks for (a merged column speaks for several)
  mark: string; // as printed; '' for a blank cell
  level: GoldLevel;
  process: string | null;
  accept?: GoldLevel[]; // other levels the document leaves open (compound marks)
  parts?: Array<{ mark: string; level: GoldLevel }>;
}
export interface GoldRow {
  label: string; // the row's name as printed, lines joined
  label_alternates?: string[];
  number: string | null;
  category: string | null;
  page: number | null;
  cells: GoldCell[];
  notes?: string;
}
export interface GoldUseTable {
  table: string;
  columns: Array<{ column: string; districts: string[] }>;
  size: { use_rows: number; columns: number; cells: number };
  rows: GoldRow[];
  non_use_rows: string[];
}
export interface GoldControl {
  table: string;
  page: number | null;
  row: string;
  column: string;
  district: string;
  control_type: string;
  building_type: string | null;
  qualifier: string | null;
  min: number | null;
  max: number | null;
  unit: string | null;
  value: string; // as printed
  notes?: string;
}
export interface GoldLegendEntry {
  mark: string;
  meaning: string;
  level: GoldLevel;
}
export interface GoldDoc {
  document: string; // path under the shared directory
  media_type: string;
  districts: Array<{ code: string; kind: 'base' | 'overlay' }>;
  map: { files: string[]; field: string; prefixes: string[] } | null;
  legend: GoldLegendEntry[];
  blank_rule: { level: GoldLevel } | null;
  judge_tables?: string[];
  use_tables: GoldUseTable[];
  controls: GoldControl[];
  proposed_control_types: Array<{ control_type: string }>;
  proposed_units: Array<{ unit: string }>;
}

/** A district code for comparison: `RS1` = `RS-1` = `RS 1`, `BO-1.0` = `BO 1`, `S & O` = `S&O`. */
export function foldCode(code: string): string {
  return code
    .normalize('NFKC')
    .toUpperCase()
    .replace(/[\s\u2010-\u2015-]+/g, '')
    .replace(/(\d)\.0+(?!\d)/g, '$1');
}

/** Letters and digits only, lower case, accents dropped: case, space and punctuation folded. */
export function foldText(s: string | null | undefined): string {
  return (s ?? '')
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]/g, '');
}

/** A mark as printed, spaces dropped and every dash one hyphen. */
export function foldMark(s: string): string {
  return s
    .normalize('NFKC')
    .replace(/[\u2010-\u2015\u2212]/g, '-')
    .replace(/\s+/g, '')
    .toUpperCase();
}

const isLevel = (v: unknown): v is GoldLevel => typeof v === 'string' && (LEVELS as readonly string[]).includes(v);
const isNum = (v: unknown) => v === null || (typeof v === 'number' && Number.isFinite(v));
const isStr = (v: unknown): v is string => typeof v === 'string';

/** Every problem of a gold document, each naming where it is; empty when it is well-formed. */
export function validateGold(raw: unknown): string[] {
  const p: string[] = [];
  const g = raw as GoldDoc;
  if (!g || typeof g !== 'object') return ['not a JSON object'];
  for (const f of ['document', 'media_type'] as const) if (!isStr(g[f]) || !g[f]) p.push(`${f}: a non-empty string is required`);
  if (!Array.isArray(g.districts) || g.districts.length === 0) return [...p, 'districts: a non-empty list is required'];
  const codes = new Set<string>();
  g.districts.forEach((d, i) => {
    if (!isStr(d?.code) || !d.code) p.push(`districts[${i}].code: required`);
    else if (codes.has(foldCode(d.code))) p.push(`districts[${i}].code: ${d.code} is listed twice`);
    else codes.add(foldCode(d.code));
    if (d?.kind !== 'base' && d?.kind !== 'overlay') p.push(`districts[${i}].kind: base or overlay`);
  });
  if (!Array.isArray(g.legend)) return [...p, 'legend: a list is required'];
  const legend = new Map<string, GoldLevel>();
  g.legend.forEach((e, i) => {
    if (!isStr(e?.mark)) p.push(`legend[${i}].mark: a string is required`);
    if (!isLevel(e?.level)) p.push(`legend[${i}].level: one of ${LEVELS.join(', ')}`);
    else legend.set(foldMark(e.mark), e.level);
  });
  if (g.blank_rule !== null && !isLevel(g.blank_rule?.level)) p.push('blank_rule.level: a level, or blank_rule null');
  if (!Array.isArray(g.use_tables) || !Array.isArray(g.controls)) return [...p, 'use_tables and controls: lists are required'];
  let cells = 0;
  g.use_tables.forEach((t, ti) => {
    const at = `use_tables[${ti}]`;
    if (!Array.isArray(t?.columns) || t.columns.length === 0 || !Array.isArray(t.rows) || !Array.isArray(t.non_use_rows)) {
      p.push(`${at}: columns, rows and non_use_rows lists are required`);
      return;
    }
    const expected = t.columns.flatMap((c) => (c.districts ?? []).map((d) => `${c.column} → ${d}`));
    for (const c of t.columns) for (const d of c.districts ?? []) if (!codes.has(foldCode(d))) p.push(`${at}.columns: ${d} is not in districts`);
    if (!t.size || !(t.size.cells > 0) || !(t.size.use_rows > 0)) p.push(`${at}.size: use_rows and cells are required`);
    t.rows.forEach((r, ri) => {
      const rat = `${at}.rows[${ri}] (${r?.label})`;
      if (!isStr(r?.label) || !r.label.trim()) p.push(`${rat}.label: required`);
      if (!Array.isArray(r?.cells)) {
        p.push(`${rat}.cells: required`);
        return;
      }
      const got = r.cells.map((c) => `${c.column} → ${c.district}`);
      if (got.join('|') !== expected.join('|')) p.push(`${rat}: not a whole row: the cells must be, in order, ${expected.join(', ')}`);
      r.cells.forEach((c, ci) => {
        const cat = `${rat}.cells[${ci}] (${c?.district})`;
        if (!isStr(c?.mark) || !isLevel(c.level)) {
          p.push(`${cat}: mark (a string, '' for a blank cell) and level (one of ${LEVELS.join(', ')}) are required`);
          return;
        }
        if (c.accept && (!Array.isArray(c.accept) || !c.accept.every(isLevel))) p.push(`${cat}.accept: a list of levels`);
        const m = foldMark(c.mark);
        const meant = m === '' && g.blank_rule ? g.blank_rule.level : legend.get(m);
        if (meant !== undefined && meant !== c.level) p.push(`${cat}.level: ${c.level}, but the legend makes '${c.mark}' ${meant}`);
        if (meant === undefined && m === '') p.push(`${cat}: a blank cell, but neither the legend nor blank_rule says what a blank means`);
        if (meant === undefined && m !== '') {
          const parts = m.split('/');
          if (parts.length < 2 || !parts.every((x) => legend.has(x))) p.push(`${cat}.mark: '${c.mark}' is not in the legend`);
          else if (!Array.isArray(c.parts) || c.parts.length !== parts.length) p.push(`${cat}.parts: a compound mark lists its parts`);
        }
        cells++;
      });
    });
  });
  if (cells < MIN_USE_CELLS) p.push(`use_tables: ${cells} use cells, at least ${MIN_USE_CELLS} are required`);
  const proposedTypes = new Set((g.proposed_control_types ?? []).map((x) => x.control_type));
  const units = new Set([...UNITS, ...(g.proposed_units ?? []).map((x) => x.unit)]);
  const seen = new Set<string>();
  g.controls.forEach((c, i) => {
    const at = `controls[${i}] (${c?.district} ${c?.control_type})`;
    if (!isStr(c?.district) || !codes.has(foldCode(c.district))) p.push(`${at}.district: not in districts`);
    if (!isStr(c?.control_type) || !/^dimensional\.[a-z0-9_]+$/.test(c.control_type)) p.push(`${at}.control_type: dimensional.<name> is required`);
    for (const f of ['table', 'row', 'column', 'value'] as const) if (!isStr(c?.[f]) || !c[f]) p.push(`${at}.${f}: a non-empty string is required`);
    if (!isNum(c?.min) || !isNum(c?.max)) p.push(`${at}: min and max are numbers or null`);
    else if (c.min !== null && c.max !== null && c.min > c.max) p.push(`${at}: min ${c.min} is above max ${c.max}`);
    if (c?.unit !== null && !units.has(c?.unit as string)) p.push(`${at}.unit: ${c?.unit} is neither a known unit nor proposed`);
    if ((c?.building_type ?? null) !== null && !isStr(c.building_type)) p.push(`${at}.building_type: a string or null`);
    if ((c?.qualifier ?? null) !== null && !isStr(c.qualifier)) p.push(`${at}.qualifier: a string or null`);
    const key = [foldCode(c?.district ?? ''), c?.control_type, foldText(c?.building_type), foldText(c?.qualifier)].join('|');
    if (seen.has(key)) p.push(`${at}: the same district, measure, building type and qualifier twice`);
    seen.add(key);
  });
  if (g.controls.length < MIN_CONTROLS) p.push(`controls: ${g.controls.length} values, at least ${MIN_CONTROLS} are required`);
  for (const t of proposedTypes) if (!/^dimensional\.[a-z0-9_]+$/.test(t)) p.push(`proposed_control_types: ${t} is not dimensional.<name>`);
  return p;
}

/** The gold document in `path`, or an error naming the file and every problem in it. */
export function loadGold(path: string): GoldDoc {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(path, 'utf8'));
  } catch (e) {
    throw new Error(`${path}: ${(e as Error).message}`);
  }
  const problems = validateGold(raw);
  if (problems.length) throw new Error(`${path} is not a well-formed gold sample:\n  ${problems.join('\n  ')}`);
  return raw as GoldDoc;
}

export const useCells = (g: GoldDoc) => g.use_tables.reduce((n, t) => n + t.rows.reduce((m, r) => m + r.cells.length, 0), 0);

export interface Score {
  judged: number; // parsed records the sample can judge
  correct: number; // of those, the ones that agree with it
  gold: number; // values in the sample
  found: number; // of those, the ones some parsed record states correctly
  precision: number | null;
  recall: number | null;
  wrong: string[]; // judged and wrong, as "what: parsed … gold …"
  missed: string[]; // gold values no parsed record stated correctly
}

const ratio = (a: number, b: number) => (b === 0 ? null : a / b);
const score = (judged: number, correct: number, gold: number, found: number, wrong: string[], missed: string[]): Score => ({
  judged,
  correct,
  gold,
  found,
  precision: ratio(correct, judged),
  recall: ratio(found, gold),
  wrong,
  missed,
});

export type PermissionLike = Pick<PermissionRecord, 'district_code' | 'use_label_raw' | 'symbol' | 'level' | 'table_ref'>;

const cellAgrees = (c: GoldCell, p: PermissionLike) => foldMark(p.symbol) === foldMark(c.mark) && (p.level === c.level || (c.accept ?? []).includes(p.level as GoldLevel));

/**
 * Use cells: a parsed permission is judged when its label and district match a gold row (or it names
 * a row that is no use: a category or legend row, always wrong); correct when mark and level agree.
 */
export function scoreUses(g: GoldDoc, parsed: PermissionLike[]): Score {
  const byKey = new Map<string, GoldCell[]>();
  const names = new Map<GoldCell, string>();
  const nonUse = new Set<string>();
  for (const t of g.use_tables) {
    for (const label of t.non_use_rows) nonUse.add(foldText(label));
    for (const r of t.rows)
      for (const c of r.cells) {
        names.set(c, `${r.label} @ ${c.district}`);
        for (const label of [r.label, ...(r.label_alternates ?? [])]) {
          const k = `${foldText(label)}|${foldCode(c.district)}`;
          byKey.set(k, [...(byKey.get(k) ?? []), c]);
        }
      }
  }
  const tables = (g.judge_tables ?? []).map(foldText);
  const inScope = (p: PermissionLike) => tables.length === 0 || tables.some((t) => foldText(p.table_ref).includes(t));
  const found = new Set<GoldCell>();
  const wrong: string[] = [];
  let judged = 0;
  let correct = 0;
  for (const p of parsed) {
    if (!inScope(p)) continue;
    const label = foldText(p.use_label_raw);
    const cands = byKey.get(`${label}|${foldCode(p.district_code)}`);
    if (!cands) {
      if (nonUse.has(label)) {
        judged++;
        wrong.push(`${p.use_label_raw} @ ${p.district_code}: a category or legend row read as a use`);
      }
      continue;
    }
    judged++;
    const agree = cands.filter((c) => cellAgrees(c, p));
    for (const c of agree) found.add(c);
    if (agree.length) correct++;
    else wrong.push(`${p.use_label_raw} @ ${p.district_code}: parsed '${p.symbol}' ${p.level}, gold ${cands.map((c) => `'${c.mark}' ${c.level}`).join(' or ')}`);
  }
  const all = [...names.keys()];
  const missed = all.filter((c) => !found.has(c)).map((c) => `${names.get(c)}: '${c.mark}' ${c.level}`);
  return score(judged, correct, all.length, found.size, wrong, missed);
}

export type ControlLike = Pick<ControlRecord, 'district_code' | 'control_type' | 'building_type' | 'qualifier' | 'min' | 'max' | 'unit' | 'value_text'>;

const numEq = (a: number | null, b: number | null) => (a === null || b === null ? a === b : Math.abs(a - b) < 1e-9);

/** Numbers and unit equal; a value with no number is matched by its printed text. */
function valueAgrees(g: GoldControl, p: ControlLike): boolean {
  if (g.min === null && g.max === null) {
    if (p.min !== null || p.max !== null) return false;
    const a = foldText(g.value);
    const b = foldText(p.value_text);
    // the same text agrees however short (a cell that prints only a footnote mark, "[4]"); else one must hold the other
    return (b.length > 0 && a === b) || (b.length >= 2 && (a.includes(b) || b.includes(a)));
  }
  return numEq(g.min, p.min) && numEq(g.max, p.max) && g.unit === p.unit;
}

const context = (bt: string | null, q: string | null) => foldText(bt) + foldText(q);

/**
 * Controls: a parsed control is judged when its district and control type match gold values of a
 * building type it names (or of none); it is correct when one of them has the same building type
 * and qualifier (compared together, so either field may hold them) and the same value. A gold value
 * with neither applies to every building type. One gold value for the measure needs no qualifier.
 */
export function scoreControls(g: GoldDoc, parsed: ControlLike[]): Score {
  const found = new Set<GoldControl>();
  const wrong: string[] = [];
  let judged = 0;
  let correct = 0;
  for (const p of parsed) {
    const cands = g.controls.filter((c) => foldCode(c.district) === foldCode(p.district_code) && c.control_type === p.control_type);
    const scoped = cands.filter(
      (c) =>
        c.building_type === null ||
        foldText(c.building_type) === foldText(p.building_type) ||
        (p.building_type === null && (foldText(p.qualifier).startsWith(foldText(c.building_type)) || cands.length === 1)),
    );
    if (scoped.length === 0) continue;
    judged++;
    const ctx = context(p.building_type, p.qualifier);
    const agree = scoped.filter((c) => {
      const gctx = context(c.building_type, c.qualifier);
      return (gctx === '' || gctx === ctx || (scoped.length === 1 && ctx === '')) && valueAgrees(c, p);
    });
    for (const c of agree) found.add(c);
    if (agree.length) correct++;
    else {
      const what = [p.district_code, p.control_type, p.building_type, p.qualifier].filter(Boolean).join(' ');
      wrong.push(`${what}: parsed ${p.min ?? '–'}..${p.max ?? '–'} ${p.unit ?? ''} "${p.value_text}", gold ${scoped.map((c) => `${c.qualifier ?? c.building_type ?? ''} ${c.min ?? '–'}..${c.max ?? '–'} ${c.unit ?? ''}`.trim()).join(' | ')}`);
    }
  }
  const missed = g.controls.filter((c) => !found.has(c)).map((c) => `${c.district} ${c.control_type}${c.building_type ? ` [${c.building_type}]` : ''}${c.qualifier ? ` (${c.qualifier})` : ''}: "${c.value}"`);
  return score(judged, correct, g.controls.length, found.size, wrong, missed);
}

/** Codes found against the codes expected, compared folded; each list as printed by its source. */
export function compareCodes(expected: string[], found: string[]): { matched: string[]; missing: string[]; extra: string[] } {
  const want = new Map(expected.map((c) => [foldCode(c), c]));
  const have = new Map(found.map((c) => [foldCode(c), c]));
  return {
    matched: [...want.keys()].filter((k) => have.has(k)).map((k) => want.get(k) as string),
    missing: [...want.keys()].filter((k) => !have.has(k)).map((k) => want.get(k) as string),
    extra: [...have.keys()].filter((k) => !want.has(k)).map((k) => have.get(k) as string),
  };
}
