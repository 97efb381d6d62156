// The /rule includes read from the store where it holds them (held.ts says which, and why not):
// definitions, standalone ordinances, future land use and provenance, at one date; and the
// includes the answer could not consult, named with why.
import type { Queryable } from '../../store/db.ts';
import { authorities } from '../../store/place/law.ts';
import type { Times } from '../../store/place/resolve.ts';
import { definitionsFor, subjectsOf } from './definitions.ts';
import { futureLandUseAt } from './future-land-use.ts';
import type { Held } from './held.ts';
import { standaloneOrdinances } from './ordinances.ts';
import { provenanceOf } from './provenance.ts';

export interface IncludeQuery {
  jurisdictionId: string;
  /** the location, null when it is placed in no district */
  geojson: string | null;
  point: string | null;
  include: Set<string>;
  held: Map<string, Held>;
}

const isHeld = (q: IncludeQuery, layer: string) => q.include.has(layer) && Boolean(q.held.get(layer)?.held);

/** The included sections of the rule answer at one date (provenance last: it covers the others). */
export async function ruleIncludes(db: Queryable, q: IncludeQuery, item: Record<string, unknown>, t: Times) {
  const out: Record<string, unknown> = {};
  if (isHeld(q, 'definition')) out.definition = await definitionsFor(db, q.jurisdictionId, subjectsOf(item), t);
  if (isHeld(q, 'standalone_ordinance')) out.standalone_ordinance = await standaloneOrdinances(db, q.jurisdictionId, t);
  if (isHeld(q, 'future_land_use') && q.geojson) out.future_land_use = await futureLandUseAt(db, q.jurisdictionId, q.geojson, q.point, t);
  if (q.include.has('provenance')) {
    const auth = await authorities(db, q.jurisdictionId, ['zoning'], t);
    out.provenance = await provenanceOf(db, { ...item, ...out }, { jurisdictionId: q.jurisdictionId, geojson: q.geojson, authorities: auth }, t);
  }
  return out;
}

/** The includes asked for that the answer does not consult, with why (`coarse`: why a location placed in no district reaches no area). */
export function includesNotConsulted(q: IncludeQuery, coarse: string) {
  const out: Array<{ layer: string; via: 'include'; reason: string }> = [];
  for (const layer of q.include) {
    const h = q.held.get(layer);
    if (layer === 'aggregate') out.push({ layer, via: 'include', reason: 'aggregates are not computed' });
    else if (h && !h.held) out.push({ layer, via: 'include', reason: h.reason! });
    else if (h && layer === 'future_land_use' && !q.geojson) out.push({ layer, via: 'include', reason: coarse });
  }
  return out;
}
