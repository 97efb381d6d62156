// One assessor roll row: cells read by type through the mapping, then a PropertyRow built from
// the lines of one account (see assessor.ts for the policy on placeholders and bad values).
import { ROLL_FIELDS, STRUCTURE_FIELDS, type AssessorMapping, type RollField } from './assessor-mapping.ts';
import { fullAddress, normalizeAddress } from '../../core/address.ts';
import { VALUE_MAX } from './cell-limits.ts';
import type { RollItem } from './assessor.ts';
import type { CsvLine } from './csv.ts';
import { dealKind } from './recorder.ts';
import type { ParseIssue, PropertyRow, RollSale, Structure } from './types.ts';
import { type Read, isPlaceholder, readBoolean, readBookPage, readCents, readDate, readInteger, readNumber, readText, readYear } from './values.ts';

type Cell = { state: 'value'; value: string | number | boolean } | { state: 'unstated' } | { state: 'invalid'; raw: string; error: string };
type Cells = Map<RollField, Cell>;

const READERS: Record<string, (t: string) => Read<string | number | boolean>> = {
  text: (t) => ({ value: readText(t) }),
  cents: readCents,
  number: readNumber,
  integer: readInteger,
  year: readYear,
  date: readDate,
  boolean: readBoolean,
};

export function readCells(m: AssessorMapping, values: Record<string, string>): Cells {
  const cells: Cells = new Map();
  const any = m.placeholders?.['*'] ?? [];
  for (const [field, column] of Object.entries(m.columns) as Array<[RollField, string]>) {
    const raw = values[column] ?? '';
    if (isPlaceholder(raw, [...any, ...(m.placeholders?.[field] ?? [])])) {
      cells.set(field, { state: 'unstated' });
      continue;
    }
    const type = ROLL_FIELDS[field].type;
    const n = raw.trim().length;
    if (type !== 'text' && n > VALUE_MAX) {
      cells.set(field, { state: 'invalid', raw, error: `${n} characters, more than a ${type} cell holds (${VALUE_MAX})` });
      continue;
    }
    const r = READERS[type](raw);
    if (r.error) cells.set(field, { state: 'invalid', raw, error: r.error });
    else if (r.value === null) cells.set(field, { state: 'unstated' });
    else cells.set(field, { state: 'value', value: r.value });
  }
  return cells;
}

export interface Pending {
  key: string;
  basis: 'column' | 'derived';
  lines: CsvLine[];
  cells: Cells[];
}

export function issue(severity: 'warning' | 'error', code: string, detail: string, line: number, column?: string): ParseIssue {
  return { severity, code, detail, locator: { line, ...(column ? { column } : {}) } };
}

export function buildRow(m: AssessorMapping, p: Pending): RollItem[] {
  const items: RollItem[] = [];
  const withheld: string[] = [];
  const invalid: string[] = [];
  const optional = new Set(m.optional ?? []);
  const first = p.cells[0];
  const line = p.lines[0].line;
  const note = (cells: Cells, f: RollField, path: string, at: CsvLine): void => {
    const c = cells.get(f);
    if (!c) return;
    if (c.state === 'unstated' && !optional.has(f) && !withheld.includes(path)) withheld.push(path);
    if (c.state === 'invalid') {
      invalid.push(path);
      items.push({ issue: issue('warning', 'value_invalid', `line ${at.line}, column ${m.columns[f]}: ${c.error}`, at.line, m.columns[f]) });
    }
  };
  const v = <T extends string | number | boolean>(f: RollField, cells: Cells = first): T | null => {
    const c = cells.get(f);
    return c?.state === 'value' ? (c.value as T) : null;
  };
  for (const f of Object.keys(m.columns) as RollField[]) {
    if (STRUCTURE_FIELDS.includes(f) || f.startsWith('sale_') || f === 'book_page' || f === 'book' || f === 'page') continue;
    note(first, f, ROLL_FIELDS[f].path, p.lines[0]);
  }
  const disagree = disagreeing(m, p);
  if (disagree.length) items.push({ issue: issue('warning', 'account_rows_disagree', `account ${p.key}: lines ${p.lines.map((l) => l.line).join(', ')} differ in ${disagree.join(', ')}; the first line's values are kept`, line) });

  const structures: Structure[] = [];
  p.cells.forEach((cells, i) => {
    const s = buildStructure(m, cells, p.lines[i]);
    if (!s) return;
    const at = structures.length;
    for (const f of STRUCTURE_FIELDS) note(cells, f, ROLL_FIELDS[f].path.replace('[]', `[${at}]`), p.lines[i]);
    structures.push(s);
  });
  if (!structures.length && STRUCTURE_FIELDS.some((f) => m.columns[f] && f !== 'building_number')) withheld.push('structures');

  const sale = buildSale(m, first, p.lines[0], items);
  if (sale) {
    for (const f of ['sale_price', 'sale_date', 'book_page', 'book', 'page'] as RollField[]) note(first, f, ROLL_FIELDS[f].path, p.lines[0]);
  } else if (m.columns.sale_date || m.columns.sale_price || m.columns.book_page || m.columns.book) withheld.push('sales');

  const address = v<string>('address');
  const unit = v<string>('unit');
  const site = m.site_locality ?? { locality: null, region: null };
  const addr = address ? fullAddress(address, { unit, locality: site.locality, region: site.region }) : null;
  const label = addr ? [addr.street_line_1, addr.unit ? `#${addr.unit}` : ''].filter(Boolean).join(' ') : p.key;
  const ownerLine = v<string>('owner_address_1');
  const ownerCity = v<string>('owner_city');
  const owners = [v<string>('owner_name'), v<string>('co_owner_name')].filter((x): x is string => x !== null);
  const landArea = v<number>('land_area');
  const useCode = v<string>('use_code');
  const useDesc = v<string>('use_description');
  const zoning = v<string>('zoning');
  const fiscalYear = v<number>('fiscal_year') ?? m.fiscal_year ?? null;
  const row: PropertyRow = {
    line,
    lines: p.lines.map((l) => l.line),
    account_key: p.key,
    account_key_basis: p.basis,
    parcel_key: v<string>('parcel_key'),
    map_lot: v<string>('map_lot'),
    fiscal_year: fiscalYear,
    label,
    addresses: addr ? [addr] : [],
    address_keys: address ? normalizeAddress(address, unit).keys : [],
    land_area: landArea === null ? null : { value: landArea, unit: m.land_area_unit },
    current_use: useCode || useDesc ? { code: useCode, description: useDesc } : null,
    assessor_zoning: zoning ? { code: zoning, official: m.zoning_official ?? false } : null,
    assessment: {
      fiscal_year: fiscalYear,
      land_value_cents: v<number>('land_value'),
      building_value_cents: v<number>('building_value'),
      total_value_cents: v<number>('total_value'),
      previous_total_value_cents: v<number>('previous_total_value'),
      tax_district: v<string>('tax_district'),
      residential_exemption: v<boolean>('residential_exemption'),
    },
    tax: { fiscal_year: fiscalYear, amount_cents: v<number>('tax_amount') },
    ownership: {
      owners,
      mailing_address:
        ownerLine || ownerCity
          ? fullAddress(ownerLine ?? '', {
              street_line_2: v<string>('owner_address_2'),
              locality: ownerCity,
              region: v<string>('owner_state'),
              postal_code: v<string>('owner_zip'),
              recipient: owners[0] ?? null,
            })
          : null,
    },
    structures,
    sales: sale ? [sale] : [],
    withheld,
    invalid,
  };
  return [...items, { row }];
}

