// Place text coarser than a street address ("Cambridge", "Cambridge, MA 02139", "MA", "02139"),
// read into its parts by structure only: a trailing ZIP code, a trailing state (postal code or
// name), the locality before it and anything before that. Which place the parts name is the
// store's question (store/place/resolve.ts), asked of the jurisdictions held.
import { STATES } from './states.ts';

/** State names by postal code (the Census names of the states, DC and territories in STATES). */
const STATE_NAMES: Record<string, string> = {
  AL: 'Alabama', AK: 'Alaska', AZ: 'Arizona', AR: 'Arkansas', CA: 'California', CO: 'Colorado', CT: 'Connecticut', DE: 'Delaware',
  DC: 'District of Columbia', FL: 'Florida', GA: 'Georgia', HI: 'Hawaii', ID: 'Idaho', IL: 'Illinois', IN: 'Indiana', IA: 'Iowa',
  KS: 'Kansas', KY: 'Kentucky', LA: 'Louisiana', ME: 'Maine', MD: 'Maryland', MA: 'Massachusetts', MI: 'Michigan', MN: 'Minnesota',
  MS: 'Mississippi', MO: 'Missouri', MT: 'Montana', NE: 'Nebraska', NV: 'Nevada', NH: 'New Hampshire', NJ: 'New Jersey', NM: 'New Mexico',
  NY: 'New York', NC: 'North Carolina', ND: 'North Dakota', OH: 'Ohio', OK: 'Oklahoma', OR: 'Oregon', PA: 'Pennsylvania', RI: 'Rhode Island',
  SC: 'South Carolina', SD: 'South Dakota', TN: 'Tennessee', TX: 'Texas', UT: 'Utah', VT: 'Vermont', VA: 'Virginia', WA: 'Washington',
  WV: 'West Virginia', WI: 'Wisconsin', WY: 'Wyoming', AS: 'American Samoa', GU: 'Guam', MP: 'Northern Mariana Islands', PR: 'Puerto Rico', VI: 'Virgin Islands',
};

const COUNTRY = new Set(['US', 'USA', 'U S', 'U S A', 'UNITED STATES', 'UNITED STATES OF AMERICA']);

/**
 * A name in matching form: upper case, apostrophes and periods dropped, every other run of
 * characters that is not A-Z or 0-9 one space. The SQL twin is FOLD_SQL: both must agree.
 */
export function foldName(s: string): string {
  return s
    .toUpperCase()
    .replace(/['’`.]/g, '')
    .replace(/[^A-Z0-9]+/g, ' ')
    .trim();
}

/** The same fold in SQL, over the expression `x`. */
export const FOLD_SQL = (x: string) => `btrim(regexp_replace(regexp_replace(upper(${x}), '[''’\`.]', '', 'g'), '[^A-Z0-9]+', ' ', 'g'))`;

const BY_TEXT = new Map<string, string>();
for (const [postal] of STATES) {
  BY_TEXT.set(postal, postal);
  if (STATE_NAMES[postal]) BY_TEXT.set(foldName(STATE_NAMES[postal]), postal);
}

/** The postal code of a state written as its postal code or its name (folded text), else null. */
export function stateOf(folded: string): string | null {
  return BY_TEXT.get(folded) ?? null;
}

export function stateName(postal: string): string {
  return STATE_NAMES[postal] ?? postal;
}

export interface PlaceText {
  /** the place before the state: "CAMBRIDGE" (null when only a state or ZIP was given) */
  locality: string | null;
  /** what precedes the locality, comma-separated: "HARVARD SQ" in "Harvard Sq, Cambridge, MA" */
  street: string | null;
  /** the state's postal code, when stated */
  state: string | null;
  /** the state stood apart (after a comma, or alone) rather than as the locality's last word */
  stateApart: boolean;
  /** when the state was read off the locality's last words: the locality with them (to read again without the state) */
  whole: string | null;
  zip: string | null;
}

/** Reads "City, ST ZIP" and its shorter forms; the parts are folded (foldName). */
export function readPlaceText(raw: string): PlaceText {
  const parts = raw.split(',').map(foldName).filter(Boolean);
  while (parts.length > 1 && COUNTRY.has(parts[parts.length - 1])) parts.pop();
  let zip: string | null = null;
  const z = parts.length ? /^(?:(.*?)\s+)?(\d{5})(?:\s+\d{4})?$/.exec(parts[parts.length - 1]) : null;
  if (z) {
    zip = z[2];
    if (z[1]) parts[parts.length - 1] = z[1];
    else parts.pop();
  }
  let state: string | null = null;
  let stateApart = false;
  let whole: string | null = null;
  const last = parts[parts.length - 1];
  if (parts.length >= 2 && stateOf(last)) {
    state = stateOf(last);
    stateApart = true;
    parts.pop();
  } else if (parts.length === 1 && stateOf(last) && zip) {
    // "MA 02139": a state and its ZIP code
    state = stateOf(last);
    stateApart = true;
    parts.pop();
  } else if (last) {
    // "Cambridge MA", "Cambridge Massachusetts": a state as the last words, tentatively
    const words = last.split(' ');
    for (let n = Math.min(3, words.length - 1); n >= 1 && !state; n--) {
      const s = stateOf(words.slice(-n).join(' '));
      if (s) {
        state = s;
        whole = last;
        parts[parts.length - 1] = words.slice(0, -n).join(' ');
      }
    }
  }
  const locality = parts.length ? parts[parts.length - 1] : null;
  const street = parts.length > 1 ? parts.slice(0, -1).join(', ') : null;
  return { locality, street, state, stateApart, whole, zip };
}
