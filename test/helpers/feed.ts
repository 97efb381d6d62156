// Change events a test writes for a jurisdiction of its own: event n of a run tagged `tag`.
import type { ChangeEventDraft } from '../../store/changes.ts';

/** Odd n an amendment of a district, even n a change of its map (or all amendments with `only`). */
export function eventDraft(jurisdictionId: string, tag: string, n: number, only?: 'amendment'): ChangeEventDraft {
  const amendment = only === 'amendment' || n % 2 === 1;
  return {
    jurisdictionId,
    kind: amendment ? 'amendment' : 'map_change',
    layer: amendment ? 'district' : 'district_map',
    subject: { type: 'district', code: `R-${n}` },
    fieldPath: `district.R-${n}.${tag}`,
    previous: { min: n },
    current: { min: n + 1 },
    effectiveDate: '2026-08-01',
    sourceVersionId: null,
  };
}
