// The change feed (spec 4.8, 6.1): GET /change_event as a JSON collection that replays
// identically from since and known_as_of, or with Accept: text/event-stream a resumable stream
// (id = seq, event = layer, Last-Event-ID resumes after that seq) that also delivers new events.
// Without a scope the feed is every event (a replica's whole feed); a scope narrows it.
import { PassThrough } from 'node:stream';
import { invalid, notFound } from '../../core/errors.ts';
import { requireId } from '../../core/ids.ts';
import { resolveKnownAsOf } from '../../core/time.ts';
import { settledKnowledge } from '../../store/changes.ts';
import type { Queryable } from '../../store/db.ts';
import { collectionParams, timeParams } from '../../core/query/index.ts';
import { type Req, defineRoutes } from '../route.ts';
import { feedCoverage } from '../changes/coverage.ts';
import { COLUMNS, changeEvents, eventItem, type FeedParams, feedPage, KINDS, LAYERS } from '../changes/feed.ts';
import { CHANGE_EVENT } from '../schemas.ts';
import { SCOPE_PARAMS, resolveOptionalScope } from '../../core/query/scope.ts';

/** Events after a seq in the scope (every jurisdiction when ids is null) and filters, oldest first. */
async function eventsAfter(db: Queryable, after: number, ids: string[] | null, p: Record<string, any>, limit: number) {
  const { rows } = await db.query(
    `SELECT ${COLUMNS} FROM change_event e JOIN jurisdiction j ON j.id = e.jurisdiction_id
      WHERE e.seq > $1 ${ids ? 'AND e.jurisdiction_id = ANY($6::text[])' : ''}
        AND ($2::text[] IS NULL OR e.layer = ANY($2::text[])) AND ($3::text[] IS NULL OR e.kind = ANY($3::text[]))
        AND ($4::bigint IS NULL OR e.seq <= $4)
      ORDER BY e.seq LIMIT $5`,
    [after, p.layer ?? null, p.kind ?? null, p.until ?? null, limit, ...(ids ? [ids] : [])],
  );
  return rows;
}

function stream(req: Req, ids: string[] | null) {
  const header = req.ctx.get('last-event-id');
  let last = req.params.since as number;
  if (header) {
    if (!/^\d+$/.test(header)) throw invalid('Last-Event-ID', 'must be the seq of the last event received');
    last = Number(header);
  }
  const out = new PassThrough();
  const db = req.services.pool;
  let busy = false;
  let again = false;
  let ended = false;
  const end = () => {
    if (ended) return;
    ended = true;
    unsubscribe();
    clearInterval(beat);
    out.end();
  };
  const pump = async () => {
    if (busy) {
      again = true;
      return;
    }
    busy = true;
    try {
      do {
        again = false;
        const rows = await eventsAfter(db, last, ids, req.params, 500);
        for (const r of rows) {
          out.write(`id: ${r.seq}\nevent: ${r.layer}\ndata: ${JSON.stringify(eventItem(r))}\n\n`);
          last = Number(r.seq);
        }
        if (rows.length === 500) again = true;
        if (req.params.until !== undefined && last >= req.params.until) return end();
      } while (again && !ended);
    } catch (err) {
      req.log.warn('change stream failed', { err });
      end();
    } finally {
      busy = false;
    }
  };
  const unsubscribe = req.services.changes.subscribe((closing) => (closing ? end() : void pump()));
  const beat = setInterval(() => out.write(': keep-alive\n\n'), 15_000);
  req.ctx.req.on('close', end);
  out.write('retry: 2000\n\n');
  void pump();
  return out;
}

/** What a reader may trust of seq (issue 12, defect 7), for the OpenAPI document. */
const SEQ_DESCRIPTION = [
  'Events in seq order. seq is a watermark: an event is never visible before every event with a smaller seq is committed, so asking again with since = the last seq received loses nothing and repeats nothing.',
  'seq is increasing but not contiguous: a number taken by an insert that did not commit (a load that failed or was killed, a retried transaction) is never used again, so gaps are normal. A gap is not a missed event; never wait for one to fill.',
  'With known_as_of, since=N returns exactly the events with seq greater than N detected by then, on every repetition.',
  'Without a scope parameter the feed is every event of every jurisdiction (what a replica follows); a scope narrows it.',
  'The coverage block names the scope read (kind all when none was given), the layers read, each jurisdiction in scope with a source of those layers held (per layer: held, tier, last_retrieved_at, the oldest of its sources\' latest retrievals; last_changed_at; earliest_retained; source_layer) and the jurisdictions in scope with none held. It is what is held now; it does not follow known_as_of.',
].join(' ');

