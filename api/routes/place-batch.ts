// Place and rule batches (spec 4.2): up to 500 locations answered in one call. A place batch is
// kept: GET shows what each location resolved to, PATCH overrides one match (then re-answers it).
import { ApiError, notFound } from '../../core/errors.ts';
import { newId, requireId } from '../../core/ids.ts';
import { parseTimeText } from '../../core/time.ts';
import { withTransaction } from '../../store/db.ts';
import { parsePlss, parsePoint } from '../location/params.ts';
import { type Req, defineRoutes } from '../route.ts';
import type { Services } from '../services.ts';
import { placeAnswer } from './place.ts';
import { ruleAnswer } from './rule.ts';

const LOCATION = {
  type: 'object',
  additionalProperties: false,
  properties: {
    ref: { type: 'string', minLength: 1, maxLength: 100, pattern: '^[A-Za-z0-9._~-]+$' },
    address: { type: 'string', minLength: 1, maxLength: 500 },
    point: { type: 'string', minLength: 1, maxLength: 60 },
    geometry: { type: ['string', 'object'], minLength: 1 },
    buffer: { type: 'number', minimum: 0, maximum: 16093 },
    buffer_unit: { enum: ['ft', 'mi', 'm', 'km'] },
    parcel: { type: 'array', items: { type: 'string', minLength: 1, maxLength: 40 }, minItems: 1, maxItems: 50 },
    apn: { type: 'string', minLength: 1, maxLength: 100 },
    fips: { type: 'string', minLength: 1, maxLength: 10 },
    plss: { type: 'string', minLength: 1, maxLength: 60 },
    location_token: { type: 'string', minLength: 1, maxLength: 8000 },
    as_of: { type: 'string', minLength: 1, maxLength: 60 },
    known_as_of: { type: 'string', minLength: 1, maxLength: 60 },
  },
};

const BATCH_BODY = {
  type: 'object',
  additionalProperties: false,
  required: ['item'],
  properties: { item: { type: 'array', minItems: 1, maxItems: 500, items: LOCATION }, include: { type: 'array', items: { enum: ['authority', 'parcel', 'assignment', 'boundary'] } } },
};

/** A batch item as the parameters the single operation takes; bad values refuse the item, not the batch. */
function paramsOf(item: Record<string, any>, include?: string[]): Record<string, any> {
  return {
    ...item,
    point: item.point ? parsePoint(item.point, 'point') : undefined,
    plss: item.plss ? parsePlss(item.plss, 'plss') : undefined,
    geometry: item.geometry === undefined ? undefined : typeof item.geometry === 'string' ? item.geometry : JSON.stringify(item.geometry),
    as_of: item.as_of ? parseTimeText(item.as_of, 'as_of') : undefined,
    known_as_of: item.known_as_of ? parseTimeText(item.known_as_of, 'known_as_of') : undefined,
    include: include ?? ['authority', 'assignment', 'parcel'],
  };
}

async function answerOne(services: Services, item: Record<string, any>, include: string[] | undefined, answer: typeof placeAnswer | typeof ruleAnswer) {
  try {
    const a = await answer(services, paramsOf(item, include));
    return { status: 'answered', resolution: a.extra.resolution, jurisdiction: a.extra.jurisdiction, answer: { ...a.item, ...(a.extra.authority ? { authority: a.extra.authority } : {}) }, key: a.charge.keys[0] };
  } catch (err) {
    // a location refused, or one not answerable yet (501: a PLSS key), is that item's answer, not the batch's
    if (err instanceof ApiError && (err.status < 500 || err.code === 'not_available')) return { status: 'refused', error: { code: err.code, field: err.field, detail: err.detail }, key: null };
    throw err;
  }
}

async function batchItems(req: Req, id: string) {
  const { rows } = await req.services.pool.query(
    `SELECT i.ref, i.input, i.resolution, i.answer, i.overridden_at, i.override FROM place_batch b JOIN place_batch_item i ON i.batch_id = b.id
      WHERE b.id = $1 AND b.organization_id = $2 ORDER BY i.ordinal`,
    [id, req.actor!.organizationId],
  );
  if (rows.length === 0) throw notFound('place batch', id);
  return rows.map((r) => ({ ref: r.ref, input: r.input, ...r.resolution, ...(r.answer ? { answer: r.answer } : {}), overridden_at: r.overridden_at, override: r.override }));
}

type Answered = Awaited<ReturnType<typeof answerOne>> & { ref: string; input?: unknown };
const counts = (items: Array<{ status: string }>) => ({ answered: items.filter((i) => i.status === 'answered').length, refused: items.filter((i) => i.status === 'refused').length });

