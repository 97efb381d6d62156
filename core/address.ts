// Street addresses normalized for matching against a jurisdiction's own records: upper case,
// no punctuation, street suffixes and directions in USPS abbreviations (Publication 28), unit
// designators split off into `unit`, and number ranges ("4-6 KIRKLAND PL") kept as each number.
// The matching key is "<number> <street>"; a range yields one key per number it names.

/** An address as records print it, split into its parts. */
export interface FullAddress {
  raw: string;
  recipient: string | null;
  street_line_1: string | null;
  street_line_2: string | null;
  street_number: string | null;
  street_name: string | null;
  unit: string | null;
  locality: string | null;
  region: string | null;
  postal_code: string | null;
  point: { lat: number; lon: number } | null;
}

const SUFFIXES: Record<string, string[]> = {
  ALY: ['ALLEY', 'ALLY'],
  AVE: ['AVENUE', 'AV', 'AVEN', 'AVENU', 'AVN', 'AVNUE'],
  BLVD: ['BOULEVARD', 'BOUL', 'BOULV'],
  BRG: ['BRIDGE'],
  CIR: ['CIRCLE', 'CIRC', 'CIRCL', 'CRCL', 'CRCLE'],
  CMN: ['COMMON'],
  CSWY: ['CAUSEWAY'],
  CT: ['COURT', 'CRT'],
  CTR: ['CENTER', 'CENTRE'],
  CRES: ['CRESCENT', 'CRSNT'],
  DR: ['DRIVE', 'DRIV', 'DRV'],
  EXPY: ['EXPRESSWAY'],
  EXT: ['EXTENSION'],
  GRN: ['GREEN'],
  HL: ['HILL'],
  HTS: ['HEIGHTS'],
  HWY: ['HIGHWAY', 'HIGHWY', 'HIWAY', 'HIWY', 'HWAY'],
  LNDG: ['LANDING'],
  LN: ['LANE'],
  PARK: ['PK', 'PRK'],
  PKWY: ['PARKWAY', 'PARKWY', 'PKWAY', 'PKY'],
  PL: ['PLACE'],
  PLZ: ['PLAZA', 'PLZA'],
  PT: ['POINT'],
  RD: ['ROAD'],
  RDG: ['RIDGE'],
  SQ: ['SQUARE', 'SQR', 'SQRE', 'SQU'],
  ST: ['STREET', 'STRT', 'STR'],
  TER: ['TERRACE', 'TERR'],
  TPKE: ['TURNPIKE', 'TRNPK', 'TURNPK'],
  TRL: ['TRAIL'],
  VW: ['VIEW'],
  WAY: ['WY'],
  WHRF: ['WHARF'],
  XING: ['CROSSING'],
};
const SUFFIX = new Map<string, string>();
for (const [abbr, forms] of Object.entries(SUFFIXES)) {
  SUFFIX.set(abbr, abbr);
  for (const f of forms) SUFFIX.set(f, abbr);
}
const DIRECTION: Record<string, string> = {
  NORTH: 'N', SOUTH: 'S', EAST: 'E', WEST: 'W', NORTHEAST: 'NE', NORTHWEST: 'NW', SOUTHEAST: 'SE', SOUTHWEST: 'SW',
};
const ORDINAL: Record<string, string> = {
  FIRST: '1ST', SECOND: '2ND', THIRD: '3RD', FOURTH: '4TH', FIFTH: '5TH',
  SIXTH: '6TH', SEVENTH: '7TH', EIGHTH: '8TH', NINTH: '9TH', TENTH: '10TH',
};
const LEADING: Record<string, string> = { SAINT: 'ST', MOUNT: 'MT', FORT: 'FT' };
const UNIT_WORDS = 'UNIT|APT|APARTMENT|STE|SUITE|FL|FLOOR|RM|ROOM|BLDG|BUILDING|LOT|SPACE|SPC|PH';
const UNIT_AT_END = new RegExp(`(?:^|\\s)(?:#\\s*|(?:${UNIT_WORDS})\\s*#?\\s*)([A-Z0-9][A-Z0-9-]*)\\s*$`);
const UNIT_ONLY = new RegExp(`^\\s*(?:#\\s*|(?:${UNIT_WORDS})\\s*#?\\s*)([A-Z0-9][A-Z0-9-]*)\\s*$`);
// a number with a letter, written either way ("126C", "126-C"), is one number: 126C
const NUMBER = /^(\d+(?:-?[A-Z](?![A-Z]))?(?: 1\/2)?)(?:\s*-\s*(\d+[A-Z]?(?: 1\/2)?))?\s+(.+)$/;

export interface NormalizedAddress {
  raw: string;
  normalized: string; // first number and street: "4 KIRKLAND PL"; the street alone when no number
  numbers: string[]; // as stated, upper case: ["4", "6"]
  street: string; // "KIRKLAND PL"
  unit: string | null;
  keys: string[]; // one matching key per number named (ranges of up to 20 expanded by parity)
}

