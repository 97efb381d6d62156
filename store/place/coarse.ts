// Locations coarser than a parcel given as text: a street without a number, a place name
// ("Cambridge", "Cambridge, MA", "City of Chicago"), a state ("MA", "Illinois") or a ZIP code.
// The place is looked up among the jurisdictions held (name, legal name, state), never in a list
// of its own; the answer is the grain that can be defended (resolve.ts makes it a resolution).
import { ApiError } from '../../core/errors.ts';
import { FOLD_SQL, readPlaceText, stateName, stateOf } from '../../core/place-text.ts';
import type { Queryable } from '../db.ts';
import type { Candidate, Resolved, Within } from './resolve.ts';

export type Coarse = Partial<Resolved> & Pick<Resolved, 'grain' | 'input'>;

interface Named {
  id: string;
  name: string;
  type: string;
  level: string;
  state_postal: string;
  basis: string;
}

/** Held jurisdictions whose name, legal name, "<type> of <name>" or "<name> <type>" is the folded text. */
async function jurisdictionsNamed(db: Queryable, folded: string, state: string | null, states: boolean, ids: string[] | null): Promise<Named[]> {
  const { rows } = await db.query(
    `SELECT * FROM (
       SELECT j.id, j.name, j.type, j.level, j.state_postal,
              CASE WHEN ${FOLD_SQL('j.name')} = $1 THEN 'its name'
                   WHEN ${FOLD_SQL('j.legal_name')} = $1 THEN 'its legal name'
                   WHEN ${FOLD_SQL("j.type || ' of ' || j.name")} = $1 OR ${FOLD_SQL("j.name || ' ' || j.type")} = $1 THEN 'its name with its type' END AS basis
         FROM jurisdiction j
        WHERE ($2::text IS NULL OR j.state_postal = $2) AND ($3::boolean OR j.level <> 'state') AND ($4::text[] IS NULL OR j.id = ANY($4))) x
      WHERE basis IS NOT NULL ORDER BY state_postal, name, id`,
    [folded, state, states, ids],
  );
  return rows;
}

/** The held jurisdictions (at most two) with an address on a street of this name, among `ids` when given. */
async function streetHeld(db: Queryable, street: string, ids: string[] | null): Promise<string[] | null> {
  const { rows } = await db.query(`SELECT DISTINCT jurisdiction_id FROM address_point WHERE normalized LIKE '% ' || $1 AND ($2::text[] IS NULL OR jurisdiction_id = ANY($2)) LIMIT 2`, [street, ids]);
  return rows.length ? rows.map((r) => r.jurisdiction_id) : null;
}

const idsInState = async (db: Queryable, postal: string): Promise<string[]> => (await db.query('SELECT id FROM jurisdiction WHERE state_postal = $1', [postal])).rows.map((r) => r.id);

const zipNote = (zip: string) => `ZIP code ${zip} names a postal delivery area, and nothing held maps ZIP codes to places`;

/** A state: the state jurisdiction when held, else none, saying which jurisdictions of it are held. */
async function atState(db: Queryable, postal: string, input: string, lead: string): Promise<Coarse> {
  const { rows } = await db.query(`SELECT id, name FROM jurisdiction WHERE level = 'state' AND state_postal = $1 ORDER BY id LIMIT 1`, [postal]);
  if (rows[0]) return { grain: 'jurisdiction', input, jurisdiction: rows[0].id, detail: `${lead}: answered for the state of ${rows[0].name}, with no district` };
  const held = await db.query('SELECT name FROM jurisdiction WHERE state_postal = $1 ORDER BY name LIMIT 6', [postal]);
  const names = held.rows.map((r) => r.name);
  return {
    grain: 'jurisdiction',
    input,
    detail: `${lead}: no jurisdiction for the state of ${stateName(postal)} is held, so it is not placed${names.length ? ` (held in it: ${names.slice(0, 5).join(', ')}${names.length > 5 ? ', …' : ''})` : ''}; GET /coverage lists what is held`,
  };
}

