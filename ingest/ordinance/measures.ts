// A measure as a dimensional table's header or row label prints it: "LOT AREA (Minimum SF)",
// "HEIGHT Maximum in stories²", "Minimum Rear Yard Open Space (square feet per dwelling unit/% of
// lot area, whichever is greater)", "Min. Lot Width (ft.)". Out: the control kind, the bound, the
// unit (or one unit per value when the label lists several), footnote marks and a note.
import { type Bound, type ControlKind, exactKind, kindOf, unitWord } from './lexicon.ts';

export interface UnitSpec {
  unit: string | null;
  perUnit: boolean; // "square feet per dwelling unit"
}

export interface Measure {
  label: string; // as printed
  name: string; // without bound, unit and marks
  kind: ControlKind;
  bound: Bound;
  unit: string | null;
  units: UnitSpec[]; // several when the label lists one per value ("400/6.5")
  marks: string[];
  note: string | null; // "whichever is greater"
  strong: boolean; // names a term of the lexicon, or states a bound
  parts: string[]; // what each value of a slashed cell is for: "(principal/accessory)" → ["principal", "accessory"]
}

const BOUND_WORD = /\b(min(?:imum)?|max(?:imum)?)\b\.?/gi;
const UNIT_PHRASE =
  /(square\s+feet|sq\.?\s*ft\.?|\bsf\b|\bacres?\b|linear\s+f(?:ee)?t\.?|\bfeet\b|\bft\b\.?|\bfoot\b|%|\bpercent\b|\bstories\b|\bdwelling\s+units?\b|\bunits?\b)/i;
const PER_UNIT = /\bper\s+(?:dwelling\s+)?unit\b|\bper\s+du\b|\/\s*du\b/i;
const WHICHEVER = /\bwhichever\s+is\s+(greater|less|more|larger|smaller)\b/i;

/** A unit phrase's unit: "square feet" → sq_ft, "linear ft." → ft, "% of lot area" → percent. */
export function unitOfPhrase(s: string): string | null {
  const m = UNIT_PHRASE.exec(s);
  if (!m) return null;
  const w = m[1].toLowerCase().replace(/\s+/g, ' ');
  if (w.startsWith('linear')) return 'ft';
  if (/^dwelling units?$/.test(w)) return 'units';
  return unitWord(w);
}

/** Footnote marks: "[1]", a glued "*", superscripts, a digit glued to a word ("stories2", "SIDE1") or ending the label. */
export function takeMarks(raw: string): { text: string; marks: string[] } {
  const marks: string[] = [];
  let s = raw
    .replace(/\[(\d{1,2}|[a-z])\]/gi, (_, m: string) => {
      marks.push(m);
      return ' ';
    })
    .replace(/(?<=[A-Za-z)])(\*{1,3})/g, (_, m: string) => {
      marks.push(m);
      return ' ';
    })
    .replace(/[\u00b9\u00b2\u00b3\u2070-\u2079]+/g, (m) => {
      marks.push(String('⁰¹²³⁴⁵⁶⁷⁸⁹'.indexOf(m[0]) >= 0 ? '⁰¹²³⁴⁵⁶⁷⁸⁹'.indexOf(m[0]) : m));
      return ' ';
    })
    .replace(/\b([A-Za-z]{3,})(\d)\b/g, (_, w: string, d: string) => {
      marks.push(d);
      return w;
    });
  // a lone digit ending the label ("Setback 1"); one leading it counts something ("2 or more stories")
  s = s.replace(/(\S\s+)(\d)\s*[.,;:]?\s*$/, (_, pre: string, d: string) => {
    marks.push(d);
    return pre;
  });
  return { text: s.replace(/\s+/g, ' ').trim(), marks };
}

function boundOf(words: string[]): Bound {
  const min = words.some((w) => /^min/i.test(w));
  const max = words.some((w) => /^max/i.test(w));
  return min && max ? 'min/max' : min ? 'min' : max ? 'max' : null;
}

