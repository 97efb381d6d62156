// A district's precedence, where an overlay applies and the ordinance that adopted it, as the
// store holds them. A value not held is null and listed in `withheld` with the reason, worked
// out from what is held (a zoning text, a map, the ordinances): never a stand-in.
import type { Amendment, Held } from '../../store/district-standing.ts';

export interface Withheld {
  field: string;
  reason: string;
}

export interface StandingOf {
  code: string;
  kind: string;
  precedence_rank: number | null;
  /** the kind of source the district's row came from (code_text, district_list, district_map, overlay_map) */
  source_kind: string;
}

export interface StandingContext {
  jurisdiction: string;
  held: Held;
  asOf: string;
}

const sourceName = (kind: string) => kind.replace(/_/g, ' ');

/** `{rank, basis, citation, withheld}`: a rank only where one is held. */
export function precedenceView(d: StandingOf, c: StandingContext) {
  if (d.precedence_rank !== null) {
    return { rank: d.precedence_rank, basis: 'stated', citation: null, withheld: [{ field: 'citation', reason: `The passage stating the rank of ${d.code} is not held.` }] };
  }
  const reason = c.held.text
    ? `No precedence for ${d.code} is read from the zoning text held for ${c.jurisdiction}.`
    : `No zoning text is held for ${c.jurisdiction}; the ${sourceName(d.source_kind)} that states ${d.code} states no precedence.`;
  return { rank: null, basis: null, citation: null, withheld: [{ field: 'rank', reason }] as Withheld[] };
}

/** `{scope, codes, citation, withheld}` of an overlay: mapped_area where a map held draws it. */
export function appliesOverView<C>(d: StandingOf, c: StandingContext, mapped: boolean, mapCitation: C | null) {
  const withheld: Withheld[] = [];
  if (!mapped) withheld.push({ field: 'scope', reason: `No map held draws ${d.code} in force on ${c.asOf}.` });
  withheld.push({
    field: 'codes',
    reason: c.held.text
      ? `The base districts ${d.code} applies over are not read from the zoning text held for ${c.jurisdiction}.`
      : `No zoning text is held for ${c.jurisdiction} to state the base districts ${d.code} applies over.`,
  });
  return { scope: mapped ? 'mapped_area' : null, codes: null, citation: mapped ? mapCitation : null, withheld };
}

/** The adoption date of the ordinance that last changed the district, and that ordinance; else withheld. */
export function adoptionView<C>(d: StandingOf, c: StandingContext, a: Amendment | undefined, cite: (id: string | null) => C | null) {
  if (a) {
    return { adopted: a.adopted_on, adopted_by: { id: a.id, number: a.number, title: a.title, effective: a.effective_date, citation: cite(a.citation_id) }, withheld: [] as Withheld[] };
  }
  const reason =
    c.held.ordinances === 0
      ? `No ordinance of ${c.jurisdiction} is held, so the one that adopted ${d.code} is not known.`
      : `None of the ${c.held.ordinances} ordinances held for ${c.jurisdiction} is known to have adopted or amended ${d.code} as in force on ${c.asOf}.`;
  return { adopted: null, adopted_by: null, withheld: [{ field: 'adopted', reason }] };
}
