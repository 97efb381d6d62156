// Documents (spec 4.5): every retained public document, its versions, and recorded instruments.
import { notFound } from '../../core/errors.ts';
import { requireId } from '../../core/ids.ts';
import { collectionParams, type ResourceDef, runCollection, type SqlContext } from '../../core/query/index.ts';
import { defineRoutes } from '../route.ts';
import { DOCUMENT } from '../schemas.ts';

const DOC_TYPES = ['ordinance', 'code', 'amendment', 'map', 'recorded_instrument', 'roll', 'feed', 'manifest'] as const;

const documents: ResourceDef = {
  name: 'document',
  from: 'document d LEFT JOIN recorded_instrument ri ON ri.document_id = d.id',
  id: 'd.id',
  select: 'd.*, ri.instrument_type, ri.instrument_number, ri.book, ri.page, ri.recorded_on::text, ri.parties, ri.property_ids, ri.image_public',
  defaultSort: '-last_retrieved_at',
  fields: {
    title: { sql: 'd.title', type: 'string', sortable: true, nullable: false },
    doc_type: { sql: 'd.doc_type', type: 'enum', enum: DOC_TYPES },
    authorship: { sql: 'd.authorship', type: 'enum', enum: ['published', 'elicited', 'authored_by_us'] },
    first_retrieved_at: { sql: 'd.first_retrieved_at', type: 'timestamp', sortable: true, nullable: false },
    last_retrieved_at: { sql: 'd.last_retrieved_at', type: 'timestamp', sortable: true, nullable: false },
    version_count: { sql: 'd.version_count', type: 'integer', sortable: true, nullable: false },
    recorded_on: { sql: 'ri.recorded_on', type: 'date', sortable: true },
    instrument_type: { sql: 'ri.instrument_type', type: 'string' },
  },
};

function documentItem(r: Record<string, any>) {
  const base = {
    id: r.id,
    title: r.title,
    doc_type: r.doc_type,
    media_type: r.media_type,
    authorship: r.authorship,
    first_retrieved_at: new Date(r.first_retrieved_at).toISOString(),
    last_retrieved_at: new Date(r.last_retrieved_at).toISOString(),
    version_count: r.version_count,
    href: `/document/${r.id}`,
    jurisdiction: r.jurisdiction_id,
    source: r.source_id,
    authored_by: r.authored_by ?? (r.authorship === 'authored_by_us' ? 'Landlex' : null),
    elicited_on: r.elicited_on,
    url_canonical: r.url_canonical,
  };
  if (r.doc_type !== 'recorded_instrument') return base;
  return {
    ...base,
    recording: { instrument_type: r.instrument_type, instrument_number: r.instrument_number, book: r.book, page: r.page, recorded_on: r.recorded_on },
    parties: r.parties ?? [],
    property: r.property_ids ?? [],
    image: r.image_public ? { available: true } : { available: false, reason: 'the registry does not allow redistribution of images' },
  };
}

async function versionsOf(db: { query: (s: string, p: unknown[]) => Promise<{ rows: any[] }> }, ids: string[]) {
  const { rows } = await db.query(
    `SELECT id, document_id, number, sha256, byte_size, media_type, retrieved_at, url, loaded_at FROM document_version WHERE document_id = ANY($1::text[]) ORDER BY document_id, number DESC`,
    [ids],
  );
  return rows.map((v) => ({ id: v.id, document: v.document_id, number: v.number, sha256: v.sha256, byte_size: Number(v.byte_size), media_type: v.media_type, retrieved_at: new Date(v.retrieved_at).toISOString(), url: publicOnly(v.url), loaded: v.loaded_at !== null }));
}