function clean(s: string): string {
  return s
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toUpperCase()
    .replace(/['’`.]/g, '')
    .replace(/(\d)\s*1\/2\b/g, '$1 1/2')
    .replace(/[^A-Z0-9#/\s-]/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
}

/** A street name in matching form: "Monsignor O'Brien Highway" → "MONSIGNOR OBRIEN HWY". */
export function normalizeStreet(name: string): string {
  const words = clean(name).replace(/#/g, ' ').split(' ').filter(Boolean);
  const n = words.length;
  const isName = (w: string) => !SUFFIX.has(w) && !DIRECTION[w];
  return words
    .map((w, i) => {
      if (DIRECTION[w] && i === 0 && words.slice(1).some(isName)) return DIRECTION[w];
      if (DIRECTION[w] && i === n - 1 && i > 0 && words.slice(0, -1).some(isName)) return DIRECTION[w];
      const last = i === n - 1 || (i === n - 2 && DIRECTION[words[n - 1]] !== undefined);
      if (n > 1 && i > 0 && last && SUFFIX.has(w)) return SUFFIX.get(w)!;
      if (i === 0 && n > 1 && LEADING[w]) return LEADING[w];
      return ORDINAL[w] ?? w;
    })
    .join(' ');
}

function rangeKeys(numbers: string[], street: string): string[] {
  if (numbers.length === 0) return [street];
  const keys = new Set(numbers.map((x) => `${x} ${street}`));
  const [a, b] = numbers.map((x) => (/^\d+$/.test(x) ? Number(x) : Number.NaN));
  if (numbers.length === 2 && b > a && b - a <= 20) {
    for (let k = a; k <= b; k += a % 2 === b % 2 ? 2 : 1) keys.add(`${k} ${street}`);
  }
  return [...keys];
}

/** Splits "221 Monsignor O'Brien Hwy #3, Cambridge MA" into its matching parts. */
export function normalizeAddress(raw: string, unitGiven?: string | null): NormalizedAddress {
  const parts = raw.split(',').map(clean);
  let s = parts[0] ?? '';
  let unit: string | null = null;
  for (const p of parts.slice(1)) {
    const u = UNIT_ONLY.exec(p);
    if (u && !unit) unit = u[1];
  }
  const u = UNIT_AT_END.exec(s);
  if (u && u.index > 0) {
    unit = unit ?? u[1];
    s = s.slice(0, u.index).trim();
  }
  s = s.replace(/#/g, ' ').replace(/\s+/g, ' ').trim();
  const given = unitGiven ? clean(unitGiven).replace(/^#\s*/, '') : '';
  if (given) unit = given;
  const m = NUMBER.exec(s);
  const numbers = m ? [m[1], m[2]].filter((x): x is string => Boolean(x)).map((x) => x.replace(/^(\d+)-([A-Z])/, '$1$2')) : [];
  const street = normalizeStreet(m ? m[3] : s);
  const normalized = numbers.length ? `${numbers[0]} ${street}` : street;
  return { raw, normalized, numbers, street, unit, keys: rangeKeys(numbers, street) };
}

/** Every matching key an address stands for. */
export function addressKeys(raw: string): string[] {
  return normalizeAddress(raw).keys;
}

export interface AddressParts {
  locality?: string | null;
  region?: string | null;
  postal_code?: string | null;
  unit?: string | null;
  recipient?: string | null;
  street_line_2?: string | null;
}

const blankToNull = (s: string | null | undefined): string | null => {
  const t = (s ?? '').replace(/\s+/g, ' ').trim();
  return t === '' ? null : t;
};

/**
 * The spec's full address form, from a street line as printed and the parts a source states
 * separately. Number and name keep the source's spelling; nothing is filled in.
 */
export function fullAddress(streetLine: string, parts: AddressParts = {}): FullAddress {
  const printed = blankToNull(streetLine) ?? '';
  const norm = normalizeAddress(printed, parts.unit);
  let line1 = printed;
  const unitAtEnd = new RegExp(`\\s*,?\\s*(?:#|\\b(?:${UNIT_WORDS})\\b)\\s*#?\\s*[A-Za-z0-9][A-Za-z0-9-]*\\s*$`, 'i');
  if (norm.unit && unitAtEnd.test(line1) && !/^\s*(?:#|\b(?:UNIT|APT)\b)/i.test(line1)) line1 = line1.replace(unitAtEnd, '');
  const m = /^(\d+[A-Za-z]?(?:\s+1\/2)?(?:\s*-\s*\d+[A-Za-z]?(?:\s+1\/2)?)?)\s+(.+)$/.exec(line1);
  const tail = [parts.locality, parts.region, parts.postal_code].map(blankToNull).filter(Boolean).join(' ');
  const unitText = blankToNull(parts.unit);
  const street = unitText && !norm.unit?.length ? printed : unitText && !clean(printed).endsWith(clean(unitText)) ? `${printed} #${unitText}` : printed;
  const raw = [street, tail].filter(Boolean).join(', ');
  return {
    raw,
    recipient: blankToNull(parts.recipient),
    street_line_1: blankToNull(line1),
    street_line_2: blankToNull(parts.street_line_2),
    street_number: m ? m[1].replace(/\s*-\s*/, '-') : null,
    street_name: m ? m[2].trim() : blankToNull(line1),
    unit: norm.unit,
    locality: blankToNull(parts.locality),
    region: blankToNull(parts.region),
    postal_code: blankToNull(parts.postal_code),
    point: null,
  };
}