/** The measure a label names, or null for an empty label. */
export function readMeasure(raw: string): Measure | null {
  // a label wrapped whole in emphasis ("**Minimum Lot Size**") is emphasised, not footnoted
  const label = raw.replace(/[\u200b-\u200d\ufeff]/g, '').replace(/\s+/g, ' ').trim().replace(/^(\*{1,3}|_{1,3})(\S.*?\S)\1$/, '$2');
  if (!label) return null;
  const { text, marks } = takeMarks(label);
  const boundWords: string[] = [];
  let units: UnitSpec[] = [];
  let note: string | null = null;
  let labelled: string[] = [];
  // parentheticals: bounds, units (one per slash-separated part), "whichever is greater"
  let name = text.replace(/\(([^()]*)\)/g, (whole, inner: string) => {
    const w = WHICHEVER.exec(inner);
    if (w) note = w[0];
    const bw = inner.match(BOUND_WORD) ?? [];
    boundWords.push(...bw);
    const rest = inner.replace(BOUND_WORD, ' ').replace(WHICHEVER, ' ');
    const parts = rest.split(/\s*\/\s*/).filter((p) => /[a-z%]/i.test(p));
    const specs = parts.map((p) => ({ unit: unitOfPhrase(p), perUnit: PER_UNIT.test(p) })).filter((u) => u.unit);
    if (specs.length) units = specs;
    // "(principal/accessory)": what each of two values is for
    const named = inner.split(/\s*\/\s*/);
    if (!bw.length && !specs.length && !w && named.length > 1 && named.every((p) => /^[A-Za-z][A-Za-z -]{0,30}$/.test(p))) {
      labelled = named.map((p) => p.trim());
      return ' ';
    }
    return bw.length || specs.length || w ? ' ' : whole;
  });
  // outside them: "Maximum", "Min.", and "in stories", "in ft."
  boundWords.push(...(name.match(BOUND_WORD) ?? []));
  name = name.replace(BOUND_WORD, ' ');
  name = name.replace(/\bin\s+(square\s+feet|sq\.?\s*ft\.?|feet|ft\.?|stories|acres|percent)(?=\s|$)/gi, (_, u: string) => {
    if (!units.length) units = [{ unit: unitOfPhrase(u), perUnit: false }];
    return ' ';
  });
  name = name
    .replace(/\s+/g, ' ')
    .replace(/^[\s,.;:/-]+|[\s,.;:/-]+$/g, '')
    .trim();
  let kind = kindOf(name);
  const unit = units.length === 1 ? units[0].unit : null;
  if (kind.type === 'dimensional.height' && unit === 'stories') kind = { ...kind, type: 'dimensional.stories', unit: 'stories' };
  if (kind.type === 'dimensional.stories' && unit === 'ft') kind = { ...kind, type: 'dimensional.height', unit: 'ft' };
  const bound = boundOf(boundWords);
  return { label, name, kind, bound, unit, units, marks, note, strong: kind.known || bound !== null, parts: labelled };
}

const MIN_BY_DEFAULT = /setback|yard|open_space|living_area|lot_(area|width|depth)|separation/;

/** The bound a measure holds when its label states none: setbacks and lot sizes are minimums, heights maximums. */
export function boundOfMeasure(m: Measure): Bound {
  if (m.bound) return m.bound;
  if (m.kind.bound) return m.kind.bound;
  return MIN_BY_DEFAULT.test(m.kind.type) ? 'min' : null;
}

/** The unit a bare number under the measure has. */
export function unitOfMeasure(m: Measure): string | null {
  return m.unit ?? m.kind.unit ?? (/setback|separation/.test(m.kind.type) ? 'ft' : null);
}

/** A word that makes a label a dimension even when the lexicon does not know it. */
export const DIMENSION_WORD = /\b(setbacks?|yards?|height|area|width|depth|frontage|coverage|separation|ratio|stories|density|space|distance|length|size|diameter)\b/i;

/**
 * A label naming two measures with one value, "front/street side setback": the part before the
 * slash takes the tail of the part after it ("front setback", "street side setback") when both
 * are terms of the lexicon; else the measure itself.
 */
export function alternatives(m: Measure): Measure[] {
  const at = m.name.indexOf('/');
  if (at < 0) return [m];
  const before = m.name.slice(0, at).trim();
  const after = m.name.slice(at + 1).trim().split(/\s+/);
  for (let k = 1; k < after.length; k++) {
    const a = exactKind(`${before} ${after.slice(k).join(' ')}`);
    const b = exactKind(after.join(' '));
    if (a && b && a.type !== b.type) return [a, b].map((kind) => ({ ...m, kind }));
  }
  return [m];
}
