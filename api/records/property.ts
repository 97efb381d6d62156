// A property as served (GET /property, /property/{id}): the assessor's record in force on the date
// asked, with the sections `include` asks for. A value is stated as the roll prints it, withheld
// with why (the roll left it blank or printed a placeholder, or printed what cannot be read), or
// absent (the roll has no such column). Owners of record come from the roll, or from a deed
// recorded after it. Nothing is estimated; a roll's rows are not quoted: each record cites the
// retained version it was read from.
import type { Row } from '../../core/query/index.ts';
import { jurisdictionRef, sourceOf, transactionItem } from './transaction.ts';

type Why = { field: string; reason: string };

export const PROPERTY_INCLUDES = ['assessment', 'tax', 'ownership', 'structure', 'transaction'] as const;

/** The paths a section's JSON lists as stated blank or unreadable. */
interface Lists {
  withheld: string[];
  invalid: string[];
}

const listsOf = (section: Row | null | undefined): Lists => ({ withheld: section?.withheld ?? [], invalid: section?.invalid ?? [] });

/** Why a value is missing, or null when the roll has no such column (the field is then left out). */
function missing(path: string, lists: Lists, title: string): string | null {
  if (lists.invalid.includes(path)) return `${title} prints a value for it that cannot be read; the load's issues name the line and column.`;
  if (lists.withheld.includes(path) || lists.withheld.some((w) => w.startsWith(`${path}.`) || w.startsWith(`${path}[`))) {
    return `${title} states no value for this account (a blank cell or a placeholder such as 0); none is estimated.`;
  }
  return null;
}

/**
 * The stated values of `fields` (section path `prefix`), each missing one withheld with why or
 * left out; status withheld when nothing is stated.
 */
function section(values: Row, fields: string[], prefix: string, lists: Lists, title: string, noneReason: string) {
  const out: Row = {};
  const withheld: Why[] = [];
  for (const f of fields) {
    const v = values?.[f];
    if (v !== null && v !== undefined) out[f] = v;
    else {
      const why = missing(`${prefix}.${f}`, lists, title);
      if (why) {
        out[f] = null;
        withheld.push({ field: f, reason: why });
      }
    }
  }
  const stated = fields.some((f) => out[f] !== null && out[f] !== undefined);
  if (!stated) return { ...out, status: 'withheld', reason: withheld.length ? `${title} states none of it for this account.` : noneReason, ...(withheld.length ? { withheld } : {}) };
  return { ...out, status: 'stated', ...(withheld.length ? { withheld } : {}) };
}

const ASSESSMENT_FIELDS = ['fiscal_year', 'land_value_cents', 'building_value_cents', 'total_value_cents', 'previous_total_value_cents', 'tax_district', 'residential_exemption'];
const STRUCTURE_FIELDS = ['building_number', 'style', 'occupancy', 'stories', 'year_built', 'living_area_sq_ft', 'gross_area_sq_ft', 'units', 'rooms', 'bedrooms', 'full_baths', 'half_baths'];
const SALE_FIELDS = ['kind', 'consideration_cents', 'sale_date', 'book', 'page', 'reference_raw'];

/** A top-level value of the land (area, use, zoning): stated, withheld with why, or absent (undefined). */
function landValue(value: Row | null, path: string, lists: Lists, title: string, stated: (v: Row) => Row) {
  if (value) return { ...stated(value), status: 'stated' };
  const why = missing(path, lists, title);
  return why ? { status: 'withheld', reason: why } : undefined;
}

/** The tax bill: stated, or withheld with why (blank for this account, or no such column). */
function tax(t: Row, title: string) {
  if (t.amount_cents !== null && t.amount_cents !== undefined) return { fiscal_year: t.fiscal_year ?? null, amount_cents: t.amount_cents, status: 'stated' };
  const why = missing('tax.amount_cents', listsOf(t), title);
  return { fiscal_year: t.fiscal_year ?? null, amount_cents: null, status: 'withheld', reason: why ?? `${title} publishes no tax amount.` };
}

function structures(r: Row, title: string) {
  const lists = listsOf(r.structure);
  const list: Row[] = r.structure?.structures ?? [];
  if (!list.length) {
    const why = missing('structures', lists, title);
    return { status: 'withheld', item: [], reason: why ? `${title} describes no building for this account (vacant land, or its building cells are blank).` : `${title} publishes no building columns.` };
  }
  const item = list.map((s, i) => {
    const out: Row = {};
    const withheld: Why[] = [];
    for (const f of STRUCTURE_FIELDS) {
      if (s[f] !== null && s[f] !== undefined) out[f] = s[f];
      else {
        const why = missing(`structures[${i}].${f}`, lists, title);
        if (why) {
          out[f] = null;
          withheld.push({ field: f, reason: why });
        }
      }
    }
    if (s.attributes && Object.keys(s.attributes).length) out.attributes = s.attributes;
    return { ...out, ...(withheld.length ? { withheld } : {}) };
  });
  return { status: 'stated', item };
}

