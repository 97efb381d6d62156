// Assessor rolls (CSV) to property rows, through a mapping (assessor-mapping.ts).
// Policy, applied the same way to every roll:
// - a line is rejected (kept in `rejected` with its reason) when it cannot be read as a row:
//   wrong number of fields, broken quoting (each line an open quote swallowed is rejected too),
//   a NUL byte, no account key, a key longer than its limit, or an account key that repeats on a
//   line not adjacent to its first (an account's buildings are listed on consecutive lines);
//   a rejected line names the account keys its cells seem to hold (`keys`, read at the header's
//   positions, as split by CSV and on every comma), so that what is held for them can be kept;
// - a cell longer than its field's limit is cut, with an issue (cell-limits.ts);
// - a cell that is blank or a placeholder the mapping names ("0", "1/1/1900", "NULL") states
//   no value: null, and its field path is listed in `withheld`;
// - a cell whose text cannot be read as its type (a non-number, an impossible date) is null,
//   its field path is listed in `invalid`, and an issue names the line, column and text;
//   the rest of the row is kept.
import { type AssessorMapping, MappingError, checkMapping, missingColumns } from './assessor-mapping.ts';
import { type Pending, buildRow, issue, readCells } from './assessor-row.ts';
import { type CsvBad, type CsvLine, csvRecords, readCsv } from './csv.ts';
import { type ColumnLimit, clipLine, columnLimits } from './cell-limits.ts';
import type { ParseIssue, PropertyRow, Rejected } from './types.ts';

export interface RollResult {
  header: string[];
  rows: PropertyRow[];
  rejected: Rejected[];
  issues: ParseIssue[];
}

export type RollItem = { row: PropertyRow } | { rejected: Rejected } | { issue: ParseIssue };

/** Reads a roll line by line; parseAssessorRoll and streamAssessorRoll feed it. */
class RollReader {
  private pending: Pending | null = null;
  private seen = new Map<string, number>(); // account key → first line
  private derivedCount = new Map<string, number>();
  private header_: string[] = [];
  private limits: Map<string, ColumnLimit>;

  constructor(private m: AssessorMapping) {
    this.limits = columnLimits(m);
  }

  header(header: string[]): void {
    const missing = missingColumns(this.m, header);
    if (missing.length) throw new MappingError(`assessor mapping ${this.m.name}: the file has no column ${missing.join(', ')}`);
    this.header_ = header;
  }

  /** The account key a row's cells name ('' when blank), and how it was made. */
  private keyOf(cell: (column: string) => string): { key: string; basis: 'column' | 'derived' } {
    const m = this.m;
    if (m.columns.account_key) return { key: cell(m.columns.account_key).trim(), basis: 'column' };
    const key = (m.account_key_columns ?? []).map((c) => cell(c).trim()).join('|');
    return { key: key.replace(/\|/g, '') === '' ? '' : key, basis: 'derived' };
  }

  /** A derived key seen before is numbered by its occurrence (key#2, key#3...). */
  private numbered(key: string, line: number): { key: string; issue: RollItem | null } {
    const n = (this.derivedCount.get(key) ?? 0) + 1;
    this.derivedCount.set(key, n);
    if (n === 1) return { key, issue: null };
    const detail = `derived key ${key} repeats (first at line ${this.seen.get(key)}); this row is ${key}#${n}`;
    return { key: `${key}#${n}`, issue: { issue: issue('warning', 'account_key_repeated', detail, line) } };
  }

  /** A line that cannot be read: rejected, naming the account keys its cells seem to hold. */
  bad(b: CsvBad): RollItem[] {
    const rejected: Rejected = { line: b.line, reason: b.reason, raw: b.raw };
    const at = new Map(this.header_.map((h, i) => [h, i]));
    // in a line whose quoting is broken, quotes around a cell are quoting, and a NUL is no text
    const read = b.splits.map((cells) => this.keyOf((c) => (cells[at.get(c) ?? -1] ?? '').replaceAll('\u0000', '').trim().replace(/^"|"$/g, '')));
    const keys = [...new Set(read.map((k) => k.key).filter(Boolean))];
    if (keys.length && read[0].basis === 'derived') {
      // a derived key keeps its place in the numbering of repeats, as if the line had been read
      if (!this.seen.has(keys[0])) this.seen.set(keys[0], b.line);
      const numbered = this.numbered(keys[0], b.line).key;
      const suffix = numbered.slice(keys[0].length);
      keys.forEach((k, i) => {
        keys[i] = k + suffix;
      });
    }
    if (keys.length) rejected.keys = keys;
    return [{ rejected }];
  }