export const placeBatchRoutes = defineRoutes([
  {
    id: 'createPlaceBatch',
    method: 'POST',
    path: '/place/batch',
    summary: 'The place answer for up to 500 locations; the batch is kept and each match can be overridden',
    tag: 'Ask about a place',
    credential: 'key',
    scope: 'place:read',
    form: 'plain',
    status: 201,
    idempotent: true,
    dryRun: true,
    body: BATCH_BODY,
    price: { credits: 1, per: 'item', repeatFreeHours: 24, note: 'One credit per location answered; free again for a day.', estimateUnits: (req) => req.body?.item?.length ?? 0 },
    // Resolving is read-only; the batch is written by `persist`, once the charge is secured, so
    // a 402 leaves no batch behind (api/metering/charge.ts).
    handler: async (req) => {
      const id = newId('batch');
      const input = req.body.item as Array<Record<string, any>>;
      const refs = input.map((item, i) => item.ref ?? String(i + 1));
      if (new Set(refs).size !== refs.length) throw new ApiError('parameter_invalid', { field: 'item[].ref', detail: 'refs must be unique within a batch' });
      const items: Answered[] = [];
      for (const [i, item] of input.entries()) {
        items.push({ ref: refs[i], input: item, ...(await answerOne(req.services, item, req.body.include, placeAnswer)) });
      }
      const organizationId = req.actor!.organizationId;
      const pool = req.services.pool;
      const persist = () =>
        withTransaction(pool, async (c) => {
          await c.query('INSERT INTO place_batch (id, organization_id, item_count) VALUES ($1, $2, $3)', [id, organizationId, items.length]);
          await c.query(
            `INSERT INTO place_batch_item (batch_id, ref, ordinal, input, resolution, answer)
             SELECT $1, x.ref, x.ord, x.input, x.resolution, x.answer FROM jsonb_to_recordset($2::jsonb) AS x(ref text, ord int, input jsonb, resolution jsonb, answer jsonb)`,
            [id, JSON.stringify(items.map((it, ord) => ({ ref: it.ref, ord, input: it.input, resolution: { status: it.status, resolution: it.resolution ?? null, jurisdiction: it.jurisdiction ?? null, error: it.error ?? null }, answer: it.answer ?? null })))],
          );
        });
      const keys = items.flatMap((i) => (i.key ? [`place:${i.key}`] : []));
      return { status: 201, item: { id, href: `/place/batch/${id}`, ...counts(items), item: items.map(({ key: _k, ...rest }) => rest) }, charge: { keys }, headers: { Location: `/place/batch/${id}` }, persist };
    },
  },
  {
    id: 'getPlaceBatch',
    method: 'GET',
    path: '/place/batch/{batch}',
    summary: 'What each location in a batch resolved to',
    tag: 'Ask about a place',
    credential: 'key',
    scope: 'place:read',
    form: 'plain',
    params: [{ name: 'batch', in: 'path', type: 'string', required: true }],
    handler: async (req) => {
      const id = requireId('batch', req.params.batch, 'batch');
      const items = await batchItems(req, id);
      return { item: { id, href: `/place/batch/${id}`, ...counts(items), item: items } };
    },
  },
  {
    id: 'overridePlaceBatchItem',
    method: 'PATCH',
    path: '/place/batch/{batch}/item/{ref}',
    summary: 'Override one match in a batch: name the parcel (or location) it should be',
    tag: 'Ask about a place',
    credential: 'key',
    scope: 'place:read',
    form: 'plain',
    params: [
      { name: 'batch', in: 'path', type: 'string', required: true },
      { name: 'ref', in: 'path', type: 'string', required: true },
    ],
    body: { ...LOCATION, properties: Object.fromEntries(Object.entries(LOCATION.properties).filter(([k]) => k !== 'ref')) },
    price: { credits: 1, per: 'call', note: 'One credit per override answered.' },
    // a location form no source can answer yet (plss) is the place answers' own 501
    refuses: ['not_available'],
    handler: async (req) => {
      const id = requireId('batch', req.params.batch, 'batch');
      const items = await batchItems(req, id);
      const target = items.find((i) => i.ref === req.params.ref);
      if (!target) throw notFound('batch item', `${id}/${req.params.ref}`);
      const out = await answerOne(req.services, req.body, undefined, placeAnswer);
      if (out.status !== 'answered') throw new ApiError((out.error?.code ?? 'parameter_invalid') as never, { field: out.error?.field ?? 'body', detail: out.error?.detail });
      await req.services.pool.query(
        `UPDATE place_batch_item SET resolution = $3, answer = $4, override = $5, overridden_at = now() WHERE batch_id = $1 AND ref = $2`,
        [id, req.params.ref, { status: out.status, resolution: out.resolution, jurisdiction: out.jurisdiction, error: null }, out.answer, req.body],
      );
      const updated = (await batchItems(req, id)).find((i) => i.ref === req.params.ref);
      return { item: updated };
    },
  },
  {
    id: 'createRuleBatch',
    method: 'POST',
    path: '/rule/batch',
    summary: 'The rule answer for up to 500 locations',
    tag: 'Ask about a place',
    credential: 'key',
    scope: 'place:read',
    form: 'plain',
    dryRun: true,
    body: { ...BATCH_BODY, properties: { item: BATCH_BODY.properties.item } },
    price: { credits: 1, per: 'item', repeatFreeHours: 24, note: 'One credit per location answered; free again for a day.', estimateUnits: (req) => req.body?.item?.length ?? 0 },
    handler: async (req) => {
      const items: Answered[] = [];
      for (const [i, item] of (req.body.item as Array<Record<string, any>>).entries()) {
        items.push({ ref: item.ref ?? String(i + 1), ...(await answerOne(req.services, item, [], ruleAnswer)) });
      }
      const keys = items.flatMap((i) => (i.key ? [`rule:${i.key}`] : []));
      return { item: { ...counts(items), item: items.map(({ key: _k, ...rest }) => rest) }, charge: { keys } };
    },
  },
]);
