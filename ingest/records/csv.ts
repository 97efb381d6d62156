// CSV reading with csv-parse: every record keeps its 1-based line and raw text, so a bad line
// can be reported rather than dropped. `readCsv` reads a whole file; `csvRecords` reads a
// stream of chunks (big rolls) and yields the same items in the same order.
// A line is bad when it has the wrong number of fields, holds a NUL byte (no database text can
// hold one), has a quote that closes a field going on, or cannot be read; a quote left open on a
// line is reported with every line it swallowed, each on its own, so that no following row
// disappears silently.
import { Readable } from 'node:stream';
import { parse as parseStream, type Options } from 'csv-parse';
import { parse as parseSync } from 'csv-parse/sync';

export interface CsvLine {
  line: number; // 1-based line where the record starts (the header is line 1)
  raw: string; // the record's text without its line break
  values: Record<string, string>; // by header name
}

export interface CsvBad {
  line: number;
  raw: string;
  reason: string;
  /** the line's cells as far as they can be split, for finding its key: as CSV, and with every
   * quote taken as text (when quoting is what broke, the second may be the right one) */
  splits: string[][];
}

export type CsvItem = { ok: true; row: CsvLine } | { ok: false; bad: CsvBad };

export interface CsvResult {
  header: string[];
  rows: CsvLine[];
  bad: CsvBad[];
}

export type Encoding = 'utf-8' | 'windows-1252' | 'latin1';

const OPTIONS: Options = {
  bom: true,
  raw: true,
  info: true,
  relax_column_count: true,
  relax_quotes: true,
  skip_empty_lines: true,
  skip_records_with_error: true,
};

interface ParsedRecord {
  record: string[];
  raw: string;
  info: { lines: number };
}

/** The line a record starts on, from the line it ends on and its raw text. */
function startLine(endLine: number, raw: string): { line: number; text: string } {
  const text = raw.replace(/^(?:\r?\n)+/, '').replace(/\r?\n$/, '');
  const breaks = text.match(/\n/g)?.length ?? 0;
  return { line: endLine - breaks, text };
}

/** One physical line split on every comma, quotes taken as text. */
const commaSplit = (text: string): string[] => (parseSync(text, { quote: false, relax_column_count: true }) as string[][])[0] ?? [];

/** One physical line's cells: read as CSV, else split on every comma (a quote left open). */
export function lineFields(text: string): string[] {
  try {
    const [record] = parseSync(text, { relax_quotes: true, relax_column_count: true }) as string[][];
    return record ?? [];
  } catch {
    return commaSplit(text);
  }
}

/** The ways to split a bad line: as read, and on every comma of its first line. */
const splitsOf = (read: string[], text: string): string[][] => [read, commaSplit(text.split(/\r?\n/)[0])];

/**
 * The field whose closing quote is followed by more text ("A," B), which the lenient reading
 * takes as text and so may give a row of the right width with shifted values; null when none.
 * A quote inside an unquoted field (12" LOT) is text, as the lenient reading has it.
 */
function quoteClosedEarly(text: string): number | null {
  if (!text.includes('"')) return null;
  try {
    parseSync(text, { relax_column_count: true });
    return null;
  } catch (e) {
    const err = e as { code?: string; column?: number };
    return err.code === 'CSV_INVALID_CLOSING_QUOTE' ? (err.column ?? 0) : null;
  }
}

const bad = (line: number, raw: string, reason: string, splits: string[][]): CsvItem => ({ ok: false, bad: { line, raw, reason, splits } });

/** Turns parsed records into lines, checking each against the header's width. */
class Shaper {
  header: string[] | null = null;
  lastLine = 0;

  take(rec: ParsedRecord): CsvItem[] {
    const { line, text } = startLine(rec.info.lines, rec.raw);
    this.lastLine = rec.info.lines;
    if (!this.header) {
      this.header = rec.record.map((h) => h.trim());
      return [];
    }
    const reason = this.fault(rec.record, text);
    const lines = text.split(/\r?\n/);
    // a bad record over several lines, or one whose later line reads as a row by itself: a quote
    // opened on its first line took the lines after it
    if (lines.length > 1 && (reason || this.rowAmong(lines.slice(1)))) return this.swallowed(line, lines, 'is not closed on its line');
    if (reason) return [bad(line, text, reason, splitsOf(rec.record, text))];
    const values: Record<string, string> = {};
    this.header.forEach((h, i) => {
      values[h] = rec.record[i];
    });
    return [{ ok: true, row: { line, raw: text, values } }];
  }

  skipped(err: { message?: string; lines?: number } | undefined, raw: string | undefined): CsvItem[] {
    const { line, text } = startLine(err?.lines ?? this.lastLine + 1, raw ?? '');
    const lines = text.split(/\r?\n/);
    if (lines.length > 1 && this.header) return this.swallowed(line, lines, 'is never closed');
    return [bad(line, text, `unreadable CSV: ${err?.message ?? 'parse error'}`, splitsOf(lineFields(lines[0]), text))];
  }

