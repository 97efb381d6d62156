// Monitors' permits and cases: called by the feed loader, in its transaction, with the records
// the load added. A record is matched when it is new (its id was never held before this load: a
// record read again, changed or not, is not), and a site of an active monitor's list held one of
// its parcels from before the load (a place added later is watched from when it was added), and
// the site's filter passes it. Each match: a permit.created or case.created event to the
// organization's subscribed webhooks, and its monitor_match row.
import type { Queryable } from '../db.ts';
import { readFilter, recordPasses } from './filter.ts';
import { anyActiveMonitor, type Watcher, writeMatch } from './match.ts';

const MATCHES_SQL = `
WITH rec AS (
  SELECT DISTINCT ON (r.id) r.id, r.kind, r.number, r.body, r.parcel_ids, r.jurisdiction_id
    FROM land_record r
   WHERE r.id = ANY($1::text[]) AND upper_inf(r.known)
     AND NOT EXISTS (SELECT 1 FROM land_record o WHERE o.id = r.id AND lower(o.known) < $2::timestamptz)
   ORDER BY r.id, r.fact_id DESC),
hit AS (
  SELECT rec.id AS record_id, x.item_id, x.parcel_id, x.position
    FROM rec CROSS JOIN LATERAL unnest(rec.parcel_ids) AS rp(parcel_id)
    JOIN list_item_parcel x ON x.parcel_id = rp.parcel_id AND x.added_at <= $2::timestamptz),
site AS (
  SELECT h.record_id, h.item_id,
         json_agg(json_build_object('id', h.parcel_id,
                  'number', (SELECT p.parcel_key FROM parcel p WHERE p.id = h.parcel_id ORDER BY p.fact_id DESC LIMIT 1)) ORDER BY h.position) AS parcels
    FROM hit h GROUP BY h.record_id, h.item_id)
SELECT rec.id, rec.kind, rec.number, rec.body, rec.parcel_ids, rec.jurisdiction_id, site.parcels,
       m.id AS monitor_id, m.organization_id, m.list_id, i.id AS item_id, i.name AS item_name, i.filter
  FROM site JOIN rec ON rec.id = site.record_id
  JOIN list_item i ON i.id = site.item_id
  JOIN monitor m ON m.list_id = i.list_id AND m.active AND m.deleted_at IS NULL
 WHERE NOT EXISTS (SELECT 1 FROM monitor_match mm WHERE mm.monitor_id = m.id AND mm.subject_id = rec.id AND mm.item_id = i.id)
 ORDER BY rec.number, rec.id, m.id, i.id`;

type Row = Record<string, any>;

/** The record as a monitor event carries it: enough to tell what it is, and where to read all of it. */
export function recordRef(r: Row) {
  const b = r.body ?? {};
  return {
    object: r.kind,
    id: r.id,
    number: r.number,
    type: b.type ?? null,
    status: b.status ?? null,
    description: b.description ?? null,
    dates: b.dates ?? null,
    parcels: (r.parcel_ids as string[]).map((id) => ({ id, href: `/parcel/${id}` })),
    jurisdiction: { id: r.jurisdiction_id, href: `/jurisdiction/${r.jurisdiction_id}` },
    href: `/v1/${r.kind}/${r.id}`,
  };
}

/** Match the records a load added (ids) and knows from `loadedAt`; returns how many matches were written. */
export async function matchNewRecords(db: Queryable, recordIds: string[], loadedAt: Date): Promise<number> {
  if (recordIds.length === 0 || !(await anyActiveMonitor(db))) return 0;
  const { rows } = await db.query(MATCHES_SQL, [recordIds, loadedAt]);
  let n = 0;
  for (const r of rows) {
    const passes = recordPasses(readFilter(r.filter), { kind: r.kind, type: r.body?.type?.code ?? null, status: r.body?.status?.code ?? null });
    if (!passes) continue;
    const isCase = r.kind === 'case';
    await writeMatch(db, {
      w: r as Watcher,
      kind: isCase ? 'case' : 'permit',
      type: isCase ? 'case.created' : 'permit.created',
      subjectId: r.id,
      seq: null,
      parcels: r.parcels,
      about: { [isCase ? 'case' : 'permit']: recordRef(r) },
    });
    n++;
  }
  return n;
}
