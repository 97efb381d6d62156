// Reading single cell values. Each reader returns the value, null for an empty cell, or an
// error naming what was wrong; it never guesses a value the text does not state.

export interface Read<T> {
  value: T | null;
  error?: string;
}

const ok = <T>(value: T | null): Read<T> => ({ value });
const none = <T>(): Read<T> => ({ value: null });
const bad = <T>(error: string): Read<T> => ({ value: null, error });

const NUMBER = /^[-+]?(?:\d{1,3}(?:,\d{3})+|\d+)?(?:\.\d+)?$/;

export function readNumber(text: string): Read<number> {
  const t = text.trim().replace(/^\$\s*/, '');
  if (t === '') return none();
  if (!NUMBER.test(t) || !/\d/.test(t)) return bad(`not a number: "${text.trim()}"`);
  const n = Number(t.replace(/,/g, ''));
  return Number.isFinite(n) ? ok(n) : bad(`not a number: "${text.trim()}"`);
}

export function readInteger(text: string): Read<number> {
  const r = readNumber(text);
  if (r.error || r.value === null) return r;
  return Number.isInteger(r.value) ? r : bad(`not a whole number: "${text.trim()}"`);
}

/** Dollars as printed ("$1,426,800", "20340.00") to integer cents; negative amounts are errors. */
export function readCents(text: string): Read<number> {
  const r = readNumber(text);
  if (r.error || r.value === null) return r;
  if (r.value < 0) return bad(`negative amount: "${text.trim()}"`);
  const cents = Math.round(r.value * 100);
  if (Math.abs(cents - r.value * 100) > 1e-6 * Math.max(1, r.value)) return bad(`fraction of a cent: "${text.trim()}"`);
  return ok(cents);
}

export function readYear(text: string): Read<number> {
  const r = readInteger(text);
  if (r.error || r.value === null) return r;
  return r.value >= 1600 && r.value <= 2200 ? r : bad(`not a plausible year: "${text.trim()}"`);
}

const TRUE = new Set(['TRUE', 'T', 'YES', 'Y', '1']);
const FALSE = new Set(['FALSE', 'F', 'NO', 'N', '0']);

export function readBoolean(text: string): Read<boolean> {
  const t = text.trim().toUpperCase();
  if (t === '') return none();
  if (TRUE.has(t)) return ok(true);
  if (FALSE.has(t)) return ok(false);
  return bad(`not a yes/no value: "${text.trim()}"`);
}

const MONTHS = ['JAN', 'FEB', 'MAR', 'APR', 'MAY', 'JUN', 'JUL', 'AUG', 'SEP', 'OCT', 'NOV', 'DEC'];

function isoDate(y: number, m: number, d: number, text: string): Read<string> {
  const date = new Date(Date.UTC(y, m - 1, d));
  if (y < 1600 || y > 2200 || date.getUTCMonth() !== m - 1 || date.getUTCDate() !== d) return bad(`impossible date: "${text.trim()}"`);
  return ok(`${String(y).padStart(4, '0')}-${String(m).padStart(2, '0')}-${String(d).padStart(2, '0')}`);
}

/**
 * A calendar date to ISO form. Reads M/D/YYYY, YYYY-MM-DD (with an optional time of day, which
 * is dropped: rolls print midnight), "April 14, 2026" and "14 April 2026".
 */
export function readDate(text: string): Read<string> {
  const t = text.trim();
  if (t === '') return none();
  let m = /^(\d{1,2})\/(\d{1,2})\/(\d{4})$/.exec(t);
  if (m) return isoDate(+m[3], +m[1], +m[2], t);
  m = /^(\d{4})-(\d{2})-(\d{2})(?:[ T]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?$/.exec(t);
  if (m) return isoDate(+m[1], +m[2], +m[3], t);
  m = /^([A-Za-z]{3,9})\.?\s+(\d{1,2}),?\s+(\d{4})$/.exec(t);
  if (m && MONTHS.includes(m[1].slice(0, 3).toUpperCase())) return isoDate(+m[3], MONTHS.indexOf(m[1].slice(0, 3).toUpperCase()) + 1, +m[2], t);
  m = /^(\d{1,2})\s+([A-Za-z]{3,9})\.?,?\s+(\d{4})$/.exec(t);
  if (m && MONTHS.includes(m[2].slice(0, 3).toUpperCase())) return isoDate(+m[3], MONTHS.indexOf(m[2].slice(0, 3).toUpperCase()) + 1, +m[1], t);
  return bad(`not a date: "${t}"`);
}

/**
 * A registry book/page reference printed as "book/page" ("  1377/ 128", "140/65", "C30/12").
 * A cell of another form (a docket or document number) is not split: null, kept raw by callers.
 */
export function readBookPage(text: string): { book: string; page: string } | null {
  const m = /^\s*([A-Z]?\d+[A-Z]?)\s*\/\s*(\d+[A-Z]?)\s*$/i.exec(text);
  return m ? { book: m[1].toUpperCase(), page: m[2].toUpperCase() } : null;
}

/** Text as printed with runs of spaces collapsed; null when blank. */
export function readText(text: string): string | null {
  const t = text.replace(/\s+/g, ' ').trim();
  return t === '' ? null : t;
}

/**
 * Whether a cell is one of the placeholders a source uses for "no value" ("", "NULL", "0",
 * "1/1/1900"). Numeric placeholders match numerically, so "0", "0.0" and "0.00" are one,
 * and dates match as dates ("1/1/1900" and "1900-01-01 00:00:00.000").
 */
export function isPlaceholder(text: string, placeholders: readonly string[]): boolean {
  const t = text.trim();
  if (t === '') return true;
  for (const p of placeholders) {
    if (t.toUpperCase() === p.trim().toUpperCase()) return true;
    const a = readNumber(t);
    const b = readNumber(p);
    if (a.value !== null && b.value !== null && !a.error && !b.error && a.value === b.value) return true;
    const c = readDate(t);
    const d = readDate(p);
    if (c.value !== null && c.value === d.value) return true;
  }
  return false;
}
