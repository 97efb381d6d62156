// A clerk's published list of ordinances (an HTML page with a table of ordinances and, where
// the town has any, a table of moratoriums) to ordinance and moratorium records. Which header
// means which field, and which printed label means which kind, status or subject, is data
// (mappings/ordinance_list_html.json). An unknown label is kept raw with an issue, never guessed.
import { type HtmlCell, type HtmlTable, readHtmlTables } from './html-table.ts';
import type { MoratoriumRecord, OrdinanceKind, OrdinanceRecord, OrdinanceStatus, OrdinanceSubject, ParseIssue, Rejected } from './types.ts';
import { readDate } from './values.ts';

type OrdField = 'number' | 'title' | 'kind' | 'subject' | 'status' | 'introduced_on' | 'adopted_on' | 'effective_from' | 'link';
type MorField = 'title' | 'ordinance' | 'uses' | 'area' | 'effective_from' | 'effective_through' | 'link';

export interface OrdinanceListMapping {
  name: string;
  ordinance_table: string; // text found in the table's caption, id or preceding heading
  moratorium_table?: string;
  headers: Partial<Record<OrdField, string[]>>;
  moratorium_headers?: Partial<Record<MorField, string[]>>;
  kinds: Record<string, OrdinanceKind>;
  statuses: Record<string, OrdinanceStatus>;
  subjects: Record<string, OrdinanceSubject>;
  blank: string[]; // cells meaning "no value" ("—", "n/a")
  whole_town: string[]; // area cells meaning the whole jurisdiction
  use_separator: string;
}

export interface OrdinanceListResult {
  ordinances: OrdinanceRecord[];
  moratoriums: MoratoriumRecord[];
  rejected: Rejected[];
  issues: ParseIssue[];
}

const key = (s: string) => s.toLowerCase().replace(/[.:*]+$/g, '').replace(/\s+/g, ' ').trim();

function findTable(tables: HtmlTable[], needle: string): HtmlTable | null {
  const n = key(needle);
  return tables.find((t) => [t.caption, t.id, t.heading].some((s) => s && key(s).includes(n))) ?? null;
}

function columns<F extends string>(table: HtmlTable, headers: Partial<Record<F, string[]>>): { at: Map<F, number>; headerRow: number } {
  const headerRow = Math.max(0, table.rows.findIndex((r) => r.length > 0 && r.every((c) => c.header)));
  const names = (table.rows[headerRow] ?? []).map((c) => key(c.text));
  const at = new Map<F, number>();
  for (const [field, labels] of Object.entries(headers) as Array<[F, string[]]>) {
    const wanted = new Set(labels.map(key));
    const i = names.findIndex((n) => wanted.has(n));
    if (i >= 0) at.set(field, i);
  }
  return { at, headerRow };
}

export function parseOrdinanceList(bytes: Uint8Array | string, m: OrdinanceListMapping, baseUrl?: string): OrdinanceListResult {
  const html = typeof bytes === 'string' ? bytes : new TextDecoder('utf-8').decode(bytes);
  const tables = readHtmlTables(html);
  const out: OrdinanceListResult = { ordinances: [], moratoriums: [], rejected: [], issues: [] };
  const table = findTable(tables, m.ordinance_table);
  if (!table) throw new Error(`ordinance list mapping ${m.name}: no table matching "${m.ordinance_table}"`);
  const { at, headerRow } = columns(table, m.headers);
  for (const need of ['number', 'title'] as OrdField[])
    if (!at.has(need)) throw new Error(`ordinance list mapping ${m.name}: no column for ${need} (headers: ${table.rows[headerRow]?.map((c) => c.text).join(' | ')})`);
  const blank = new Set(m.blank.map(key));
  const ctx = { out, blank, baseUrl };

  table.rows.forEach((row, i) => {
    if (i <= headerRow || row.every((c) => !c.text)) return;
    const line = i - headerRow;
    const text = (f: OrdField) => cellText(row, at.get(f), blank);
    const rowText = row.map((c) => c.text).join(' | ');
    const number = text('number');
    const title = text('title');
    if (!number || !title) {
      out.rejected.push({ line, reason: `no ${number ? 'title' : 'ordinance number'} in the row`, raw: rowText });
      return;
    }
    const kindRaw = text('kind');
    const statusRaw = text('status');
    const subjectRaw = text('subject');
    out.ordinances.push({
      number,
      title,
      kind: label(m.kinds, kindRaw, 'kind', line, ctx),
      kind_raw: kindRaw,
      status: label(m.statuses, statusRaw, 'status', line, ctx),
      status_raw: statusRaw,
      subject: subjectRaw ? (m.subjects[key(subjectRaw)] ?? null) : null,
      subject_raw: subjectRaw,
      introduced_on: date(text('introduced_on'), 'introduced_on', line, ctx),
      adopted_on: date(text('adopted_on'), 'adopted_on', line, ctx),
      effective_from: date(text('effective_from'), 'effective_from', line, ctx),
      href: link(row, at.get('link') ?? at.get('title'), baseUrl) ?? link(row, at.get('number'), baseUrl),
      row_text: rowText,
      line,
    });
  });

  const mt = m.moratorium_table ? findTable(tables, m.moratorium_table) : null;
  if (mt && m.moratorium_headers) readMoratoriums(mt, m, ctx);
  return out;
}

