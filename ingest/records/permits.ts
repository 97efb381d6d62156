// Permit and case feeds (JSON) to the spec's permit, application and case shapes (2.8), minus
// ids and hrefs. Where each value sits in a feed's records is data: dotted paths in a mapping
// (mappings/millbrook_permits.json, millbrook_cases.json).
// Rules: in a permit feed, a record that states an issue date is a permit; one without is an
// application (kind `permit`), whatever its status. `decision` is null (pending) unless the
// record states an outcome, or its status is one the mapping lists in `outcomes`.
// Amounts (valuation, fees) stay in currency units as stated: the spec's Fee shape.
import { fullAddress } from '../../core/address.ts';
import type { Decision, Fee, FullAddress, LandRecordBody, ParseIssue, Party, Rejected } from './types.ts';
import { type Read, readDate, readNumber } from './values.ts';

type Path = string;

export interface FeedMapping {
  name: string;
  object: 'permit' | 'case'; // a permit feed yields permits and applications
  records_path: Path; // "" when the document is the array itself
  agency: { name: string | null; type: string | null }; // the publishing agency
  agency_types?: Record<string, string>; // agency name as printed → type, when records name it
  currency: string;
  region?: string | null; // the publisher's state, for addresses
  default_locality?: string | null; // the publisher's own town, for records that print no city
  fields: {
    number: Path;
    agency_name?: Path; // per record, when the feed names it (a case feed of several boards)
    type_code?: Path;
    type_description?: Path;
    status_code?: Path;
    status_description?: Path;
    description?: Path;
    parcel_keys?: Path; // a string, a list, or "a; b"
    address?: Path;
    unit?: Path;
    locality?: Path;
    postal_code?: Path;
    applied?: Path;
    issued?: Path;
    decided?: Path;
    expires?: Path;
    completed?: Path;
    valuation?: Path;
    outcome_code?: Path;
    outcome_description?: Path;
    decision_effective_from?: Path;
    decision_effective_to?: Path;
    conditions?: Path; // a list of strings or of objects (condition_fields)
    zoning?: Path; // a code, a list of codes, or a list of objects (zoning_fields)
    document_url?: Path;
  };
  parties?: Array<{ name: Path; role: string; organization?: Path; license?: Path }>;
  parties_path?: Path;
  party_fields?: { name: Path; role: Path; organization?: Path; license?: Path };
  fees_path?: Path;
  fee_fields?: { category?: Path; total?: Path; paid?: Path; unpaid?: Path; waived?: Path };
  condition_fields?: { text: Path; scope?: Path; timing?: Path; due?: Path };
  zoning_fields?: { code: Path; role?: Path };
  outcomes?: Record<string, { code: string; description?: string }>; // status code → outcome
}

export interface FeedResult {
  permits: LandRecordBody[];
  applications: LandRecordBody[];
  cases: LandRecordBody[];
  rejected: Rejected[];
  issues: ParseIssue[];
}

/** The value at a dotted path ("decision.outcome", "fees"). */
export function at(obj: unknown, path: Path | undefined): unknown {
  if (!path) return undefined;
  let cur: unknown = obj;
  for (const k of path.split('.')) {
    if (cur === null || typeof cur !== 'object') return undefined;
    cur = (cur as Record<string, unknown>)[k];
  }
  return cur;
}

const str = (v: unknown): string | null => {
  if (v === null || v === undefined) return null;
  const s = String(v).replace(/\s+/g, ' ').trim();
  return s === '' ? null : s;
};

const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : v === null || v === undefined ? [] : [v]);

export function parseFeed(bytes: Uint8Array | string, m: FeedMapping): FeedResult {
  const text = typeof bytes === 'string' ? bytes : new TextDecoder('utf-8').decode(bytes);
  const doc = JSON.parse(text) as unknown;
  const records = m.records_path ? at(doc, m.records_path) : doc;
  if (!Array.isArray(records)) throw new Error(`feed mapping ${m.name}: ${m.records_path || 'the document'} is not a list`);
  const out: FeedResult = { permits: [], applications: [], cases: [], rejected: [], issues: [] };
  records.forEach((rec, i) => {
    const line = i + 1;
    const raw = JSON.stringify(rec);
    if (rec === null || typeof rec !== 'object' || Array.isArray(rec)) {
      out.rejected.push({ line, reason: 'record is not an object', raw });
      return;
    }
    if (raw.includes('\\u0000')) {
      out.rejected.push({ line, reason: 'a NUL character in the record (no database text holds one)', raw });
      return;
    }
    const number = str(at(rec, m.fields.number));
    if (!number) {
      out.rejected.push({ line, reason: `no record number (${m.fields.number})`, raw });
      return;
    }
    const body = readRecord(rec, number, line, m, out.issues);
    if (m.object === 'case') out.cases.push({ ...body, object: 'case' });
    else if (str(at(rec, m.fields.issued)) !== null) {
      const { zoning: _zoning, ...permit } = body;
      out.permits.push({ ...permit, object: 'permit' });
    }
    else out.applications.push({ ...body, object: 'application', kind: 'permit' });
  });
  return out;
}

