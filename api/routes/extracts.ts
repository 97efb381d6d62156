// Extracts (spec 4.11): create one (priced by its row estimate, charged when created, run as a
// workflow), list and read the caller's, and download their files with the caller's credentials.
import { createReadStream } from 'node:fs';
import { join } from 'node:path';
import { extractDirOf } from '../../activities/extract.ts';
import { FORMATS, GEOBUF_MAX_ROWS, MEDIA_TYPES } from '../../activities/extract/formats.ts';
import { type ExtractPlan, type ExtractRequest, type PlannedExtract, planExtract } from '../../activities/extract/plan.ts';
import { RESOURCE_NAMES } from '../../activities/extract/resources.ts';
import { ApiError, notFound } from '../../core/errors.ts';
import { newId, requireId } from '../../core/ids.ts';
import { type ExtractFile, type ExtractRow, failExtract, fileOf, filesOf, getExtract, insertExtract } from '../../store/extracts.ts';
import { startExtractRun } from '../../workflows/extract-inprocess.ts';
import { collectionParams, type ResourceDef, runCollection, type Where } from '../../core/query/index.ts';
import { defineRoutes, type Req } from '../route.ts';

const STATES = ['queued', 'running', 'succeeded', 'failed'] as const;

const extracts: ResourceDef = {
  name: 'extract',
  from: 'extract e',
  id: 'e.id',
  select: 'e.*',
  defaultSort: '-created_at',
  snapshotColumn: 'e.created_at',
  fields: {
    created_at: { sql: 'e.created_at', type: 'timestamp', sortable: true, nullable: false },
    state: { sql: 'e.state', type: 'enum', enum: STATES },
  },
};

const BODY = {
  type: 'object',
  additionalProperties: false,
  required: ['resource', 'format', 'scope'],
  properties: {
    resource: { type: 'string', enum: RESOURCE_NAMES },
    format: {
      type: 'string',
      enum: FORMATS,
      description:
        'jsonl: one row object a line (not GeoJSON). parquet: GeoParquet 1.1. GIS tools (GDAL, QGIS) open geojsonseq (RFC 8142, RS-separated GeoJSON Features), gpkg (GeoPackage, EPSG:4326) and flatgeobuf (EPSG:4326, spatial index; rows without a geometry are left out and counted in left_out). ' +
        `geobuf (.pbf, application/vnd.geobuf): the geojsonseq features as one FeatureCollection in Geobuf, coordinates exact; encoded whole in memory, so more than ${GEOBUF_MAX_ROWS.toLocaleString('en-US')} rows is 422 naming format.`,
    },
    scope: {
      type: 'object',
      additionalProperties: false,
      minProperties: 1,
      properties: {
        jurisdiction: { type: ['string', 'array'], maxLength: 100, items: { type: 'string', maxLength: 100 }, minItems: 1, maxItems: 100 },
        state: { type: 'string', maxLength: 2 },
        county: { type: 'string', maxLength: 40 },
        region: { type: 'string', maxLength: 40 },
        geometry: { type: ['string', 'object'] },
        buffer: { type: 'number', minimum: 0, maximum: 52_800 },
      },
    },
    filter: { type: 'object', additionalProperties: { type: 'object' }, maxProperties: 20 },
    as_of: { type: 'string', maxLength: 100 },
    known_as_of: { type: 'string', maxLength: 100 },
    field: { type: 'array', items: { type: 'string', maxLength: 64 }, maxItems: 100 },
  },
};

const iso = (t: Date | string | null) => (t === null ? null : new Date(t).toISOString());

/** Rows in scope the format cannot hold (FlatGeobuf: those without a geometry); null when none are. */
function leftOut(plan: ExtractPlan) {
  return plan.leftOut ? { rows: plan.leftOut, reason: `${plan.format} holds only features with a geometry` } : null;
}