/**
 * A location given as text without a house number. `street` is its first part as a street name
 * (normalizeAddress); `within`, when given, is where the location must lie.
 */
export async function fromPlaceText(db: Queryable, address: string, street: string, within?: Within): Promise<Coarse> {
  const p = readPlaceText(address);
  const input = `address ${address}`;
  const asked = JSON.stringify(address.trim());
  const zipPart = p.zip ? `; ${zipNote(p.zip)}, so it is not used` : '';
  if (p.locality) {
    let state = p.state;
    const ids = within?.ids ?? null;
    let found = await jurisdictionsNamed(db, p.locality, state, !p.stateApart, ids);
    if (found.length === 0 && p.whole) {
      // "Pine Ct": the last word was no state after all
      found = await jurisdictionsNamed(db, p.whole, null, true, ids);
      if (found.length) state = null;
    }
    if (found.length === 1) {
      const j = found[0];
      if (p.street) {
        const on = await streetHeld(db, street, [j.id]);
        if (on) return { grain: 'street', input, jurisdiction: j.id, detail: `a street of ${j.name} without a house number: no parcel can be named${zipPart}` };
      }
      const lead = p.street ? `no street of ${j.name} held is named ${JSON.stringify(street)}; ` : '';
      return { grain: 'jurisdiction', precision: 'normalized_match', input, jurisdiction: j.id, detail: `${lead}${asked} names ${j.name} (${j.type}, ${j.state_postal}) by ${j.basis}, a jurisdiction, not a place in it: answered for the jurisdiction, with no district${zipPart}` };
    }
    if (found.length > 1) {
      const candidates: Candidate[] = found.map((j) => ({ label: `${j.name}, ${j.state_postal} (${j.type})`, parcel: null, parcel_key: null, jurisdiction: j.id, score: 1, basis: `${j.basis} is the place asked` }));
      return {
        state: 'ambiguous',
        grain: 'jurisdiction',
        input,
        candidates,
        detail: `${asked} names ${found.length} jurisdictions held; they tie (each by ${[...new Set(found.map((j) => j.basis))].join(' or ')}) and are listed by state and name: name the state, or the jurisdiction by its id`,
      };
    }
    const bare = !state && !p.street ? stateOf(p.locality) : null;
    if (bare) return atState(db, bare, input, `${asked} names a state${zipPart}`);
  } else if (p.state) {
    return atState(db, p.state, input, `${asked} names a state${zipPart}`);
  } else if (p.zip) {
    return { grain: 'jurisdiction', input, detail: `${zipNote(p.zip)}: the location is not placed` };
  }
  // "Harvard Sq, Boston, MA" with no Boston held: the street is not looked for elsewhere
  if (p.locality && p.street && p.state && p.stateApart) return atState(db, p.state, input, `no jurisdiction held in ${p.state} is named ${JSON.stringify(p.locality)}${zipPart}`);
  // a street without a number names no parcel: answer at the grain it can defend
  const scope = within?.ids ?? (p.state && p.stateApart ? await idsInState(db, p.state) : null);
  const on = await streetHeld(db, street, scope);
  if (on) return { grain: 'street', input, jurisdiction: on.length === 1 ? on[0] : null, detail: 'a street without a house number: no parcel can be named' };
  const what = p.locality ?? street;
  if (p.state && p.stateApart) return atState(db, p.state, input, `no jurisdiction or street held in ${p.state} is named ${JSON.stringify(what)}${zipPart}`);
  if (p.zip) return { grain: 'jurisdiction', input, detail: `no jurisdiction or street held is named ${JSON.stringify(what)}; ${zipNote(p.zip)}: the location is not placed` };
  throw new ApiError('location_unmatched', { field: 'address', detail: `No jurisdiction or street held${within ? ` in ${within.label}` : ''} is named ${JSON.stringify(what)}.` });
}