interface Ctx {
  out: OrdinanceListResult;
  blank: Set<string>;
  baseUrl?: string;
}

function cellText(row: HtmlCell[], i: number | undefined, blank: Set<string>): string | null {
  if (i === undefined) return null;
  const t = row[i]?.text ?? '';
  return t === '' || blank.has(key(t)) ? null : t;
}

function link(row: HtmlCell[], i: number | undefined, baseUrl?: string): string | null {
  const href = i === undefined ? undefined : row[i]?.links[0];
  if (!href) return null;
  try {
    return baseUrl ? new URL(href, baseUrl).href : href;
  } catch {
    return href;
  }
}

function label<T>(table: Record<string, T>, raw: string | null, what: string, line: number, ctx: Ctx): T | null {
  if (!raw) return null;
  const v = table[key(raw)];
  if (v === undefined) ctx.out.issues.push({ severity: 'warning', code: 'label_unmapped', detail: `row ${line}: ${what} "${raw}" is not mapped; kept raw`, locator: { row: String(line), column: what } });
  return v ?? null;
}

function date(raw: string | null, what: string, line: number, ctx: Ctx): string | null {
  if (!raw) return null;
  const r = readDate(raw);
  if (r.error) ctx.out.issues.push({ severity: 'warning', code: 'value_invalid', detail: `row ${line}, ${what}: ${r.error}`, locator: { row: String(line), column: what } });
  return r.value;
}

function readMoratoriums(table: HtmlTable, m: OrdinanceListMapping, ctx: Ctx) {
  const { at, headerRow } = columns(table, m.moratorium_headers ?? {});
  table.rows.forEach((row, i) => {
    if (i <= headerRow || row.every((c) => !c.text)) return;
    const line = i - headerRow;
    const text = (f: MorField) => cellText(row, at.get(f), ctx.blank);
    const rowText = row.map((c) => c.text).join(' | ');
    const title = text('title');
    if (!title) {
      ctx.out.rejected.push({ line, reason: 'no moratorium title in the row', raw: rowText });
      return;
    }
    const usesRaw = text('uses');
    ctx.out.moratoriums.push({
      title,
      ordinance_number: text('ordinance'),
      uses: usesRaw ? usesRaw.split(m.use_separator).map((u) => u.trim()).filter(Boolean) : [],
      effective_from: date(text('effective_from'), 'effective_from', line, ctx),
      effective_through: date(text('effective_through'), 'effective_through', line, ctx),
      area: area(text('area'), m),
      href: link(row, at.get('link') ?? at.get('title'), ctx.baseUrl),
      row_text: rowText,
      line,
    });
  });
}

/** "Town-wide" → the whole jurisdiction; "Districts I-1 and VC" → those codes; else unknown. */
function area(raw: string | null, m: OrdinanceListMapping): MoratoriumRecord['area'] {
  if (!raw) return { scope: 'unknown', raw: '' };
  if (m.whole_town.some((w) => key(raw).includes(key(w)))) return { scope: 'jurisdiction' };
  const rest = raw.replace(/\b(?:zoning\s+)?districts?\b/gi, ' ').replace(/[:()]/g, ' ');
  const codes = rest
    .split(/\s*(?:,|;|\band\b|&)\s*/i)
    .map((s) => s.trim())
    .filter(Boolean);
  if (codes.length && codes.every((c) => /^[A-Z0-9][A-Z0-9.\-/]*$/i.test(c) && c.length <= 12)) return { scope: 'district', codes };
  return { scope: 'unknown', raw };
}
