// A recorded transaction as served (GET /transaction, and embedded in a property): the registry
// index's own statement, cited to the retained version of the index it was read from (an index's
// rows are not quoted). A consideration the index does not state is withheld with why.
import type { Row } from '../../core/query/index.ts';

export const jurisdictionRef = (r: Row) => ({ id: r.jurisdiction_id, name: r.jurisdiction_name, slug: r.jurisdiction_slug, href: `/jurisdiction/${r.jurisdiction_id}` });

/** The retained version a record was read from. */
export const sourceOf = (r: Row) => ({
  key: r.source_key,
  kind: r.source_kind,
  document: r.source_document ?? null,
  version: r.source_version ?? null,
  version_number: r.source_version_number ?? null,
  retrieved_at: r.source_retrieved_at ?? null,
  url: r.source_url ?? null,
});

function consideration(r: Row) {
  if (r.consideration_cents !== null && r.consideration_cents !== undefined) {
    return { amount_cents: Number(r.consideration_cents), currency: 'USD', status: 'stated' };
  }
  const what = r.instrument_type ? `the ${String(r.instrument_type).toLowerCase()}` : 'the instrument';
  return { amount_cents: null, currency: 'USD', status: 'withheld', reason: `The registry's index states no consideration for ${what}; none is estimated.` };
}

export function transactionItem(r: Row) {
  const body = r.parties ?? {};
  const withheld: Array<{ field: string; reason: string }> = [];
  if (!r.recorded_on) withheld.push({ field: 'recorded_on', reason: "The registry's index states no recording date for this instrument." });
  if (r.kind === 'sale' && !r.sale_date) withheld.push({ field: 'sale_date', reason: "The registry's index states no date of the deed." });
  return {
    id: r.id,
    object: 'transaction',
    kind: r.kind,
    nominal: Boolean(body.nominal),
    jurisdiction: jurisdictionRef(r),
    recorded_on: r.recorded_on,
    sale_date: r.sale_date,
    consideration: consideration(r),
    instrument: {
      document: r.document_id,
      type: r.instrument_type ?? null,
      number: r.instrument_number,
      book: r.book,
      page: r.page,
      image: r.image_public ? 'public' : 'not_redistributed',
      href: r.document_id ? `/document/${r.document_id}` : null,
    },
    party: (body.parties ?? []) as Array<{ name: string; role: string }>,
    property: r.property_ids ?? [],
    parcel_key: body.parcel_keys ?? [],
    address: body.addresses ?? [],
    reference: body.references ?? [],
    source: sourceOf(r),
    status: 'stated',
    ...(withheld.length ? { withheld } : {}),
  };
}