export const changeRoutes = defineRoutes([
  {
    id: 'listChangeEvents',
    method: 'GET',
    path: '/change_event',
    summary: 'The change feed: law changes in seq order (JSON, or a resumable event stream)',
    description: SEQ_DESCRIPTION,
    tag: 'Change and delivery',
    credential: 'key',
    scope: 'law:read',
    form: 'plain',
    collection: true,
    dryRun: true,
    response: CHANGE_EVENT,
    produces: ['text/event-stream'],
    price: { credits: 1, per: 'call', note: 'One credit per page or per stream opened.' },
    params: [
      { name: 'since', in: 'query', type: 'integer', required: true, min: 0, description: 'The seq watermark held: events after it. seq increases but is not contiguous; a gap is not a missed event.' },
      { name: 'until', in: 'query', type: 'integer', min: 0, description: 'The last seq wanted.' },
      { name: 'layer', in: 'query', type: 'array', items: { type: 'string', enum: LAYERS } },
      { name: 'kind', in: 'query', type: 'array', items: { type: 'string', enum: KINDS } },
      ...timeParams().filter((p) => p.name === 'known_as_of'),
      ...SCOPE_PARAMS,
      ...collectionParams(changeEvents).filter((p) => ['cursor', 'size'].includes(p.name)),
    ],
    handler: async (req) => {
      const db = req.services.pool;
      const scope = await resolveOptionalScope(db, req.params, { organizationId: req.actor?.organizationId });
      if (/text\/event-stream/.test(req.ctx.get('accept'))) {
        if (req.params.known_as_of) throw invalid('known_as_of', 'a stream follows what is detected now; use the JSON form to replay as of a time');
        return { raw: true, body: stream(req, scope?.ids ?? null), contentType: 'text/event-stream', headers: { 'Cache-Control': 'no-cache', 'X-Accel-Buffering': 'no' } };
      }
      const known = resolveKnownAsOf(req.params.known_as_of);
      const knownAt = known.kind === 'instant' ? known.instant : known.end;
      const p = req.params;
      const page = await feedPage(db, req.services.secret, scope, p as FeedParams, knownAt);
      const through = page.items.length ? page.items[page.items.length - 1].seq : p.since;
      const pinned = page.snapshot ?? knownAt;
      const coverage = await feedCoverage(db, scope, p.layer ?? [...LAYERS]);
      const settled = await settledKnowledge(db, pinned, coverage.jurisdictionIds);
      const notice = settled.size
        ? [{
            code: 'known_as_of_settled',
            severity: 'info',
            detail: `Loads of ${settled.size} jurisdiction${settled.size > 1 ? 's' : ''} in scope began before ${pinned} and were not committed by then; their events are given as known just before each load began (${[...settled].map(([j, t]) => `${j}: ${t}`).join(', ')}), and repeating the question gives the same events.`,
            count: settled.size,
            subject: [...settled.keys()].sort(),
          }]
        : undefined;
      return { item: page.items, page: page.page, meta: { answer_through: through }, extra: { coverage: coverage.block, as_of: { known_as_of: knownAt, known_as_of_basis: known.basis }, ...(notice ? { notice } : {}) } };
    },
  },
  {
    id: 'getChangeEvent',
    method: 'GET',
    path: '/change_event/{change_event}',
    summary: 'One change event',
    tag: 'Change and delivery',
    credential: 'key',
    scope: 'law:read',
    form: 'plain',
    response: CHANGE_EVENT,
    price: { credits: 1, per: 'call', note: 'One credit.' },
    params: [{ name: 'change_event', in: 'path', type: 'string', required: true }],
    handler: async (req) => {
      const id = requireId('change_event', req.params.change_event, 'change_event');
      const { rows } = await req.services.pool.query(`SELECT ${COLUMNS} FROM change_event e JOIN jurisdiction j ON j.id = e.jurisdiction_id WHERE e.id = $1`, [id]);
      if (!rows[0]) throw notFound('change event', id);
      return { item: eventItem(rows[0]) };
    },
  },
]);
