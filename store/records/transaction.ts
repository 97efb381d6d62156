// Recorded sales, transfers, mortgages and assignments (GET /transaction, and the transactions a
// property embeds): each as the registry's index states it, known at the walk's snapshot. Nothing
// is estimated: a consideration the index does not state stays null. Every value bound.
import type { ResourceDef, SqlContext } from '../../core/query/resource.ts';
import { factIdIs } from '../fact-id.ts';

export const TRANSACTION_KINDS = ['sale', 'transfer', 'mortgage', 'assignment'] as const;

/** The rows and columns a transaction is presented from (alias t); its source is read per page (property.ts withSources). */
export const TRANSACTION_FROM = `transaction t JOIN jurisdiction tj ON tj.id = t.jurisdiction_id LEFT JOIN recorded_instrument ri ON ri.document_id = t.document_id`;

export const TRANSACTION_SELECT = `t.id, t.fact_id, t.jurisdiction_id, tj.name AS jurisdiction_name, tj.slug AS jurisdiction_slug, t.kind,
  t.recorded_on::text AS recorded_on, t.sale_date::text AS sale_date, t.consideration_cents, t.document_id, ri.instrument_type,
  t.instrument_number, t.book, t.page, t.property_ids, t.parties, ri.image_public, t.source_id, t.source_version_id`;

/** Known at the snapshot, one row per id (the latest fact when two sources state it). */
export const transactionKnown = (c: SqlContext, t = 't') =>
  `${t}.known @> ${c.snapshot} AND NOT EXISTS (SELECT 1 FROM transaction t2 WHERE ${factIdIs('t2', `${t}.id`)} AND t2.fact_id > ${t}.fact_id AND t2.known @> ${c.snapshot})`;

/** The transaction as a collection (sorts, filters); recorded[…] and consideration[…] filter through these fields. */
export const transactionResource: ResourceDef = {
  name: 'transaction',
  from: TRANSACTION_FROM,
  id: 't.id',
  select: TRANSACTION_SELECT,
  defaultSort: '-recorded_on',
  fields: {
    recorded_on: { sql: 't.recorded_on', type: 'date', sortable: true, description: 'The date the registry recorded the instrument.' },
    sale_date: { sql: 't.sale_date', type: 'date', sortable: true, description: 'The date of the deed of a sale.' },
    consideration: { sql: 't.consideration_cents', type: 'integer', sortable: true, description: 'Consideration stated, in cents.' },
    kind: { sql: 't.kind', type: 'enum', enum: TRANSACTION_KINDS, sortable: true, nullable: false },
    instrument_type: { sql: 'ri.instrument_type', type: 'string', description: 'As the registry indexes it.' },
    instrument_number: { sql: 't.instrument_number', type: 'string' },
    book: { sql: 't.book', type: 'string' },
    page: { sql: 't.page', type: 'string' },
    nominal: { sql: `(t.parties->>'nominal')::boolean`, type: 'boolean', description: 'A deed stating consideration at or below the nominal threshold.' },
    'jurisdiction.id': { sql: 't.jurisdiction_id', type: 'string', nullable: false },
  },
};

/** Any party of record, by its public-record name (case and runs of spaces folded; migration 027 indexes it). */
export const partyNamed = (c: SqlContext, name: string) => `record_party_names(t.parties->'parties') @> ARRAY[record_name(${c.bind(name, 'text')})]`;
