// A registry of deeds' index (CSV, one line per indexed party; mappings/registry_index.json)
// to recorded instruments and transactions.
// The deal rule: a deed is a `sale` only when it states a consideration above the nominal
// threshold (default $100: Massachusetts charges no deed excise at or below it, G.L. c. 64D §1).
// A deed stating $100 or less ($0, $1, $10) is a nominal `transfer`; a deed stating no
// consideration is a `transfer` too, since a sale is never assumed. Mortgages are `mortgage`
// (consideration = the amount secured, as indexed); assignments of mortgage are `assignment`.
// Same policy as rolls: unreadable lines are rejected, unreadable cells are null with an issue.
import { fullAddress, normalizeAddress } from '../../core/address.ts';
import { readCsv } from './csv.ts';
import type { FullAddress, InstrumentRef, ParseIssue, PartyRole, RecordedInstrument, Rejected, TransactionKind, TransactionRecord } from './types.ts';
import { readCents, readDate, readText } from './values.ts';

export type InstrumentClass = 'deed' | 'mortgage' | 'assignment' | 'other';

export interface RecorderMapping {
  name: string;
  columns: {
    instrument_number: string;
    book: string;
    page: string;
    recorded_on: string;
    instrument_type: string;
    instrument_date?: string;
    consideration?: string;
    side: string;
    party_name: string;
    address?: string;
    locality?: string;
    parcel_key?: string;
    ref_instrument_number?: string;
    ref_book?: string;
    ref_page?: string;
  };
  region?: string | null; // the registry's state, for addresses
  sides: Record<string, 1 | 2>; // party side labels: 1 grantor side, 2 grantee side
  instrument_types: Record<string, InstrumentClass>; // upper-case type as indexed → class
  nominal_consideration_dollars?: number;
}

const ROLES: Record<InstrumentClass, [PartyRole, PartyRole]> = {
  deed: ['grantor', 'grantee'],
  mortgage: ['mortgagor', 'mortgagee'],
  assignment: ['assignor', 'assignee'],
  other: ['grantor', 'grantee'],
};

/** Sale or transfer, from a deed's stated consideration (see the rule above). */
export function dealKind(considerationCents: number | null, nominalDollars = 100): { kind: 'sale' | 'transfer'; nominal: boolean } {
  if (considerationCents === null) return { kind: 'transfer', nominal: false };
  const nominal = considerationCents <= nominalDollars * 100;
  return { kind: nominal ? 'transfer' : 'sale', nominal };
}

export interface RecorderResult {
  instruments: RecordedInstrument[];
  transactions: TransactionRecord[];
  rejected: Rejected[];
  issues: ParseIssue[];
}