/** Where a version was fetched, shown only when it is a public address (a local path is ours alone). */
const publicOnly = (url: string | null) => (url && /^https?:\/\//i.test(url) ? url : null);

export const documentRoutes = defineRoutes([
  {
    id: 'listDocuments',
    method: 'GET',
    path: '/document',
    summary: 'Retained public documents: codes, ordinances, maps, rolls and recorded instruments',
    tag: 'Evidence',
    credential: 'key',
    scope: 'law:read',
    form: 'plain',
    collection: true,
    dryRun: true,
    response: DOCUMENT,
    price: { credits: 1, per: 'call', note: 'One credit per page.' },
    params: [
      { name: 'jurisdiction', in: 'query', type: 'array', description: 'jur_ ids, slugs or fips_keys.' },
      { name: 'doc_type', in: 'query', type: 'array', items: { type: 'string', enum: DOC_TYPES } },
      { name: 'authorship', in: 'query', type: 'string', enum: ['published', 'elicited', 'authored_by_us'] },
      { name: 'retrieved[gte]', in: 'query', type: 'timestamp', description: 'Retrieved at or after: a date, or a date-time with offset.' },
      { name: 'property', in: 'query', type: 'array', description: 'Recorded instruments affecting these pty_ ids.' },
      { name: 'instrument_type', in: 'query', type: 'string' },
      { name: 'recorded[gte]', in: 'query', type: 'date', description: 'Recorded on or after this date.' },
      { name: 'book', in: 'query', type: 'string' },
      { name: 'page', in: 'query', type: 'string' },
      { name: 'instrument_number', in: 'query', type: 'string' },
      { name: 'q', in: 'query', type: 'string', description: 'Title match.' },
      { name: 'include', in: 'query', type: 'array', items: { type: 'string', enum: ['version'] } },
      ...collectionParams(documents),
    ],
    handler: async (req) => {
      const p = req.params;
      for (const [i, id] of (p.property ?? []).entries()) requireId('property', id, `property[${i}]`);
      const where: Array<(c: SqlContext) => string> = [];
      if (p.jurisdiction) where.push((c) => `d.jurisdiction_id IN (SELECT id FROM jurisdiction WHERE id = ANY(${c.bind(p.jurisdiction, 'text[]')}) OR slug = ANY(${c.bind(p.jurisdiction, 'text[]')}) OR fips_key = ANY(${c.bind(p.jurisdiction, 'text[]')}))`);
      if (p.doc_type) where.push((c) => `d.doc_type = ANY(${c.bind(p.doc_type, 'text[]')})`);
      if (p.authorship) where.push((c) => `d.authorship = ${c.bind(p.authorship)}`);
      if (p['retrieved[gte]']) where.push((c) => `d.last_retrieved_at >= ${c.bind(p['retrieved[gte]'], 'timestamptz')}`);
      if (p.property) where.push((c) => `ri.property_ids && ${c.bind(p.property, 'text[]')}`);
      if (p.instrument_type) where.push((c) => `ri.instrument_type = ${c.bind(p.instrument_type)}`);
      if (p['recorded[gte]']) where.push((c) => `ri.recorded_on >= ${c.bind(p['recorded[gte]'], 'date')}`);
      if (p.book) where.push((c) => `ri.book = ${c.bind(p.book)}`);
      if (p.page) where.push((c) => `ri.page = ${c.bind(p.page)}`);
      if (p.instrument_number) where.push((c) => `ri.instrument_number = ${c.bind(p.instrument_number)}`);
      if (p.q) where.push((c) => `lower(d.title) LIKE '%' || lower(${c.bind(p.q)}) || '%'`);
      const r = await runCollection(req.services.pool, documents, p, req.services.secret, { where, map: documentItem });
      if (p.include?.includes('version')) {
        const versions = await versionsOf(req.services.pool, r.items.map((d) => d.id));
        for (const d of r.items as Array<Record<string, unknown>>) d.version = versions.filter((v) => v.document === d.id);
      }
      return { item: r.items, page: r.page };
    },
  },
  {
    id: 'getDocument',
    method: 'GET',
    path: '/document/{document}',
    summary: 'One document with its versions',
    tag: 'Evidence',
    credential: 'key',
    scope: 'law:read',
    form: 'plain',
    response: DOCUMENT,
    price: { credits: 1, per: 'call', note: 'One credit.' },
    params: [{ name: 'document', in: 'path', type: 'string', required: true }],
    handler: async (req) => {
      const id = requireId('document', req.params.document, 'document');
      const { rows } = await req.services.pool.query(`SELECT ${documents.select} FROM ${documents.from} WHERE d.id = $1`, [id]);
      if (!rows[0]) throw notFound('document', id);
      return { item: { ...documentItem(rows[0]), version: await versionsOf(req.services.pool, [id]) } };
    },
  },
]);