  /** Why a record read leniently is not a row, or null when it is one. */
  private fault(record: string[], text: string): string | null {
    const header = this.header ?? [];
    const early = quoteClosedEarly(text);
    if (early !== null) return `the quote closing column ${header[early] ?? early + 1} is followed by more text`;
    const nul = record.findIndex((v) => v.includes('\u0000'));
    if (nul >= 0) return `a NUL byte in column ${header[nul] ?? nul + 1}`;
    if (record.length !== header.length) return `has ${record.length} fields, the header has ${header.length}`;
    return null;
  }

  private rowAmong(lines: string[]): boolean {
    return lines.some((l) => lineFields(l).length === this.header?.length);
  }

  /** Each line of a record a quote opened on its first line ran over, reported on its own. */
  private swallowed(line: number, lines: string[], what: string): CsvItem[] {
    const last = line + lines.length - 1;
    const span = lines.length === 2 ? `line ${last}` : `lines ${line + 1} to ${last}`;
    return lines.map((l, i) =>
      i === 0
        ? bad(line, l, `a quote opened on this line ${what}; it swallows ${span}`, splitsOf(lineFields(l), l))
        : bad(line + i, l, `swallowed by the quote opened on line ${line}`, splitsOf(lineFields(l), l)),
    );
  }
}

export function decode(bytes: Uint8Array | string, encoding: Encoding = 'utf-8'): string {
  return typeof bytes === 'string' ? bytes : new TextDecoder(encoding).decode(bytes);
}

/** A whole CSV file: header, good rows and bad rows (wrong width, unreadable quoting). */
export function readCsv(bytes: Uint8Array | string, encoding: Encoding = 'utf-8'): CsvResult {
  const shaper = new Shaper();
  const rows: CsvLine[] = [];
  const bad: CsvBad[] = [];
  const sort = (items: CsvItem[]) => {
    for (const item of items) {
      if (item.ok) rows.push(item.row);
      else bad.push(item.bad);
    }
  };
  // skipped records are reported as they are met, before any record is taken (and the header
  // read): they are shaped once the records are
  const skips: Array<Parameters<Shaper['skipped']>> = [];
  const records = parseSync(decode(bytes, encoding), {
    ...OPTIONS,
    on_skip: (err, raw) => {
      skips.push([err, raw]);
    },
  }) as unknown as ParsedRecord[];
  for (const rec of records) sort(shaper.take(rec));
  for (const [err, raw] of skips) sort(shaper.skipped(err, raw));
  bad.sort((a, b) => a.line - b.line);
  return { header: shaper.header ?? [], rows, bad };
}

/** Chunks of a CSV file (bytes or strings) in, its header once and then each line in order. */
export async function* csvRecords(
  chunks: AsyncIterable<Uint8Array | string> | Iterable<Uint8Array | string>,
  encoding: Encoding = 'utf-8',
): AsyncGenerator<{ header: string[] } | CsvItem> {
  const shaper = new Shaper();
  const pending: CsvItem[] = [];
  // as in readCsv, a skipped record may be met before the header is taken: shaped later
  const skips: Array<Parameters<Shaper['skipped']>> = [];
  const shapeSkips = () => pending.push(...skips.splice(0).flatMap(([err, raw]) => shaper.skipped(err, raw)));
  const parser = parseStream({
    ...OPTIONS,
    on_skip: (err, raw) => {
      skips.push([err, raw]);
    },
  });
  const decoder = new TextDecoder(encoding);
  async function* text() {
    for await (const c of chunks) yield typeof c === 'string' ? c : decoder.decode(c, { stream: true });
    const rest = decoder.decode();
    if (rest) yield rest;
  }
  const source = Readable.from(text());
  source.on('error', (e) => parser.destroy(e));
  source.pipe(parser);
  let headerSent = false;
  const lineOf = (it: CsvItem) => (it.ok ? it.row.line : it.bad.line);
  for await (const rec of parser as AsyncIterable<ParsedRecord>) {
    const items = shaper.take(rec);
    if (!headerSent && shaper.header) {
      headerSent = true;
      yield { header: shaper.header };
    }
    if (!items.length) continue;
    // the parser reports a skipped record as soon as it reads it, maybe before earlier records
    // reach us: keep file order
    shapeSkips();
    pending.sort((a, b) => lineOf(a) - lineOf(b));
    while (pending.length && lineOf(pending[0]) < lineOf(items[0])) yield pending.shift()!;
    yield* items;
  }
  shapeSkips();
  pending.sort((a, b) => lineOf(a) - lineOf(b));
  while (pending.length) yield pending.shift()!;
}