export function extractItem(x: ExtractRow, files: ExtractFile[]) {
  const plan = x.plan as ExtractPlan;
  return {
    id: x.id,
    object: 'extract',
    state: x.state,
    resource: x.resource,
    format: x.format,
    derived: false,
    created_at: iso(x.created_at),
    expires_at: iso(x.expires_at),
    href: `/extract/${x.id}`,
    row_estimate: Number(x.row_estimate),
    credit_estimate: x.credit_estimate,
    file: files.map((f) => ({ name: f.name, format: f.format, media_type: f.media_type, size: f.size, rows: f.rows, sha256: f.sha256, href: `/extract/${x.id}/file/${f.name}` })),
    scope: x.request.scope,
    jurisdiction: plan.jurisdictions,
    filter: x.request.filter ?? null,
    field: plan.fields,
    left_out: leftOut(plan),
    as_of: plan.asOf,
    known_as_of: plan.knownAsOf,
    row_count: x.row_count === null ? null : Number(x.row_count),
    started_at: iso(x.started_at),
    finished_at: iso(x.finished_at),
    error: x.error,
    credits_charged: x.credits_charged,
    refunded: x.refunded_at !== null,
  };
}

// One plan per request: the price estimate and the handler share it.
const plans = new WeakMap<Req, Promise<PlannedExtract>>();
function planFor(req: Req): Promise<PlannedExtract> {
  let p = plans.get(req);
  if (!p) {
    p = planExtract(req.services.pool, req.body as ExtractRequest, new Date(), req.actor?.organizationId);
    plans.set(req, p);
  }
  return p;
}

const ID_PARAM = { name: 'extract', in: 'path' as const, type: 'string' as const, required: true };