function readRecord(rec: object, number: string, line: number, m: FeedMapping, issues: ParseIssue[]): LandRecordBody {
  const f = m.fields;
  const checked = <T>(r: Read<T>, path: string): T | null => {
    if (r.error) issues.push({ severity: 'warning', code: 'value_invalid', detail: `record ${line} (${number}), ${path}: ${r.error}`, locator: { row: String(line), column: path } });
    return r.value;
  };
  const day = (path?: Path) => (path ? checked(readDate(str(at(rec, path)) ?? ''), path) : null);
  const num = (v: unknown, path: string) => (typeof v === 'number' ? v : checked(readNumber(str(v) ?? ''), path));
  const street = str(at(rec, f.address));
  const addresses: FullAddress[] = street
    ? [fullAddress(street, { unit: str(at(rec, f.unit)), locality: str(at(rec, f.locality)) ?? m.default_locality ?? null, region: m.region ?? null, postal_code: str(at(rec, f.postal_code)) })]
    : [];
  const parcelKeys = list(at(rec, f.parcel_keys)).flatMap((v) => (str(v) ?? '').split(/\s*;\s*/)).filter(Boolean);
  const valuation = f.valuation ? num(at(rec, f.valuation), f.valuation) : null;
  return {
    object: m.object,
    number,
    type: { code: str(at(rec, f.type_code)), description: str(at(rec, f.type_description)) },
    status: { code: str(at(rec, f.status_code)), description: str(at(rec, f.status_description)) },
    agency: agency(rec, m),
    description: str(at(rec, f.description)),
    parcel_keys: parcelKeys,
    addresses,
    parties: parties(rec, m),
    dates: { applied: day(f.applied), issued: day(f.issued), decided: day(f.decided), expires: day(f.expires), completed: day(f.completed) },
    valuation: valuation === null ? null : { amount: valuation, currency: m.currency },
    fees: fees(rec, m, num),
    decision: decision(rec, m, day),
    zoning: zoning(rec, m),
    document: f.document_url && str(at(rec, f.document_url)) ? { url: str(at(rec, f.document_url)) } : null,
    line,
  };
}

function agency(rec: object, m: FeedMapping): { name: string | null; type: string | null } {
  const name = str(at(rec, m.fields.agency_name));
  if (!name) return { ...m.agency };
  return { name, type: m.agency_types?.[name] ?? m.agency.type };
}

function parties(rec: object, m: FeedMapping): Party[] {
  const out: Party[] = [];
  for (const p of m.parties ?? []) {
    const name = str(at(rec, p.name));
    if (name) out.push({ name, role: p.role, organization: str(at(rec, p.organization)), license: str(at(rec, p.license)) });
  }
  const pf = m.party_fields;
  if (m.parties_path && pf) {
    for (const p of list(at(rec, m.parties_path))) {
      const name = str(at(p, pf.name));
      if (name) out.push({ name, role: str(at(p, pf.role)) ?? 'party', organization: str(at(p, pf.organization)), license: str(at(p, pf.license)) });
    }
  }
  return out;
}

function fees(rec: object, m: FeedMapping, num: (v: unknown, path: string) => number | null): Fee[] {
  const ff = m.fee_fields;
  if (!m.fees_path || !ff) return [];
  return list(at(rec, m.fees_path)).map((fee, i) => {
    const amount = (p?: Path) => (p && at(fee, p) !== undefined && at(fee, p) !== null ? num(at(fee, p), `${m.fees_path}[${i}].${p}`) : null);
    return { category: str(at(fee, ff.category)), total: amount(ff.total), paid: amount(ff.paid), unpaid: amount(ff.unpaid), waived: amount(ff.waived), currency: m.currency };
  });
}

function decision(rec: object, m: FeedMapping, day: (p?: Path) => string | null): Decision | null {
  const f = m.fields;
  let code = str(at(rec, f.outcome_code));
  let description = str(at(rec, f.outcome_description));
  if (!code) {
    const byStatus = m.outcomes?.[str(at(rec, f.status_code))?.toUpperCase() ?? ''];
    if (!byStatus) return null;
    code = byStatus.code;
    description = byStatus.description ?? str(at(rec, f.status_description));
  }
  const cf = m.condition_fields;
  const conditions = list(at(rec, f.conditions))
    .map((c) =>
      typeof c === 'string'
        ? { text: c.trim(), scope: null, timing: null, due: null }
        : { text: str(at(c, cf?.text)) ?? '', scope: str(at(c, cf?.scope)), timing: str(at(c, cf?.timing)), due: str(at(c, cf?.due)) },
    )
    .filter((c) => c.text);
  return {
    outcome: { code, description },
    decided_on: day(f.decided),
    effective_from: day(f.decision_effective_from),
    effective_to: day(f.decision_effective_to),
    conditions,
  };
}

function zoning(rec: object, m: FeedMapping): Array<{ code: string; role: string | null }> {
  const zf = m.zoning_fields;
  return list(at(rec, m.fields.zoning))
    .map((z) => (typeof z === 'object' && z !== null && zf ? { code: str(at(z, zf.code)), role: str(at(z, zf.role)) } : { code: str(z), role: null }))
    .filter((z): z is { code: string; role: string | null } => z.code !== null);
}
