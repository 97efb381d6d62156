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

/** A figure as a dimensional grid prints it, with what it says beside the number. */
export type Amount =
  | { kind: 'number'; value: number; unit: string | null; perUnit: boolean; plus: boolean; note: string | null }
  | { kind: 'none'; note: string | null } // "NA", "N/A", "None", "No limit", "–": no figure is set
  | { kind: 'text'; numeric: boolean };

const NOTHING = /^(?:n\/?a\.?|none|no\s+(?:min(?:imum)?|max(?:imum)?|limit|requirement)|not\s+(?:applicable|required)|[-\u2010-\u2015\u2212]+)(?=\s*(?:[(;,]|$))/i;
const FIGURE = /^(\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?|\.\d+)(\+)?\s*(sq\.?\s*ft\b\.?|square\s+feet|sf\b|acres?\b|ac\b\.?|ft\b\.?|feet\b|foot\b|['\u2019]|%|percent\b|stories\b|story\b|dwelling\s+units?\b|units?\b|du\b|in\b\.?|inches\b)?/i;
const PER = /^(?:per|\/)\s*(?:du\b|d\.u\.|dwelling\s+units?\b|units?\b)\.?/i;
const RATIO = /^(\d*\.?\d+)\s*(?:to|:)\s*1(?:\.0+)?$/i;
const SECTION_REF = /(?:§+|\bsec(?:tions?|s)?\.?|\barticles?\b|\bart\.)\s*[\dA-Z][\w.]*(?:[-–][\w.]+)*/gi;

/** A remainder that comments on the figure ("except as … in Sec. 17-2-0303-B", "(See …)") rather than giving another. */
function noteOf(rest: string): string | null | undefined {
  const r = rest.trim();
  if (!r) return null;
  if (/^\(.*\)$/.test(r) || /^[,;]|^-\s/.test(r)) {
    const words = r.replace(/^[,;\s-]+/, '').replace(/^\((.*)\)$/, '$1').trim();
    return /\d/.test(words.replace(SECTION_REF, '')) && !/^\(/.test(r) ? undefined : words;
  }
  return undefined;
}

const FRACTIONS: Record<string, string> = { '½': '.5', '¼': '.25', '¾': '.75' };

export function readAmount(raw: string): Amount {
  const s = raw
    .replace(/[\u200b-\u200d\ufeff]/g, '')
    .replace(/\s+/g, ' ')
    .trim()
    .replace(/(\d?)\s?([½¼¾])/g, (_, d: string, f: string) => `${d || '0'}${FRACTIONS[f]}`);
  if (!s) return { kind: 'text', numeric: false };
  const none = NOTHING.exec(s);
  if (none) {
    const note = noteOf(s.slice(none[0].length));
    if (note !== undefined) return { kind: 'none', note };
  }
  const ratio = RATIO.exec(s);
  if (ratio) return { kind: 'number', value: Number(ratio[1]), unit: 'ratio', perUnit: false, plus: false, note: null };
  const m = FIGURE.exec(s);
  if (!m) return { kind: 'text', numeric: /\d/.test(s) };
  let rest = s.slice(m[0].length).trim();
  // "10 units per acre", "4 du/ac": a density
  const density = m[3] && /^(units?|du|dwelling\s+units?)$/i.test(m[3].trim()) ? /^(?:per|\/)\s*(?:acre|ac)\b\.?/i.exec(rest) : null;
  if (density && noteOf(rest.slice(density[0].length)) !== undefined)
    return { kind: 'number', value: Number(m[1].replace(/,/g, '')), unit: 'units_per_acre', perUnit: false, plus: !!m[2], note: noteOf(rest.slice(density[0].length)) ?? null };
  const per = PER.exec(rest);
  if (per) rest = rest.slice(per[0].length).trim();
  const note = noteOf(rest);
  if (note === undefined) return { kind: 'text', numeric: true };
  const u = m[3] ? m[3].replace(/\.$/, '') : null;
  return { kind: 'number', value: Number(m[1].replace(/,/g, '')), unit: u ? unitWord(u === '\u2019' ? "'" : u) : null, perUnit: !!per, plus: !!m[2], note };
}
