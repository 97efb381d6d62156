// What every town-local answer (districts, codes) reads first and says around its items: the
// jurisdiction named in the path or query, the times asked (knowledge settled before a load of
// it in flight), and the coverage block of the layers that answer (rule 1.2.4).
import { ApiError, invalid } from '../../core/errors.ts';
import { type TimeValue, intervalNotice, resolveTimes, timeBlock } from '../../core/time.ts';
import type { Queryable } from '../../store/db.ts';
import type { JurisdictionRow } from '../../store/jurisdictions.ts';
import { loadFrame } from '../../store/place/frame.ts';
import { coverageBlock, earliestRetained, type SettledKnown, settledNotice, settleKnown } from '../place/common.ts';
import { jurisdictionByRef } from '../routes/jurisdiction.ts';

export interface Town {
  j: JurisdictionRow;
  asOf: TimeValue;
  knownAsOf: TimeValue;
  /** the knowledge instant answered */
  known: string;
  settled: SettledKnown | null;
  coverage: ReturnType<typeof coverageBlock>;
}

/**
 * The jurisdiction `ref` names, the times of `params`, and the coverage of `layers`. `field` names
 * the parameter: a path id naming nothing is 404, a query parameter naming nothing 422.
 */
export async function townContext(db: Queryable, ref: string, field: string, params: Parameters<typeof resolveTimes>[0], layers: string[], inQuery = false): Promise<Town> {
  const j = await jurisdictionByRef(db, ref, field).catch((e) => {
    if (inQuery && e instanceof ApiError && e.code === 'no_such_resource') throw invalid(field, `No jurisdiction is held as ${JSON.stringify(ref)}.`);
    throw e;
  });
  const resolved = resolveTimes(params, j.timezone);
  const { knownAsOf, settled } = await settleKnown(db, resolved.knownAsOf, [j.id]);
  const known = knownAsOf.kind === 'instant' ? knownAsOf.instant : knownAsOf.end;
  const asOf = resolved.asOf;
  const frame = await loadFrame(db, j.id, ['zoning'], { asOf: asOf.kind === 'instant' ? asOf.date : asOf.to, knownAsOf: known });
  const coverage = coverageBlock({ jurisdiction: { ...frame.jurisdiction, href: `/jurisdiction/${j.id}` }, frame }, layers);
  return { j, asOf, knownAsOf, known, settled, coverage };
}

/** The blocks beside the items: as_of (with the segments an interval answer has), coverage and notices. */
export function townExtra(t: Town, segmentCount = 1, changed: string[] = []) {
  const notice = [intervalNotice(segmentCount, changed), t.settled ? settledNotice(t.settled) : null].filter(Boolean);
  return {
    as_of: timeBlock({ asOf: t.asOf, knownAsOf: t.knownAsOf, timezone: t.j.timezone, earliestRetained: earliestRetained(t.coverage), segmentCount }),
    coverage: t.coverage,
    ...(notice.length ? { notice } : {}),
  };
}