export const extractRoutes = defineRoutes([
  {
    id: 'createExtract',
    refuses: ['not_available'],
    method: 'POST',
    path: '/extract',
    summary: 'Start an extract: a resource in a scope, as of fixed times, written to a JSONL, GeoParquet, GeoJSONSeq, GeoPackage, FlatGeobuf or Geobuf file',
    tag: 'Extracts',
    credential: 'key',
    scope: 'extract:write',
    form: 'plain',
    status: 202,
    idempotent: true,
    dryRun: true,
    body: BODY,
    price: {
      credits: 1,
      per: 'item',
      upfront: true,
      note: 'One credit per 1,000 rows estimated (at least one), in every format (Geobuf too), charged when the extract is created; given back if it fails.',
      estimateUnits: async (req) => {
        const p = await planFor(req);
        const item = { object: 'extract_estimate', resource: p.plan.resource, format: p.plan.format, row_estimate: p.rowEstimate, credit_estimate: p.creditEstimate, jurisdiction: p.plan.jurisdictions, as_of: p.plan.asOf, known_as_of: p.plan.knownAsOf, field: p.plan.fields, left_out: leftOut(p.plan) };
        return { units: p.creditEstimate, item };
      },
    },
    handler: async (req) => {
      const p = await planFor(req);
      const { pool, config, log } = req.services;
      const b = req.body as ExtractRequest;
      const request = { resource: b.resource, format: b.format, scope: b.scope, filter: b.filter, as_of: b.as_of, known_as_of: b.known_as_of, field: b.field };
      const id = newId('extract');
      const row = await insertExtract(pool, { id, organizationId: req.actor!.organizationId, resource: p.plan.resource, format: p.plan.format, request, plan: p.plan, rowEstimate: p.rowEstimate, creditEstimate: p.creditEstimate, creditsCharged: p.creditEstimate });
      try {
        await startExtractRun(config, pool, log, id);
      } catch (err) {
        log.error('extract could not start', { extract: id, err });
        await failExtract(pool, id, 'the extract could not be started', { refund: false });
        throw new ApiError('service_unavailable', { detail: 'The extract could not be started; nothing was charged. Retry.' });
      }
      return { status: 202, item: extractItem(row, []), headers: { Location: `/extract/${id}` } };
    },
  },
  {
    id: 'listExtracts',
    method: 'GET',
    path: '/extract',
    summary: "The caller's extracts, newest first",
    tag: 'Extracts',
    credential: 'key',
    scope: 'extract:write',
    form: 'plain',
    collection: true,
    price: { credits: 0, per: 'call', note: 'Free.' },
    params: [
      { name: 'state', in: 'query', type: 'array', items: { type: 'string', enum: STATES } },
      ...collectionParams(extracts).filter((p) => p.name === 'cursor' || p.name === 'size'),
    ],
    handler: async (req) => {
      const org = req.actor!.organizationId;
      const where: Where[] = [(c) => `e.organization_id = ${c.bind(org)}`];
      if (req.params.state) where.push((c) => `e.state = ANY(${c.bind(req.params.state, 'text[]')})`);
      const r = await runCollection(req.services.pool, extracts, req.params, req.services.secret, { where });
      const files = await filesOf(req.services.pool, r.items.map((x) => x.id));
      return { item: r.items.map((x) => extractItem(x, files.get(x.id) ?? [])), page: r.page };
    },
  },
  {
    id: 'getExtract',
    method: 'GET',
    path: '/extract/{extract}',
    summary: 'One extract, its state and its files',
    tag: 'Extracts',
    credential: 'key',
    scope: 'extract:write',
    form: 'plain',
    price: { credits: 0, per: 'call', note: 'Free (poll it).' },
    params: [ID_PARAM],
    handler: async (req) => {
      const id = requireId('extract', req.params.extract, 'extract');
      const x = await getExtract(req.services.pool, id, req.actor!.organizationId);
      if (!x) throw notFound('extract', id);
      return { item: extractItem(x, (await filesOf(req.services.pool, [id])).get(id) ?? []) };
    },
  },
  {
    id: 'getExtractFile',
    refuses: ['extract_expired'],
    answers: { 304: 'Not modified: If-None-Match holds the file\'s ETag.' },
    method: 'GET',
    path: '/extract/{extract}/file/{name}',
    summary: "Download one of an extract's files (ETag is its sha256)",
    tag: 'Extracts',
    credential: 'key',
    scope: 'extract:write',
    form: 'raw',
    produces: MEDIA_TYPES,
    price: { credits: 0, per: 'call', note: 'Free: the extract was paid for when created.' },
    params: [ID_PARAM, { name: 'name', in: 'path', type: 'string', required: true }],
    handler: async (req) => {
      const id = requireId('extract', req.params.extract, 'extract');
      const db = req.services.pool;
      const x = await getExtract(db, id, req.actor!.organizationId);
      if (!x) throw notFound('extract', id);
      const f = x.state === 'succeeded' ? await fileOf(db, id, req.params.name) : null;
      if (!f) throw new ApiError('no_such_resource', { field: 'name', detail: `Extract ${id} has no file ${JSON.stringify(req.params.name)}.` });
      if (f.deleted) throw new ApiError('extract_expired', { field: 'name', detail: `The files of ${id} were removed when it expired; create the extract again.` });
      const etag = `"${f.sha256}"`;
      const headers: Record<string, string> = {
        ETag: etag,
        'Cache-Control': 'private, max-age=3600',
        'Repr-Digest': `sha-256=:${Buffer.from(f.sha256, 'hex').toString('base64')}:`,
      };
      if (req.ctx.get('if-none-match') === etag) return { status: 304, body: null, headers };
      const stream = createReadStream(join(extractDirOf(req.services.config.extractDir, { id: x.id, dir: x.dir }), f.name));
      await new Promise<void>((resolve, reject) => stream.once('open', () => resolve()).once('error', reject)).catch(() => {
        throw new ApiError('extract_expired', { field: 'name', detail: `The file ${f.name} of ${id} is no longer held; create the extract again.` });
      });
      headers['Content-Length'] = String(f.size);
      headers['Content-Disposition'] = `attachment; filename="${id}-${f.name}"`;
      return { body: stream, contentType: f.media_type, headers };
    },
  },
]);
