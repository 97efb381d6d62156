// How long a roll's cell may be. Over the limit:
// - the account key (or a column of a derived key): the line is rejected, since a key cut
//   short would name another account;
// - identifiers and codes (64 characters) and names, addresses, descriptions and columns kept
//   as printed (256): the first characters are kept and an issue `value_truncated` names the
//   line and column;
// - numbers, dates, years and yes/no cells (64): the cell is invalid (null, reported).
// Real rolls stay far below: Cambridge's longest cell is 51 characters (an owner's name).
import { ROLL_FIELDS, type AssessorMapping, type RollField } from './assessor-mapping.ts';
import type { CsvLine } from './csv.ts';
import type { ParseIssue } from './types.ts';

export const CODE_MAX = 64;
export const TEXT_MAX = 256;
export const VALUE_MAX = 64;

const WORDS: RollField[] = ['address', 'use_description', 'owner_name', 'co_owner_name', 'owner_address_1', 'owner_address_2', 'owner_city', 'style', 'occupancy'];

/** The most characters a cell of this field keeps. */
export function maxLength(field: RollField): number {
  if (ROLL_FIELDS[field].type !== 'text') return VALUE_MAX;
  return WORDS.includes(field) ? TEXT_MAX : CODE_MAX;
}

/** The columns that make the account key. */
export function keyColumns(m: AssessorMapping): string[] {
  return m.columns.account_key ? [m.columns.account_key] : (m.account_key_columns ?? []);
}

export interface ColumnLimit {
  max: number;
  text: boolean; // cut when over; otherwise left for the readers to refuse
  key: boolean; // over the limit rejects the line
}

/** Each column's limit: the tightest of the fields it feeds; a column no field reads is kept as printed (text). */
export function columnLimits(m: AssessorMapping): Map<string, ColumnLimit> {
  const out = new Map<string, ColumnLimit>();
  const keys = keyColumns(m);
  for (const [f, column] of Object.entries(m.columns) as Array<[RollField, string]>) {
    const was = out.get(column);
    const text = ROLL_FIELDS[f].type === 'text';
    out.set(column, { max: Math.min(was?.max ?? Infinity, maxLength(f)), text: (was?.text ?? true) && text, key: keys.includes(column) });
  }
  for (const column of keys) if (!out.has(column)) out.set(column, { max: TEXT_MAX, text: true, key: true });
  return out;
}

const OTHER: ColumnLimit = { max: TEXT_MAX, text: true, key: false };

/** Keeps the first `max` characters (whole code points). */
const cut = (s: string, max: number) => Array.from(s).slice(0, max).join('');

/**
 * A line with its over-long text cells cut (and an issue for each), or the reason its key is too
 * long. Non-text cells are left for their readers, which refuse them past VALUE_MAX.
 */
export function clipLine(limits: Map<string, ColumnLimit>, l: CsvLine): { line: CsvLine; issues: ParseIssue[]; keyTooLong: string | null } {
  let values: Record<string, string> | null = null;
  const issues: ParseIssue[] = [];
  for (const [column, value] of Object.entries(l.values)) {
    const limit = limits.get(column) ?? OTHER;
    if (value.length <= limit.max || !limit.text) continue;
    const t = value.trim();
    const n = Array.from(t).length;
    if (n <= limit.max) continue;
    if (limit.key) return { line: l, issues: [], keyTooLong: `the key column ${column} has ${n} characters, more than ${limit.max}` };
    values ??= { ...l.values };
    values[column] = cut(t, limit.max);
    issues.push({ severity: 'warning', code: 'value_truncated', detail: `line ${l.line}, column ${column}: ${n} characters, the first ${limit.max} kept`, locator: { line: l.line, column } });
  }
  return { line: values ? { ...l, values } : l, issues, keyTooLong: null };
}
