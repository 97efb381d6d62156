// U.S. states, DC and territories: postal code and FIPS code (census state codes).
import { ApiError } from './errors.ts';

export const STATES: ReadonlyArray<readonly [postal: string, fips: string]> = [
  ['AL', '01'], ['AK', '02'], ['AZ', '04'], ['AR', '05'], ['CA', '06'], ['CO', '08'], ['CT', '09'], ['DE', '10'],
  ['DC', '11'], ['FL', '12'], ['GA', '13'], ['HI', '15'], ['ID', '16'], ['IL', '17'], ['IN', '18'], ['IA', '19'],
  ['KS', '20'], ['KY', '21'], ['LA', '22'], ['ME', '23'], ['MD', '24'], ['MA', '25'], ['MI', '26'], ['MN', '27'],
  ['MS', '28'], ['MO', '29'], ['MT', '30'], ['NE', '31'], ['NV', '32'], ['NH', '33'], ['NJ', '34'], ['NM', '35'],
  ['NY', '36'], ['NC', '37'], ['ND', '38'], ['OH', '39'], ['OK', '40'], ['OR', '41'], ['PA', '42'], ['RI', '44'],
  ['SC', '45'], ['SD', '46'], ['TN', '47'], ['TX', '48'], ['UT', '49'], ['VT', '50'], ['VA', '51'], ['WA', '53'],
  ['WV', '54'], ['WI', '55'], ['WY', '56'], ['AS', '60'], ['GU', '66'], ['MP', '69'], ['PR', '72'], ['VI', '78'],
];

/** A state given as a postal code (any case) or a 2-digit FIPS code, as its FIPS code. */
export function stateFips(raw: string, field = 'state'): string {
  const v = raw.trim().toUpperCase();
  const found = STATES.find(([postal, fips]) => postal === v || fips === v);
  if (found) return found[1];
  if (!/^([A-Z]{2}|\d{2})$/.test(v)) {
    throw new ApiError('parameter_invalid', { field, detail: `${JSON.stringify(raw)} is not a state: send a postal code (MA) or a 2-digit FIPS code (25)` });
  }
  throw new ApiError('vocabulary_value_unknown', { field, detail: `${JSON.stringify(raw)} is not a U.S. state, DC or territory code` });
}

export function statePostal(fips: string): string | null {
  return STATES.find(([, f]) => f === fips)?.[0] ?? null;
}
