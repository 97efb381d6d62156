// An assessor roll: property facts (assessment, tax, ownership, structures embedded) joined to
// parcels by parcel key; rows whose key matches no parcel are kept and counted; the addresses
// they print become the addresses held for resolving locations.
import { sha256Hex, stableId } from '../../core/ids.ts';
import { assessorMapping, parseAssessorRoll } from '../../ingest/records/index.ts';
import { applyFacts } from '../bitemporal.ts';
import { copyRows } from '../copy.ts';
import { sourceTier } from '../coverage.ts';
import type { LoadContext, Loader } from './context.ts';

export const propertyIdFor = (jurisdictionId: string, accountKey: string) => stableId('property', jurisdictionId, accountKey);

/**
 * The paths of a row's fields stated blank (withheld) or unreadable (invalid) under these heads,
 * kept with the section they belong to so an answer can say why each value is missing. The
 * assessment section also keeps those of the land's own fields (land area, use, zoning).
 */
function pathsOf(r: { withheld: string[]; invalid: string[] }, ...heads: string[]) {
  const under = (w: string) => heads.some((h) => w === h || w.startsWith(`${h}.`) || w.startsWith(`${h}[`));
  return { withheld: r.withheld.filter(under), invalid: r.invalid.filter(under) };
}

async function parcelIndex(ctx: LoadContext): Promise<Map<string, string[]>> {
  const { rows } = await ctx.client.query(
    `SELECT parcel_key, array_agg(DISTINCT id) AS ids FROM parcel WHERE jurisdiction_id = $1 AND upper_inf(known) AND upper_inf(valid) GROUP BY parcel_key`,
    [ctx.jurisdictionId],
  );
  return new Map(rows.map((r) => [r.parcel_key as string, r.ids as string[]]));
}

/** The accounts held now whose lines this version could not read: account key → property id. */
async function heldFor(ctx: LoadContext, keys: string[]): Promise<Map<string, string>> {
  if (!keys.length) return new Map();
  const { rows } = await ctx.client.query(
    `SELECT account_key, id FROM property WHERE jurisdiction_id = $1 AND source_id = $2 AND upper_inf(known) AND upper_inf(valid) AND account_key = ANY($3)`,
    [ctx.jurisdictionId, ctx.source.id, keys],
  );
  return new Map(rows.map((r) => [r.account_key as string, r.id as string]));
}

