// Permits, applications and cases as served (spec 2.8), from the records held: every field as the
// feed states it, the parcels and districts it names resolved where held (id null where not), and
// the citation of the feed record it was read from, quoted verbatim from the retained version.
import type { Queryable } from '../../store/db.ts';
import { citationsByIds } from '../../store/evidence.ts';
import { containment } from '../../store/jurisdictions.ts';
import { type RecordRefs, recordRefs } from '../../store/search/records.ts';

type Row = Record<string, any>;

const HTTP = /^https?:\/\//;

/** A link the record prints, resolved against the feed's public address (kept as printed when there is none). */
function resolved(url: string | null, base: string | null): string | null {
  if (!url) return null;
  if (HTTP.test(url) || !base || !HTTP.test(base)) return url;
  return new URL(url, base).toString();
}

/** The short address form of an application (spec 2.8): formatted, city, state, postal code. */
const short = (a: Row) => ({ formatted: a.raw, city: a.locality, state: a.region, postal_code: a.postal_code });

function parcelsOf(r: Row, refs: RecordRefs): Array<{ id: string | null; number: string; href: string | null }> {
  const keys: string[] = r.body.parcel_keys ?? [];
  return keys.flatMap((k): Array<{ id: string | null; number: string; href: string | null }> => {
    const ids = (r.parcel_ids as string[]).filter((id) => refs.parcels.get(id)?.number === k);
    return ids.length ? ids.map((id) => ({ id, number: k, href: `/parcel/${id}` })) : [{ id: null, number: k, href: null }];
  });
}

export function recordObject(r: Row, refs: RecordRefs, citation: unknown, within: unknown[], known: string): Record<string, unknown> {
  const b = r.body;
  const kind: 'permit' | 'application' | 'case' = r.kind;
  const version = refs.versions.get(r.source_version_id);
  const { issued, ...caseDates } = b.dates;
  const o: Record<string, unknown> = { object: kind, id: r.id };
  if (kind === 'application') o.kind = 'permit';
  Object.assign(o, {
    number: r.number,
    type: b.type,
    status: b.status,
    jurisdiction: { id: r.jurisdiction_id, name: r.jurisdiction_name, slug: r.jurisdiction_slug, type: r.jurisdiction_type, fips: r.jurisdiction_fips, href: `/jurisdiction/${r.jurisdiction_id}` },
    within,
    agency: b.agency,
    description: b.description,
    parcels: parcelsOf(r, refs),
    addresses: kind === 'application' ? b.addresses.map(short) : b.addresses,
    parties: b.parties,
    dates: kind === 'case' ? caseDates : { ...caseDates, issued },
    ...(kind === 'case' ? {} : { valuation: b.valuation }),
    fees: b.fees,
    decision: b.decision,
    ...(kind === 'permit'
      ? {}
      : {
          zoning: (b.zoning ?? []).map((z: { code: string; role: string | null }) => ({
            id: refs.districts.get(`${r.jurisdiction_id} ${z.code.toUpperCase()}`) ?? null,
            code: z.code,
            role: z.role,
            href: `/jurisdiction/${r.jurisdiction_id}/district/${encodeURIComponent(z.code)}`,
          })),
        }),
    document: { url: resolved(b.document?.url ?? null, version?.url ?? null), retrieved: version?.retrieved_at ?? null, source: version?.url ?? null },
    citation,
    as_of: known.slice(0, 10),
    known_as_of: known,
    created_at: refs.first.get(r.id) ?? r.updated_at,
    updated_at: r.updated_at,
    href: `/v1/${kind}/${r.id}`,
  });
  return o;
}

/** The served objects of a page of record rows, as known at `known`. */
export async function recordObjects(db: Queryable, rows: Row[], known: string): Promise<Array<Record<string, unknown>>> {
  if (rows.length === 0) return [];
  const [refs, cites] = await Promise.all([recordRefs(db, rows, known), citationsByIds(db, rows.map((r) => r.citation_id))]);
  const within = new Map<string, unknown[]>();
  for (const j of new Set(rows.map((r) => r.jurisdiction_id as string))) {
    within.set(j, (await containment(db, j)).map((w) => ({ id: w.id, name: w.name, tier: w.level, type: w.type, fips: w.fips_key })));
  }
  return rows.map((r) => recordObject(r, refs, r.citation_id ? (cites.get(r.citation_id) ?? null) : null, within.get(r.jurisdiction_id) ?? [], known));
}
