// The property records (assessor and tax rolls) of the parcels at a place, as in force on the
// date asked and known at the instant asked, each with the roll version it was read from.
import type { Queryable } from '../../store/db.ts';
import type { Times } from '../../store/place/resolve.ts';

/** At most this many records are embedded (a condominium parcel can carry hundreds of accounts). */
export const PROPERTY_LIMIT = 100;

type Row = Record<string, any>;

function propertyView(r: Row) {
  return {
    id: r.id,
    object: 'property',
    jurisdiction: r.jurisdiction_id,
    county_fips: r.county_fips,
    label: r.label,
    parcel: r.parcel_ids,
    parcel_key: r.parcel_key,
    account_key: r.account_key,
    address: r.addresses,
    legal_summary: r.legal_summary,
    land_area: r.land_area,
    current_use: r.current_use,
    assessor_zoning: r.assessor_zoning,
    assessment: r.assessment,
    tax: r.tax,
    ownership: r.ownership,
    structure: r.structure,
    fiscal_year: r.fiscal_year,
    effective_from: r.effective_from,
    effective_through: r.effective_through,
    // a roll's rows are not quoted: the record cites the retained version it was read from
    source: { key: r.source_key, kind: r.source_kind, document: r.document_id, document_title: r.document_title, version: r.version_id, version_number: r.version_number, retrieved_at: r.retrieved_at, url: r.url },
    status: 'stated',
  };
}

/** The property records on these parcels (at most PROPERTY_LIMIT), and how many there are. */
export async function propertiesOn(db: Queryable, jurisdictionId: string, parcelIds: string[], t: Times) {
  if (!parcelIds.length) return { property: [], total: 0 };
  const { rows } = await db.query(
    `SELECT p.id, p.jurisdiction_id, p.county_fips, p.label, p.parcel_ids, p.parcel_key, p.account_key, p.addresses, p.legal_summary,
            p.land_area, p.current_use, p.assessor_zoning, p.assessment, p.tax, p.ownership, p.structure, p.fiscal_year,
            lower(p.valid)::text AS effective_from, upper(p.valid)::text AS effective_through,
            s.key AS source_key, s.kind AS source_kind, d.id AS document_id, d.title AS document_title, d.url_canonical AS url,
            v.id AS version_id, v.number AS version_number,
            to_char(v.retrieved_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS retrieved_at,
            count(*) OVER () AS total
       FROM property p JOIN source s ON s.id = p.source_id
       LEFT JOIN document_version v ON v.id = p.source_version_id LEFT JOIN document d ON d.id = v.document_id
      WHERE p.jurisdiction_id = $1 AND p.parcel_key IN (SELECT parcel_key FROM parcel WHERE id = ANY($2::text[])) AND p.parcel_ids && $2::text[]
        AND p.valid @> $3::date AND p.known @> $4::timestamptz
      ORDER BY p.label, p.account_key, s.key
      LIMIT ${PROPERTY_LIMIT}`,
    [jurisdictionId, parcelIds, t.asOf, t.knownAsOf],
  );
  return { property: rows.map(propertyView), total: rows.length ? Number(rows[0].total) : 0 };
}