export const loadProperties: Loader = async (ctx) => {
  const m = ctx.source.manifest;
  const read = parseAssessorRoll(await ctx.bytes(), assessorMapping(m.mapping ?? ''));
  // an account with a line that cannot be read keeps what is held for it, whole
  const kept = await heldFor(ctx, [...new Set(read.rejected.flatMap((r) => r.keys ?? []))]);
  const parsed = { ...read, rows: read.rows.filter((r) => !kept.has(r.account_key)) };
  ctx.beat({ rows: parsed.rows.length });
  const parcels = await parcelIndex(ctx);
  const j = ctx.jurisdictionId;
  const { rows: jr } = await ctx.client.query('SELECT fips_state || fips_county AS county FROM jurisdiction WHERE id = $1', [j]);
  let matched = 0;
  const unmatchedKeys = new Set<string>();
  const facts = parsed.rows.map((r) => {
    const ids = r.parcel_key ? (parcels.get(r.parcel_key) ?? []) : [];
    if (ids.length > 0) matched++;
    else if (r.parcel_key) unmatchedKeys.add(r.parcel_key);
    const body = { addresses: r.addresses, land_area: r.land_area, current_use: r.current_use, assessor_zoning: r.assessor_zoning, assessment: r.assessment, tax: r.tax, ownership: r.ownership, structures: r.structures, sales: r.sales, withheld: r.withheld, invalid: r.invalid };
    return {
      id: propertyIdFor(j, r.account_key),
      content_sha256: sha256Hex(JSON.stringify([r.parcel_key, r.label, body, ids])),
      valid_from: ctx.effectiveFrom,
      values: [
        ctx.source.id, j, r.account_key, r.parcel_key, ids, jr[0]?.county ?? null, r.label, JSON.stringify(r.addresses), r.address_keys,
        r.map_lot !== r.parcel_key ? `map-lot ${r.map_lot}` : null,
        r.land_area ? { ...r.land_area, source: 'assessor roll' } : null,
        r.current_use, r.assessor_zoning,
        { ...r.assessment, ...pathsOf(r, 'assessment', 'land_area', 'current_use', 'assessor_zoning') },
        { ...r.tax, ...pathsOf(r, 'tax') },
        { ...r.ownership, sales: r.sales, ...pathsOf(r, 'ownership', 'sales') },
        { structures: r.structures, ...pathsOf(r, 'structures') },
        r.fiscal_year, ctx.version.id,
      ],
    };
  });
  const delta = await applyFacts(
    ctx.client,
    {
      table: 'property',
      columns: ['source_id', 'jurisdiction_id', 'account_key', 'parcel_key', 'parcel_ids', 'county_fips', 'label', 'addresses', 'address_normalized', 'legal_summary', 'land_area', 'current_use', 'assessor_zoning', 'assessment', 'tax', 'ownership', 'structure', 'fiscal_year', 'source_version_id'],
      scope: { where: 't.jurisdiction_id = $1 AND t.source_id = $2', params: [j, ctx.source.id] },
    },
    facts,
    { now: ctx.now, removeMissing: true, removedOn: ctx.effectiveFrom, countOnly: true, keep: [...kept.values()] },
  );
  ctx.beat({ loaded: facts.length });

  // the addresses held for this jurisdiction, from this roll (a derived index, rebuilt each load
  // but for the accounts kept)
  await ctx.client.query('DELETE FROM address_point WHERE jurisdiction_id = $1 AND source = $2 AND (property_id IS NULL OR property_id <> ALL($3::text[]))', [j, ctx.source.id, [...kept.values()]]);
  const points = new Map<string, unknown[]>();
  for (const [i, r] of parsed.rows.entries()) {
    const parcel = r.parcel_key ? (parcels.get(r.parcel_key)?.[0] ?? null) : null;
    for (const key of r.address_keys) {
      const k = `${key}\u0000${r.label}`;
      if (!points.has(k)) points.set(k, [j, key, r.label, parcel, facts[i].id, ctx.source.id]);
    }
  }
  await ctx.client.query('CREATE TEMP TABLE stage_address (LIKE address_point) ON COMMIT DROP');
  await copyRows(ctx.client, 'stage_address', ['jurisdiction_id', 'normalized', 'raw', 'parcel_id', 'property_id', 'source'], points.values());
  await ctx.client.query(
    `INSERT INTO address_point SELECT * FROM stage_address
     ON CONFLICT (jurisdiction_id, normalized, raw) DO UPDATE SET parcel_id = COALESCE(address_point.parcel_id, EXCLUDED.parcel_id)`,
  );
  await ctx.client.query('DROP TABLE stage_address');

  const counts = {
    rows: parsed.rows.length,
    rejected: parsed.rejected.length,
    matched_to_parcel: matched,
    unmatched: parsed.rows.length - matched,
    parcel_keys_unmatched: unmatchedKeys.size,
    addresses: points.size,
    property_added: delta.counts.added,
    property_changed: delta.counts.changed,
    property_removed: delta.counts.removed,
    property_kept: kept.size,
  };
  return {
    counts,
    events: [],
    issues: [
      ...parsed.issues,
      ...parsed.rejected.map((r) => {
        const held = (r.keys ?? []).filter((k) => kept.has(k));
        return { severity: 'warning' as const, code: 'row_rejected', detail: `line ${r.line}: ${r.reason}${held.length ? `; what was held for account ${held.join(', ')} is kept` : ''}` };
      }),
    ],
    coverage: [
      {
        jurisdictionId: j,
        layer: 'assessor',
        ...sourceTier(parsed.rows.length, parsed.rejected.length),
        sourceId: ctx.source.id,
        retrievedAt: ctx.version.retrievedAt,
        changedAt: delta.counts.added + delta.counts.changed + delta.counts.removed > 0 ? ctx.now : null,
        earliestRetained: ctx.effectiveFrom,
        detail: { ...counts, unmatched_parcel_keys_sample: [...unmatchedKeys].slice(0, 20), fiscal_year: parsed.rows[0]?.fiscal_year ?? null },
      },
    ],
  };
};