function rollOwnership(r: Row, title: string) {
  const o = r.ownership ?? {};
  const lists = listsOf(o);
  const owners: string[] = o.owners ?? [];
  const out: Row = { basis: 'assessor_roll', on_record_since: r.effective_from, source: sourceOf(r) };
  const withheld: Why[] = [];
  if (owners.length) out.owners = owners;
  else {
    const why = missing('ownership.owners', lists, title);
    out.owners = [];
    withheld.push({ field: 'owners', reason: why ?? `${title} publishes no owner names.` });
  }
  if (o.mailing_address) out.mailing_address = o.mailing_address;
  else {
    const why = missing('ownership.mailing_address', lists, title);
    if (why) {
      out.mailing_address = null;
      withheld.push({ field: 'mailing_address', reason: why });
    }
  }
  const sale = (o.sales ?? [])[0];
  if (sale) {
    const s = section(sale, SALE_FIELDS, 'sales[0]', lists, title, `${title} states no last sale for this account.`);
    out.last_sale = s;
  } else {
    const why = missing('sales', lists, title);
    if (why) out.last_sale = { status: 'withheld', reason: `${title} states no last sale for this account (blank cells or a placeholder date such as 1/1/1900).` };
  }
  const status = owners.length ? 'stated' : 'withheld';
  return { ...out, status, ...(withheld.length ? { withheld } : {}) };
}

/** Owners of record from a deed recorded after the roll took effect; the roll's own statement is shown beside it. */
function deedOwnership(r: Row, deed: Row) {
  const t = transactionItem(deed);
  const owners = t.party.filter((x) => x.role === 'grantee').map((x) => x.name);
  return {
    basis: 'recorded_instrument',
    owners,
    on_record_since: deed.recorded_on,
    transaction: { id: t.id, kind: t.kind, recorded_on: t.recorded_on, sale_date: t.sale_date, instrument: t.instrument, consideration: t.consideration },
    mailing_address: null,
    withheld: [{ field: 'mailing_address', reason: 'A deed states no mailing address of the grantee; the roll’s is the previous owner’s.' }],
    roll: { owners: r.ownership?.owners ?? [], on_record_since: r.effective_from, fiscal_year: r.fiscal_year },
    source: sourceOf(deed),
    status: 'stated',
  };
}

export interface Decoration {
  deed?: Row;
  transactions?: Row[];
  distanceM?: number | null;
  coverage?: Row;
}

const FT_PER_M = 1 / 0.3048;

export function propertyItem(r: Row, include: Set<string>, dec: Decoration = {}) {
  const title = `The ${r.source_title ?? 'assessor roll'}`;
  const lists = listsOf(r.assessment);
  const freshness: Record<string, string[]> = {};
  const fresh = (date: string | null | undefined, key: string) => {
    if (!date) return;
    freshness[date] = [...new Set([...(freshness[date] ?? []), key])].sort();
  };
  fresh(r.source_retrieved_on ?? r.source_retrieved_at?.slice(0, 10), r.source_key);
  const item: Row = {
    id: r.id,
    object: 'property',
    jurisdiction: jurisdictionRef(r),
    county_fips: r.county_fips,
    label: r.label,
    parcel: r.parcel_ids ?? [],
    parcel_key: r.parcel_key,
    account_key: r.account_key,
    address: r.addresses ?? [],
    legal_summary: r.legal_summary,
    fiscal_year: r.fiscal_year,
    effective_from: r.effective_from,
    effective_through: r.effective_through,
  };
  const land = landValue(r.land_area, 'land_area', lists, title, (v) => ({ value: v.value, unit: v.unit, source: v.source ?? 'assessor roll' }));
  if (land) item.land_area = land;
  const use = landValue(r.current_use, 'current_use', lists, title, (v) => ({ code: v.code, description: v.description }));
  if (use) item.current_use = use;
  const zoning = landValue(r.assessor_zoning, 'assessor_zoning', lists, title, (v) => ({ code: v.code, official: v.official, note: 'The roll’s own zoning column, not the zoning map: /rule and /place answer which districts apply.' }));
  if (zoning) item.assessor_zoning = zoning;
  if (dec.distanceM !== undefined) {
    item.distance = dec.distanceM === null ? { value: null, unit: 'ft', status: 'withheld', reason: 'No parcel of the property has a polygon on the date asked.' } : { value: Math.round(dec.distanceM * FT_PER_M * 10) / 10, unit: 'ft', status: 'stated', basis: 'measured from the location asked to the nearest parcel of the property' };
  }
  if (include.has('assessment')) item.assessment = section(r.assessment ?? {}, ASSESSMENT_FIELDS, 'assessment', lists, title, `${title} publishes no assessment.`);
  if (include.has('tax')) item.tax = tax(r.tax ?? {}, title);
  if (include.has('ownership')) {
    item.ownership = dec.deed ? deedOwnership(r, dec.deed) : rollOwnership(r, title);
    if (dec.deed) fresh(dec.deed.source_retrieved_at?.slice(0, 10), dec.deed.source_key);
  }
  if (include.has('structure')) item.structure = structures(r, title);
  if (include.has('transaction')) {
    const rows = dec.transactions ?? [];
    item.transaction = rows.map(transactionItem);
    const total = rows.length ? Number(rows[0].total) : 0;
    if (total > rows.length) item.transaction_total = total;
    for (const t of rows) fresh(t.source_retrieved_at?.slice(0, 10), t.source_key);
  }
  item.source = sourceOf(r);
  item.source_freshness = freshness;
  if (dec.coverage) item.coverage = dec.coverage;
  item.href = `/property/${r.id}`;
  item.status = 'stated';
  return item;
}