function disagreeing(m: AssessorMapping, p: Pending): string[] {
  if (p.lines.length < 2) return [];
  const perAccount = (Object.entries(m.columns) as Array<[RollField, string]>).filter(([f]) => !STRUCTURE_FIELDS.includes(f));
  const out: string[] = [];
  for (const [, column] of perAccount) {
    const values = new Set(p.lines.map((l) => (l.values[column] ?? '').trim()));
    if (values.size > 1) out.push(column);
  }
  return out;
}

function buildStructure(m: AssessorMapping, cells: Cells, l: CsvLine): Structure | null {
  const v = <T>(f: RollField): T | null => {
    const c = cells.get(f);
    return c?.state === 'value' ? (c.value as T) : null;
  };
  const attributes: Record<string, string> = {};
  const any = m.placeholders?.['*'] ?? [];
  for (const [name, column] of Object.entries(m.structure_attributes ?? {})) {
    const raw = l.values[column] ?? '';
    if (!isPlaceholder(raw, any)) attributes[name] = raw.trim();
  }
  const s: Structure = {
    building_number: v<string>('building_number'),
    style: v<string>('style'),
    occupancy: v<string>('occupancy'),
    stories: v<string>('stories'),
    year_built: v<number>('year_built'),
    living_area_sq_ft: v<number>('living_area'),
    gross_area_sq_ft: v<number>('gross_area'),
    units: v<number>('units'),
    rooms: v<number>('rooms'),
    bedrooms: v<number>('bedrooms'),
    full_baths: v<number>('full_baths'),
    half_baths: v<number>('half_baths'),
    attributes,
  };
  const stated = STRUCTURE_FIELDS.some((f) => f !== 'building_number' && cells.get(f)?.state === 'value');
  return stated || Object.keys(attributes).length ? s : null;
}

function buildSale(m: AssessorMapping, cells: Cells, l: CsvLine, items: RollItem[]): RollSale | null {
  const v = <T>(f: RollField): T | null => {
    const c = cells.get(f);
    return c?.state === 'value' ? (c.value as T) : null;
  };
  const price = v<number>('sale_price');
  const date = v<string>('sale_date');
  let book = v<string>('book');
  let page = v<string>('page');
  let reference: string | null = null;
  const bp = v<string>('book_page');
  if (bp !== null) {
    reference = (l.values[m.columns.book_page!] ?? '').trim();
    const split = readBookPage(bp);
    if (split) ({ book, page } = split);
    else items.push({ issue: issue('warning', 'book_page_unparsed', `line ${l.line}, column ${m.columns.book_page}: "${bp}" is not book/page; kept as printed`, l.line, m.columns.book_page) });
  } else if (book !== null || page !== null) reference = [book, page].filter(Boolean).join('/');
  if (price === null && date === null && book === null && page === null && reference === null) return null;
  const { kind } = dealKind(price, m.nominal_consideration_dollars);
  return { kind: kind === 'sale' ? 'sale' : 'transfer', consideration_cents: price, sale_date: date, book, page, reference_raw: reference };
}

