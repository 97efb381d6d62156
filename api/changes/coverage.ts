// The coverage block of the change feed (spec 1.2.4): which jurisdictions and layers the feed
// reads, whether the sources whose loads write each layer's events are held, and how fresh they are.
import type { Queryable } from '../../store/db.ts';
import type { Scope } from '../../core/query/scope.ts';

/**
 * The coverage layers whose loads write each feed layer's events (store/load: district-list,
 * code-text and ordinances write `district`; maps write `district_map` and `overlay`). The
 * manifest's authorities are loaded without change events, so `authority` has no source layer.
 */
export const FEED_SOURCES: Record<string, string[]> = {
  authority: [],
  district: ['district_list', 'zoning_text', 'ordinance'],
  district_map: ['district_map'],
  overlay: ['overlay'],
};

interface Row {
  id: string;
  name: string;
  layer: string | null;
  tier: string;
  last_retrieved_at: Date | null;
  last_changed_at: Date | null;
  earliest_retained: string | null;
}

const iso = (d: Date | null) => (d ? d.toISOString() : null);

/** One feed layer of one jurisdiction, from the held rows of its source layers. */
function layerEntry(name: string, rows: Row[]) {
  const sources = FEED_SOURCES[name];
  const held = rows.filter((r) => r.layer && sources.includes(r.layer));
  if (!sources.length) return { held: false, tier: 'none', reason: 'no source writes change events of this layer: the manifest states authorities, and their changes are not detected' };
  if (!held.length) return { held: false, tier: 'none', reason: `no source of ${sources.join(', ')} is held` };
  const times = (k: 'last_retrieved_at' | 'last_changed_at') => held.map((r) => r[k]?.getTime()).filter((t): t is number => t !== undefined);
  const retrieved = times('last_retrieved_at');
  const changed = times('last_changed_at');
  const retained = held.map((r) => r.earliest_retained).filter((d): d is string => d !== null).sort();
  return {
    held: true,
    tier: held.every((r) => r.tier === 'full') ? 'full' : 'partial',
    // conservative over the sources: every one was read at least this recently, and kept from this date
    last_retrieved_at: retrieved.length === held.length ? iso(new Date(Math.min(...retrieved))) : null,
    last_changed_at: changed.length ? iso(new Date(Math.max(...changed))) : null,
    earliest_retained: retained.length === held.length ? retained[retained.length - 1] : null,
    source_layer: held.map((r) => r.layer as string).sort(),
  };
}

/**
 * The block: the scope read (`all` when none was given), the feed layers read, each jurisdiction
 * in scope with at least one of them held, and which in scope have none held; with the ids of
 * every jurisdiction in scope. It is what is held now: coverage keeps no history, so it does not
 * follow known_as_of.
 */
export async function feedCoverage(db: Queryable, scope: Scope | null, layers: string[]) {
  const sourceLayers = layers.flatMap((l) => FEED_SOURCES[l]);
  const { rows } = await db.query<Row>(
    `SELECT j.id, j.name, c.layer, c.tier, c.last_retrieved_at, c.last_changed_at, c.earliest_retained::text
       FROM jurisdiction j LEFT JOIN coverage c ON c.jurisdiction_id = j.id AND c.held AND c.layer = ANY($2::text[])
      WHERE $1::text[] IS NULL OR j.id = ANY($1::text[])
      ORDER BY j.id, c.layer`,
    [scope?.ids ?? null, sourceLayers],
  );
  const byJurisdiction = new Map<string, Row[]>();
  for (const r of rows) byJurisdiction.set(r.id, [...(byJurisdiction.get(r.id) ?? []), r]);
  const jurisdiction = [];
  const notHeld: string[] = [];
  for (const [id, rs] of byJurisdiction) {
    if (!rs.some((r) => r.layer)) {
      notHeld.push(id);
      continue;
    }
    const layer = Object.fromEntries(layers.map((l) => [l, layerEntry(l, rs)]));
    jurisdiction.push({ id, name: rs[0].name, href: `/coverage?jurisdiction=${id}`, layer });
  }
  const block = {
    scope: scope ? { kind: scope.kind, label: scope.label } : { kind: 'all' },
    layer: layers,
    jurisdiction,
    not_held: { count: notHeld.length, jurisdiction: notHeld },
  };
  return { block, jurisdictionIds: [...byJurisdiction.keys()] };
}
