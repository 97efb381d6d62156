// A publisher's list of zoning districts (CSV: code, name, description) into district records,
// each citing its own line of the file.
import { parse } from 'csv-parse/sync';
import type { DistrictRecord, ParseIssue } from './types.ts';

export interface DistrictListParse {
  text: string;
  districts: DistrictRecord[];
  issues: ParseIssue[];
}

/** One way to write a code for matching: upper case, single spaces, plain hyphens. */
export function normalizeCode(code: string): string {
  return code.normalize('NFKC').trim().toUpperCase().replace(/[\u2010-\u2015]/g, '-').replace(/\s+/g, ' ');
}

const TYPE_WORDS: Array<[RegExp, string]> = [
  [/\bresiden/i, 'residential'],
  [/\bbusiness\b|\bcommercial\b|\bretail\b/i, 'commercial'],
  [/\boffice\b/i, 'office'],
  [/\bindustr/i, 'industrial'],
  [/\bopen space\b|\bpark\b/i, 'open_space'],
  [/\bmixed\b/i, 'mixed_use'],
];

/** The district type a label names in words ("Residence A-1 District"), or null when it does not. */
export function typeFromLabel(label: string | null): string | null {
  if (!label) return null;
  return TYPE_WORDS.find(([re]) => re.test(label))?.[1] ?? null;
}

export function parseDistrictList(bytes: Uint8Array, fields: Record<string, string>): DistrictListParse {
  const text = Buffer.from(bytes).toString('utf8');
  const issues: ParseIssue[] = [];
  const records = parse(text, { columns: true, raw: true, info: true, skip_empty_lines: true, bom: true, relax_column_count: true }) as Array<{
    record: Record<string, string>;
    raw: string;
    info: { lines: number };
  }>;
  const codeField = fields.code ?? 'code';
  const districts: DistrictRecord[] = [];
  let cursor = 0;
  for (const { record, raw, info } of records) {
    const line = raw.replace(/\r?\n$/, '');
    const start = text.indexOf(line, cursor);
    cursor = start + line.length;
    const code = (record[codeField] ?? '').trim();
    if (!code) {
      issues.push({ severity: 'warning', code: 'row_without_code', detail: `line ${info.lines} has no ${codeField}`, locator: { line: info.lines } });
      continue;
    }
    const label = record[fields.name ?? 'name']?.trim() || null;
    districts.push({
      kind: 'base',
      code_raw: code,
      code_normalized: normalizeCode(code),
      local_label: label,
      type: typeFromLabel(label),
      purpose: record[fields.description ?? 'description']?.trim() || null,
      section_ref: null,
      citation: { quote: line, locator: { start, end: start + line.length, line: info.lines, row: code } },
    });
  }
  return { text, districts, issues };
}
