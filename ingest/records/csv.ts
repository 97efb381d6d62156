// CSV reading with csv-parse: every record keeps its 1-based line and raw text, so a bad line
// can be reported rather than dropped. `readCsv` reads a whole file; `csvRecords` reads a
// stream of chunks (big rolls) and yields the same items in the same order.
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

/** Turns parsed records into lines, checking each against the header's width. */
class Shaper {
  header: string[] | null = null;
  lastLine = 0;

  take(rec: ParsedRecord): CsvItem | null {
    const { line, text } = startLine(rec.info.lines, rec.raw);
    this.lastLine = rec.info.lines;
    if (!this.header) {
      this.header = rec.record.map((h) => h.trim());
      return null;
    }
    if (rec.record.length !== this.header.length) {
      const reason = `has ${rec.record.length} fields, the header has ${this.header.length}`;
      return { ok: false, bad: { line, raw: text, reason } };
    }
    const values: Record<string, string> = {};
    this.header.forEach((h, i) => {
      values[h] = rec.record[i];
    });
    return { ok: true, row: { line, raw: text, values } };
  }

  skipped(err: { message?: string; lines?: number } | undefined, raw: string | undefined): CsvItem {
    const { line, text } = startLine(err?.lines ?? this.lastLine + 1, raw ?? '');
    const reason = `unreadable CSV: ${err?.message ?? 'parse error'}`;
    return { ok: false, bad: { line, raw: text, reason } };
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
  const records = parseSync(decode(bytes, encoding), {
    ...OPTIONS,
    on_skip: (err, raw) => {
      const item = shaper.skipped(err, raw);
      if (!item.ok) bad.push(item.bad);
    },
  }) as unknown as ParsedRecord[];
  for (const rec of records) {
    const item = shaper.take(rec);
    if (item?.ok) rows.push(item.row);
    else if (item) bad.push(item.bad);
  }
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
  const parser = parseStream({
    ...OPTIONS,
    on_skip: (err, raw) => {
      pending.push(shaper.skipped(err, raw));
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
    const item = shaper.take(rec);
    if (!headerSent && shaper.header) {
      headerSent = true;
      yield { header: shaper.header };
    }
    if (!item) continue;
    // the parser reports a skipped record as soon as it reads it, maybe before earlier records
    // reach us: keep file order
    pending.sort((a, b) => lineOf(a) - lineOf(b));
    while (pending.length && lineOf(pending[0]) < lineOf(item)) yield pending.shift()!;
    yield item;
  }
  pending.sort((a, b) => lineOf(a) - lineOf(b));
  while (pending.length) yield pending.shift()!;
}
