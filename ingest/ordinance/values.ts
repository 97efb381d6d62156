// One printed value ("10 ft", "60%", "1,000 sq. ft. (43.56/acre)", "1/DU", "–", "none") into a
// number and unit, or a reason it is not one.
import { unitWord } from './lexicon.ts';

export type Value =
  | { kind: 'dash' } // "–", "--", "n/a": not regulated here, or see the rows below
  | { kind: 'none'; text: string } // "none", "No min": stated to have no limit
  | { kind: 'number'; value: number; unit: string | null }
  | { kind: 'text'; text: string; numeric: boolean }; // "3 or 20 ft", "Per Principal Building", "Flat, Gable"

const DASH = /^(?:[\s\-\u2013\u2014\u2010\u2011\u2212]|\u0336)+$|^n\/?a\.?$/i;
const NONE = /^(none|no min(imum)?|no max(imum)?|no limit|not required|no requirement)$/i;
const NUMBER = /^(\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?|\.\d+)\s*(sq\.?\s*ft\.?|square feet|sf|ft\.?|feet|foot|'|%|percent|stories|story|units?|du|acres?|ac|in\.?|inches)?(?![a-z0-9])/i;
const PER_UNIT = /^(\d+(?:\.\d+)?)\s*(?:\/|per)\s*(du|dwelling unit|unit)$/i;

export function readValue(raw: string): Value {
  const s = raw.replace(/[\u200b-\u200d\ufeff]/g, '').replace(/\s+/g, ' ').trim();
  if (s === '' || DASH.test(s)) return { kind: 'dash' };
  if (NONE.test(s)) return { kind: 'none', text: s };
  const per = PER_UNIT.exec(s);
  if (per) return { kind: 'number', value: Number(per[1]), unit: 'per_dwelling_unit' };
  const m = NUMBER.exec(s);
  if (m) {
    const rest = s.slice(m[0].length).trim();
    // a trailing parenthetical restates the value ("(43.56/acre)"); other words qualify it
    if (rest === '' || /^\([^)]*\)$/.test(rest)) return { kind: 'number', value: Number(m[1].replace(/,/g, '')), unit: m[2] ? unitWord(m[2]) : null };
    return { kind: 'text', text: s, numeric: true };
  }
  return { kind: 'text', text: s, numeric: /\d/.test(s) };
}
