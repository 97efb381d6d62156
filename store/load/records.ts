// A registry's index (recorded instruments as documents, and the sales, transfers, mortgages
// and assignments they record), joined to parcels and properties by the parcel keys they print.
// Permit, case and meeting feeds are read by feeds.ts.
import { sha256Hex, stableId } from '../../core/ids.ts';
import { parseRecorderIndex, recorderMapping } from '../../ingest/records/index.ts';
import { applyFacts } from '../bitemporal.ts';
import { sourceTier } from '../coverage.ts';
import type { Queryable } from '../db.ts';
import type { LoadContext, Loader } from './context.ts';

async function keyIndex(db: Queryable, jurisdictionId: string) {
  const parcels = await db.query(
    `SELECT parcel_key, array_agg(DISTINCT id) AS ids FROM parcel WHERE jurisdiction_id = $1 AND upper_inf(known) AND upper_inf(valid) GROUP BY parcel_key`,
    [jurisdictionId],
  );
  const properties = await db.query(
    `SELECT DISTINCT parcel_key, id, ARRAY(SELECT DISTINCT upper(btrim(a->>'unit')) FROM jsonb_array_elements(addresses) a WHERE btrim(coalesce(a->>'unit', '')) <> '' ORDER BY 1) AS units
       FROM property WHERE jurisdiction_id = $1 AND upper_inf(known) AND upper_inf(valid) AND parcel_key IS NOT NULL`,
    [jurisdictionId],
  );
  const p = new Map(parcels.rows.map((r) => [r.parcel_key as string, r.ids as string[]]));
  const q = new Map<string, Array<{ id: string; units: string[] }>>();
  for (const r of properties.rows) q.set(r.parcel_key, [...(q.get(r.parcel_key) ?? []), { id: r.id, units: r.units }]);
  return {
    parcels: (keys: string[]) => [...new Set(keys.flatMap((k) => p.get(k) ?? []))],
    /**
     * The accounts on these parcels; where the instrument names units (a condominium's unit 2) and
     * accounts on a parcel carry one of them, only those accounts (else every account on it).
     */
    properties: (keys: string[], addresses: Array<{ unit: string | null }> = []) => {
      const units = addresses.map((a) => a.unit?.trim().toUpperCase()).filter((u): u is string => Boolean(u));
      return [
        ...new Set(
          keys.flatMap((k) => {
            const on = q.get(k) ?? [];
            const same = units.length ? on.filter((x) => x.units.some((u) => units.includes(u))) : [];
            return (same.length ? same : on).map((x) => x.id);
          }),
        ),
      ];
    },
  };
}

const scopeOf = (ctx: LoadContext) => ({ where: 't.jurisdiction_id = $1 AND t.source_id = $2', params: [ctx.jurisdictionId, ctx.source.id] });

export const loadRecorder: Loader = async (ctx) => {
  const parsed = parseRecorderIndex(await ctx.bytes(), recorderMapping(ctx.source.manifest.mapping ?? ''));
  const j = ctx.jurisdictionId;
  const idx = await keyIndex(ctx.client, j);
  const docId = (key: string) => stableId('document', 'instrument', j, key);
  for (const ins of parsed.instruments) {
    const id = docId(ins.natural_key);
    const title = `${ins.instrument_type}${ins.instrument_number ? ` ${ins.instrument_number}` : ''}${ins.book ? ` (book ${ins.book} page ${ins.page})` : ''}`;
    await ctx.client.query(
      `INSERT INTO document (id, jurisdiction_id, source_id, title, doc_type, media_type, authorship, url_canonical, first_retrieved_at, last_retrieved_at, version_count)
       VALUES ($1, $2, $3, $4, 'recorded_instrument', 'text/csv', 'published', NULL, $5, $5, 0)
       ON CONFLICT (id) DO UPDATE SET last_retrieved_at = EXCLUDED.last_retrieved_at, title = EXCLUDED.title`,
      [id, j, ctx.source.id, title, ctx.version.retrievedAt],
    );
    await ctx.client.query(
      `INSERT INTO recorded_instrument (document_id, jurisdiction_id, instrument_type, instrument_number, book, page, recorded_on, parties, property_ids, image_public, source_version_id, known)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, false, $10, tstzrange($11, NULL))
       ON CONFLICT (document_id) DO UPDATE SET parties = EXCLUDED.parties, property_ids = EXCLUDED.property_ids, recorded_on = EXCLUDED.recorded_on`,
      [id, j, ins.instrument_type, ins.instrument_number, ins.book, ins.page, ins.recorded_on, JSON.stringify(ins.parties), idx.properties(ins.parcel_keys, ins.addresses), ctx.version.id, ctx.now],
    );
  }
  const facts = parsed.transactions.map((t) => ({
    id: stableId('transaction', j, t.natural_key),
    content_sha256: sha256Hex(JSON.stringify(t)),
    valid_from: t.recorded_on ?? ctx.effectiveFrom,
    values: [ctx.source.id, j, t.kind, t.recorded_on, t.sale_date, t.consideration_cents, docId(t.natural_key), t.book, t.page, t.instrument_number, idx.properties(t.parcel_keys, t.addresses), JSON.stringify({ parties: t.parties, parcel_keys: t.parcel_keys, addresses: t.addresses, references: t.references, nominal: t.nominal }), ctx.version.id],
  }));
  const delta = await applyFacts(
    ctx.client,
    { table: 'transaction', columns: ['source_id', 'jurisdiction_id', 'kind', 'recorded_on', 'sale_date', 'consideration_cents', 'document_id', 'book', 'page', 'instrument_number', 'property_ids', 'parties', 'source_version_id'], scope: scopeOf(ctx) },
    facts.map((f) => ({ ...f, valid_from: '-infinity' })),
    { now: ctx.now, removeMissing: false },
  );
  const byKind = Object.fromEntries(['sale', 'transfer', 'mortgage', 'assignment'].map((k) => [k, parsed.transactions.filter((t) => t.kind === k).length]));
  return {
    counts: { instruments: parsed.instruments.length, transactions: parsed.transactions.length, ...byKind, transaction_added: delta.added.length, rejected: parsed.rejected.length },
    events: [],
    issues: [...parsed.issues, ...parsed.rejected.map((r) => ({ severity: 'warning' as const, code: 'row_rejected', detail: `line ${r.line}: ${r.reason}` }))],
    coverage: [{ jurisdictionId: j, layer: 'recorder', ...sourceTier(parsed.instruments.length, parsed.rejected.length), sourceId: ctx.source.id, retrievedAt: ctx.version.retrievedAt, changedAt: delta.added.length ? ctx.now : null, detail: { instruments: parsed.instruments.length, transactions: parsed.transactions.length, images: 'not redistributed' } }],
  };
};
