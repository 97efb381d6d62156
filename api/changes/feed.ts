// The change feed's JSON pages: events after a seq watermark, in seq order, as known at an
// instant. Read in order along the seq index, so a page stops at its size (change-feed-plan.test.ts).
import type { Queryable } from '../../store/db.ts';
import { type CollectionParams, type ResourceDef, runCollection } from '../../core/query/index.ts';
import type { Scope } from '../../core/query/scope.ts';

export const LAYERS = ['authority', 'district', 'district_map', 'overlay'] as const;
export const KINDS = ['adoption', 'amendment', 'repeal', 'map_change'] as const;
export const COLUMNS = `e.id, e.seq, e.kind, e.layer, e.subject, e.jurisdiction_id, e.field_path, e.previous, e.current,
  e.effective_date::text, e.adopted_on::text, e.detected_at, e.ordinance_id, e.source_version_id, j.name AS jurisdiction_name, j.slug`;

export const changeEvents: ResourceDef = {
  name: 'change_event',
  from: 'change_event e JOIN jurisdiction j ON j.id = e.jurisdiction_id',
  id: 'e.id',
  select: COLUMNS,
  defaultSort: 'seq',
  fields: {
    seq: { sql: 'e.seq', type: 'integer', sortable: true, nullable: false },
    kind: { sql: 'e.kind', type: 'enum', enum: KINDS },
    layer: { sql: 'e.layer', type: 'enum', enum: LAYERS },
    field_path: { sql: 'e.field_path', type: 'string' },
    effective_date: { sql: 'e.effective_date', type: 'date', sortable: true },
    detected_at: { sql: 'e.detected_at', type: 'timestamp' },
  },
};

export function eventItem(r: Record<string, any>) {
  return {
    id: r.id,
    object: 'change_event',
    seq: Number(r.seq),
    kind: r.kind,
    layer: r.layer,
    subject: r.subject,
    jurisdiction: { id: r.jurisdiction_id, name: r.jurisdiction_name, href: `/jurisdiction/${r.jurisdiction_id}` },
    effective_date: r.effective_date,
    detected_at: new Date(r.detected_at).toISOString(),
    field_path: r.field_path,
    previous: r.previous,
    current: r.current,
    adopted_on: r.adopted_on,
    ordinance: r.ordinance_id,
    source_version: r.source_version_id,
    href: `/change_event/${r.id}`,
  };
}

type Bind = { bind: (v: unknown, t?: string) => string };

export interface FeedParams extends CollectionParams {
  since: number;
  until?: number;
  layer?: string[];
  kind?: string[];
}

/** One page of the feed: every jurisdiction's events when scope is null, else the scope's. */
export function feedPage(db: Queryable, secret: Buffer, scope: Scope | null, p: FeedParams, knownAt: string) {
  return runCollection(db, changeEvents, { ...p, sort: undefined }, secret, {
    snapshot: knownAt,
    where: [
      (c) => `e.seq > ${c.bind(p.since, 'bigint')}`,
      ...(scope ? [(c: Bind) => `e.jurisdiction_id = ANY(${c.bind(scope.ids, 'text[]')})`] : []),
      // an event of a jurisdiction whose load was in flight at the instant (or whose settled
      // window holds it) is known only from after the window: the same on every repetition
      (c) => `e.detected_at <= ${c.snapshot} AND e.detected_at <= knowledge_settled(e.jurisdiction_id, ${c.snapshot})`,
      ...(p.until !== undefined ? [(c: Bind) => `e.seq <= ${c.bind(p.until, 'bigint')}`] : []),
      ...(p.layer ? [(c: Bind) => `e.layer = ANY(${c.bind(p.layer, 'text[]')})`] : []),
      ...(p.kind ? [(c: Bind) => `e.kind = ANY(${c.bind(p.kind, 'text[]')})`] : []),
    ],
    map: eventItem,
  });
}
