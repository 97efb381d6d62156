// Whether the store holds a layer an answer can be asked to include, for one jurisdiction on the
// dates asked, and when it holds nothing, why: read from the layer's coverage row (its sources,
// a problem a source recorded) and from the table that would hold the layer's facts.
import type { Queryable } from '../../store/db.ts';
import { DEFINITIONS_HEADING } from '../../store/definitions.ts';
import type { CoverageSources } from '../../store/place/frame.ts';
import type { Times } from '../../store/place/resolve.ts';

/**
 * How each layer is read: the coverage layer whose sources fill it; `probe`, a statement over
 * $1 jurisdiction, $3 as_of date and $4 known_as_of instant saying whether its table holds
 * anything then (without one, the coverage row alone says whether it is held); and `unread`,
 * what is missing when the sources are held but nothing is read from them into any table.
 */
interface LayerRead {
  coverage: string;
  what?: string;
  probe?: string;
  unread?: string;
}

const inForce = `jurisdiction_id = $1 AND valid @> $3::date AND known @> $4::timestamptz`;


const LAYERS: Record<string, LayerRead> = {
  zoning_text: { coverage: 'zoning_text' },
  district_map: { coverage: 'district_map' },
  overlay: { coverage: 'overlay' },
  ordinance: { coverage: 'ordinance' },
  future_land_use: { coverage: 'future_land_use', what: 'future land use area', probe: `EXISTS (SELECT 1 FROM district_area WHERE ${inForce} AND kind = 'future_land_use')` },
  property: { coverage: 'assessor', what: 'property record', probe: `EXISTS (SELECT 1 FROM property WHERE ${inForce})` },
  definition: { coverage: 'zoning_text', what: 'section headed Definitions', probe: `EXISTS (SELECT 1 FROM section WHERE ${inForce} AND heading ~* '${DEFINITIONS_HEADING}')` },
  standalone_ordinance: { coverage: 'ordinance', what: 'standalone ordinance', probe: `EXISTS (SELECT 1 FROM ordinance WHERE ${inForce} AND kind = 'standalone')` },
  special_district: { coverage: 'special_district', unread: 'no special district is read from them into the store' },
  context_layer: { coverage: 'context_layer', unread: 'no context layer feature is read from them into the store' },
  private_restriction: { coverage: 'recorder', unread: 'no private restriction (covenant, easement) is read from their instruments' },
  nonconformity: { coverage: 'assessor', unread: 'the structures they list are not compared with the controls' },
};

export interface Held {
  layer: string;
  /** the coverage layer whose sources would hold it */
  coverage: string;
  held: boolean;
  /** why nothing is held (null when held) */
  reason: string | null;
}

/** A coverage row as the place frame holds it (store/place/frame.ts), or as read here. */
interface CoverageRow {
  layer: string;
  held: boolean;
  sources: CoverageSources | null;
}

/** Whether the layer can be read by `heldLayers`. */
export const isHeldLayer = (layer: string) => layer in LAYERS;

function problems(row: CoverageRow): string[] {
  return Object.entries(row.sources ?? {})
    .filter(([, s]) => s.problem)
    .map(([key, s]) => `source ${key} failed${s.problem!.stage ? ` at ${s.problem!.stage}` : ''}${s.problem!.at ? ` on ${s.problem!.at.slice(0, 10)}` : ''}: ${s.problem!.reason ?? 'no reason recorded'}`);
}

const heldSources = (row: CoverageRow) => Object.entries(row.sources ?? {}).filter(([, s]) => s.held).map(([k]) => k);

/** Why a layer holds nothing, from its coverage row and whether its table holds anything then. */
function reasonFor(read: LayerRead, row: CoverageRow | undefined, name: string, t: Times): string {
  if (!row) return `no source of the ${read.coverage} layer is held for ${name}`;
  const failed = problems(row);
  if (!row.held) return `no source of the ${read.coverage} layer is held for ${name}${failed.length ? `: ${failed.join('; ')}` : ''}`;
  const sources = heldSources(row);
  const named = `the ${read.coverage} sources held for ${name}${sources.length ? ` (${sources.join(', ')})` : ''}`;
  const gap = read.probe ? `hold no ${read.what} in force on ${t.asOf} as known at ${t.knownAsOf}` : `are held, but ${read.unread}`;
  return `${named} ${gap}${failed.length ? `; ${failed.join('; ')}` : ''}`;
}

/**
 * Whether each layer is held for the jurisdiction on the dates, with the reason when it is not: at
 * most one statement, none when the caller has the jurisdiction's coverage rows (its place frame)
 * and no layer asked needs its table probed (with a probe, the rows are read in the same statement).
 */
export async function heldLayers(db: Queryable, jurisdiction: { id: string; name: string }, layers: string[], t: Times, framed?: CoverageRow[]): Promise<Map<string, Held>> {
  const asked = [...new Set(layers)].filter(isHeldLayer);
  const out = new Map<string, Held>();
  if (!asked.length) return out;
  const probed = asked.filter((l) => LAYERS[l].probe);
  const rows =
    framed && !probed.length
      ? [{ coverage: framed }]
      : (
          await db.query(
            `SELECT (SELECT COALESCE(json_agg(c), '[]') FROM (SELECT layer, held, detail->'sources' AS sources FROM coverage WHERE jurisdiction_id = $1 AND layer = ANY($2::text[])) c) AS coverage
                    ${probed.map((l, i) => `, ${LAYERS[l].probe} AS p${i}`).join('')}`,
            [jurisdiction.id, asked.map((l) => LAYERS[l].coverage), ...(probed.length ? [t.asOf, t.knownAsOf] : [])],
          )
        ).rows;
  const coverage = new Map((rows[0].coverage as CoverageRow[]).map((r) => [r.layer, r]));
  for (const layer of asked) {
    const read = LAYERS[layer];
    const row = coverage.get(read.coverage);
    const held = read.probe ? Boolean(rows[0][`p${probed.indexOf(layer)}`]) : read.unread ? false : Boolean(row?.held);
    out.set(layer, { layer, coverage: read.coverage, held, reason: held ? null : reasonFor(read, row, jurisdiction.name, t) });
  }
  return out;
}