export function parseRecorderIndex(bytes: Uint8Array | string, m: RecorderMapping): RecorderResult {
  const csv = readCsv(bytes);
  const c = m.columns;
  const missing = Object.values(c).filter((col) => !csv.header.includes(col));
  if (missing.length) throw new Error(`recorder mapping ${m.name}: the file has no column ${missing.join(', ')}`);
  const out: RecorderResult = { instruments: [], transactions: [], rejected: csv.bad.map(({ line, reason, raw }) => ({ line, reason, raw })), issues: [] };
  const byKey = new Map<string, { doc: RecordedInstrument; first: Record<string, string>; cls: InstrumentClass | null }>();
  const warn = (code: string, detail: string, line: number, column?: string) =>
    out.issues.push({ severity: 'warning', code, detail, locator: { line, ...(column ? { column } : {}) } });
  const cell = (vals: Record<string, string>, col?: string) => (col ? readText(vals[col] ?? '') : null);
  const dated = (vals: Record<string, string>, col: string | undefined, line: number): string | null => {
    if (!col) return null;
    const r = readDate(vals[col] ?? '');
    if (r.error) warn('value_invalid', `line ${line}, column ${col}: ${r.error}`, line, col);
    return r.value;
  };

  for (const { line, raw, values } of csv.rows) {
    const number = cell(values, c.instrument_number);
    const book = cell(values, c.book);
    const page = cell(values, c.page);
    const key = number ?? (book && page ? `${book}/${page}` : null);
    if (!key) {
      out.rejected.push({ line, raw, reason: `no instrument number or book/page (${c.instrument_number}, ${c.book}, ${c.page} blank)` });
      continue;
    }
    let entry = byKey.get(key);
    if (!entry) {
      const type = cell(values, c.instrument_type) ?? '';
      const cls = m.instrument_types[type.toUpperCase()] ?? null;
      if (!cls) warn('instrument_type_unmapped', `line ${line}: instrument type "${type}" has no class in mapping ${m.name}; kept without a transaction`, line, c.instrument_type);
      let consideration: number | null = null;
      if (c.consideration) {
        const r = readCents(values[c.consideration] ?? '');
        if (r.error) warn('value_invalid', `line ${line}, column ${c.consideration}: ${r.error}`, line, c.consideration);
        consideration = r.value;
      }
      const ref: InstrumentRef = { instrument_number: cell(values, c.ref_instrument_number), book: cell(values, c.ref_book), page: cell(values, c.ref_page) };
      const doc: RecordedInstrument = {
        doc_type: 'recorded_instrument',
        natural_key: key,
        instrument_type: type,
        instrument_number: number,
        book,
        page,
        recorded_on: dated(values, c.recorded_on, line),
        instrument_date: dated(values, c.instrument_date, line),
        consideration_cents: consideration,
        parties: [],
        parcel_keys: [],
        addresses: [],
        address_keys: [],
        references: ref.instrument_number || ref.book ? [ref] : [],
        lines: [],
      };
      entry = { doc, first: values, cls };
      byKey.set(key, entry);
      out.instruments.push(doc);
    } else {
      const differ = [c.book, c.page, c.recorded_on, c.instrument_type, c.instrument_date, c.consideration].filter(
        (col): col is string => Boolean(col) && (values[col!] ?? '').trim() !== (entry!.first[col!] ?? '').trim(),
      );
      if (differ.length) warn('instrument_lines_disagree', `line ${line}: instrument ${key} differs from its first line in ${differ.join(', ')}; the first line's values are kept`, line);
    }
    const { doc, cls } = entry;
    doc.lines.push(line);
    addParty(doc, values, m, cls, line, warn);
    addProperty(doc, values, m);
  }

  for (const { doc, cls } of byKey.values()) {
    const t = transactionOf(doc, cls, m.nominal_consideration_dollars);
    if (t) out.transactions.push(t);
  }
  out.rejected.sort((a, b) => a.line - b.line);
  return out;
}

function addParty(doc: RecordedInstrument, values: Record<string, string>, m: RecorderMapping, cls: InstrumentClass | null, line: number, warn: (code: string, d: string, l: number, col?: string) => void) {
  const name = readText(values[m.columns.party_name] ?? '');
  const sideLabel = (values[m.columns.side] ?? '').trim().toUpperCase();
  if (!name) return;
  const side = m.sides[sideLabel];
  if (!side) {
    warn('party_side_unknown', `line ${line}: party side "${sideLabel}" is not one of ${Object.keys(m.sides).join(', ')}; party ${name} not kept`, line, m.columns.side);
    return;
  }
  const role = ROLES[cls ?? 'other'][side - 1];
  if (!doc.parties.some((p) => p.name === name && p.role === role)) doc.parties.push({ name, role });
}

function addProperty(doc: RecordedInstrument, values: Record<string, string>, m: RecorderMapping) {
  const key = m.columns.parcel_key ? readText(values[m.columns.parcel_key] ?? '') : null;
  if (key && !doc.parcel_keys.includes(key)) doc.parcel_keys.push(key);
  const street = m.columns.address ? readText(values[m.columns.address] ?? '') : null;
  if (!street) return;
  const locality = m.columns.locality ? readText(values[m.columns.locality] ?? '') : null;
  const a: FullAddress = fullAddress(street, { locality, region: m.region ?? null });
  if (doc.addresses.some((x) => x.raw === a.raw)) return;
  doc.addresses.push(a);
  for (const k of normalizeAddress(street).keys) if (!doc.address_keys.includes(k)) doc.address_keys.push(k);
}

function transactionOf(doc: RecordedInstrument, cls: InstrumentClass | null, nominalDollars?: number): TransactionRecord | null {
  if (!cls || cls === 'other') return null;
  let kind: TransactionKind = cls === 'mortgage' ? 'mortgage' : 'assignment';
  let nominal = false;
  if (cls === 'deed') ({ kind, nominal } = dealKind(doc.consideration_cents, nominalDollars));
  return {
    natural_key: doc.natural_key,
    kind,
    nominal,
    consideration_cents: doc.consideration_cents,
    sale_date: kind === 'sale' ? doc.instrument_date : null,
    recorded_on: doc.recorded_on,
    instrument_number: doc.instrument_number,
    book: doc.book,
    page: doc.page,
    parcel_keys: [...doc.parcel_keys],
    addresses: [...doc.addresses],
    parties: [...doc.parties],
    references: [...doc.references],
  };
}