  line(read: CsvLine): RollItem[] {
    const out: RollItem[] = [];
    const m = this.m;
    const clipped = clipLine(this.limits, read);
    const l = clipped.line;
    let { key, basis } = this.keyOf((c) => l.values[c] ?? '');
    if (clipped.keyTooLong) return [...this.flush(), { rejected: { line: l.line, reason: clipped.keyTooLong, raw: l.raw, keys: [key] } }];
    if (!key) {
      const what = m.columns.account_key ?? (m.account_key_columns ?? []).join(', ');
      return [...this.flush(), { rejected: { line: l.line, reason: `no account key (${what} blank)`, raw: l.raw } }];
    }
    const truncated: RollItem[] = clipped.issues.map((i) => ({ issue: i }));
    const groups = Boolean(m.columns.building_number);
    if (this.pending && groups && this.pending.key === key) {
      this.pending.lines.push(l);
      this.pending.cells.push(readCells(m, l.values));
      return truncated;
    }
    out.push(...this.flush());
    if (basis === 'derived') {
      if (!this.seen.has(key)) this.seen.set(key, l.line);
      const n = this.numbered(key, l.line);
      key = n.key;
      if (n.issue) out.push(n.issue);
    } else if (this.seen.has(key)) {
      const reason = `account key ${key} repeats (first at line ${this.seen.get(key)}) on a line not adjacent to it`;
      return [...out, { rejected: { line: l.line, reason, raw: l.raw } }];
    }
    if (!this.seen.has(key)) this.seen.set(key, l.line);
    this.pending = { key, basis, lines: [l], cells: [readCells(m, l.values)] };
    return [...out, ...truncated];
  }

  end(): RollItem[] {
    return this.flush();
  }

  private flush(): RollItem[] {
    const p = this.pending;
    this.pending = null;
    return p ? buildRow(this.m, p) : [];
  }
}

/** A whole roll (small files; use `streamAssessorRoll` for big ones). */
export function parseAssessorRoll(bytes: Uint8Array | string, mapping: AssessorMapping): RollResult {
  const m = checkMapping(mapping);
  const csv = readCsv(bytes, m.encoding);
  const reader = new RollReader(m);
  reader.header(csv.header);
  const out: RollResult = { header: csv.header, rows: [], rejected: [], issues: [] };
  const take = (items: RollItem[]) => {
    for (const it of items) {
      if ('row' in it) out.rows.push(it.row);
      else if ('rejected' in it) out.rejected.push(it.rejected);
      else out.issues.push(it.issue);
    }
  };
  const lines: Array<CsvLine | (CsvBad & { bad: true })> = [...csv.rows, ...csv.bad.map((b) => ({ ...b, bad: true as const }))];
  lines.sort((a, b) => a.line - b.line);
  for (const l of lines) take('bad' in l ? reader.bad(l) : reader.line(l));
  take(reader.end());
  return out;
}

/** A roll read from a stream of chunks: the same rows, rejections and issues, in file order. */
export async function* streamAssessorRoll(
  chunks: AsyncIterable<Uint8Array | string> | Iterable<Uint8Array | string>,
  mapping: AssessorMapping,
): AsyncGenerator<RollItem> {
  const m = checkMapping(mapping);
  const reader = new RollReader(m);
  for await (const item of csvRecords(chunks, m.encoding)) {
    if ('header' in item) reader.header(item.header);
    else if (item.ok) yield* reader.line(item.row);
    else yield* reader.bad(item.bad);
  }
  yield* reader.end();
}
