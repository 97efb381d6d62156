// Dimensional labels as codes print them ("Primary Front Setback 1 (min/max)", "Min. Lot Area
// (sq ft)") into control types, the bound they state and their footnote marks. Matching is on
// letters and digits only, so words the source breaks ("Buildin g Setbacks") still match.

export type Bound = 'min' | 'max' | 'min/max' | null;

export interface LabelInfo {
  name: string; // the label without its bound, unit and footnote marks
  bound: Bound;
  unit: string | null; // a unit printed in the label, e.g. "(ft)"
  marks: string[]; // footnote marks, e.g. ["1"]
}

interface Term {
  type: string;
  exact: RegExp; // over the squashed name
  loose?: RegExp; // found inside a longer name ("Side Setback Abutting NR or LHD")
  unit?: string; // when a cell prints a bare number
  bound?: Bound; // when the label states none
}

const T = (type: string, exact: RegExp, loose?: RegExp, unit?: string, bound?: Bound): Term => ({ type, exact, loose, unit, bound });

// Order matters: the first term whose pattern matches wins.
const TERMS: Term[] = [
  T('setback_side_sum', /^sumofsidesetbacks?$/, /sumofsidesetbacks?/),
  T('setback_street_side', /^(secondaryfrontsetbacks?|streetsidesetbacks?|sidestreetsetbacks?|streetside(yard)?)$/, /secondaryfrontsetback|streetsidesetback/),
  T('setback_front', /^(primaryfrontsetbacks?|frontsetbacks?|frontyard)$/, /primaryfrontsetback|frontsetback|frontyard/),
  T('setback_curb', /^(curbsetback|setbackfromcurb)$/, /curbsetback|setbackfromcurb/),
  T('rear_yard_open_space', /^rearyardopenspace$/, /rearyardopenspace/),
  T('setback_rear', /^(rearsetbacks?|rearyard)$/, /rearsetback|rearyard/),
  T('setback_side', /^(sidesetbacks?|sideyard|interiorsidesetbacks?|interiorsideyard)$/, /sidesetback|sideyard/),
  T('building_separation', /^(building)?separation$/),
  T('lot_area_per_unit', /^(lotareaperdwellingunit|lotareadwellingunit|lotareaperunit|lotareadu)$/, undefined, 'sq_ft', 'min'),
  T('lot_area', /^(lotarea|lotsize|minimumlotarea|minlotarea)$/, undefined, 'sq_ft', 'min'),
  T('lot_width', /^(lotwidth|lotfrontage|frontage)$/, undefined, 'ft', 'min'),
  T('lot_depth', /^lotdepth$/, undefined, 'ft', 'min'),
  T('coverage', /^(lotcoverage|groundcoverage|maximumgroundcoverage|buildingcoverage|buildcover|buildingcover|coverage)$/, undefined, 'percent', 'max'),
  T('far', /^(floorarearatio|floortoarearatio|far)$/, undefined, 'ratio', 'max'),
  T('stories', /^(numberofstories|buildingheightstories|maximumheightstories|heightstories|stories|maxstories)$/, undefined, 'stories', 'max'),
  T('height', /^(height|buildingheight|buildingheightfeet|heightfeet|maximumheightfeet|maximumheight|maxheight)$/, undefined, 'ft', 'max'),
  T('dwelling_units', /^(dwellingunits|numberofdwellingunits|units)$/, undefined, 'units', 'max'),
  T('living_area', /^(residentiallivingarea|livingarea|habitablefloorarea)$/, /livingarea/, 'sq_ft', 'min'),
  T('floor_area', /^(grossfloorarea|floorarea)$/, undefined, 'sq_ft', 'max'),
  T('open_space', /^openspace$/),
  T('landscaped_area', /^landscapedarea$/),
  T('pervious_area', /^perviousarea$/),
  T('green_score', /^greenscore$/),
  T('floor_plate', /^floorplate$/),
  T('building_width', /^(buildingwidth|width)$/),
  T('building_depth', /^(buildingdepth|depth)$/),
  T('facade_build_out', /^facadebuildout$/, /facadebuildout/),
  T('story_height', /^storyheight$/),
  T('ground_story_height', /^groundstoryheight$/),
  T('upper_story_height', /^upperstoryheight$/),
  T('ground_story_elevation', /^groundstoryelevation$/),
  T('ground_story_fenestration', /^groundstoryfenestration$/),
  T('upper_story_fenestration', /^upperstoryfenestration$/),
  T('blank_wall', /^blankwall$/),
  T('entrance_spacing', /^(groundstory|principal)?entrancespacing$/),
  T('commercial_space_depth', /^commercialspacedepth$/),
  T('density_factor', /^densityfactor$/),
  T('outdoor_amenity_space', /^outdooramenityspace$/),
  T('roof_type', /^rooftype$/),
  T('step_back', /^stepbacks?$/, /stepbacks?/),
];

/** Group headings of dimensional tables: they reset the rows below them, they are no measure. */
const GROUPS =
  /^([a-z](?=[a-z]))?(lotstandards|lotdimensions|lotdevelopment|sitedimensions|buildingsetbacks|parkingsetbacks|buildingplacement|massingheight|massing|mainmass(ing)?|height|usesfeatures|useoccupancy|facadecomposition|buildingstandards|density|roofmountedmechanicals|rooftopmechanicals|dimensions|lotstandardsandbuildingplacement)$/;

export const squash = (s: string) =>
  s
    .normalize('NFKD')
    .toLowerCase()
    .replace(/[^a-z0-9]/g, '');

const BOUND = /\(\s*(min(?:imum)?\.?\s*(?:\/|&|and|or)\s*max(?:imum)?\.?|min(?:imum)?\.?|max(?:imum)?\.?)\s*\)/i;
const PREFIX = /^(min(?:imum)?|max(?:imum)?)\.?\s+/i;
const UNIT_IN_LABEL = /\(\s*(sq\.?\s*ft\.?|square feet|sf|ft\.?|feet|%|percent|acres?|stories|units?)\s*\)/i;

export function unitWord(s: string): string | null {
  const w = s.toLowerCase().replace(/\s+/g, ' ').replace(/\.$/, '').trim();
  if (/^(ft|feet|foot|')$/.test(w)) return 'ft';
  if (/^(sq\.? ?ft\.?|sf|square feet|sq\. ft)$/.test(w)) return 'sq_ft';
  if (/^(%|percent)$/.test(w)) return 'percent';
  if (/^(stories|story)$/.test(w)) return 'stories';
  if (/^(units?|du|dwelling units?)$/.test(w)) return 'units';
  if (/^(acres?|ac)$/.test(w)) return 'acres';
  if (/^(in|inch|inches)$/.test(w)) return 'in';
  return null;
}

export function readLabel(raw: string): LabelInfo {
  let s = raw.replace(/[\u200b-\u200d\ufeff]/g, '').replace(/\s+/g, ' ').trim();
  let bound: Bound = null;
  const b = BOUND.exec(s);
  if (b) {
    const w = b[1].toLowerCase();
    bound = w.includes('max') && w.startsWith('min') ? 'min/max' : w.startsWith('min') ? 'min' : 'max';
    s = (s.slice(0, b.index) + s.slice(b.index + b[0].length)).trim();
  }
  const p = PREFIX.exec(s);
  if (p && !bound) {
    bound = p[1].toLowerCase().startsWith('min') ? 'min' : 'max';
    s = s.slice(p[0].length);
  }
  let unit: string | null = null;
  const u = UNIT_IN_LABEL.exec(s);
  if (u) {
    unit = unitWord(u[1]);
    s = (s.slice(0, u.index) + s.slice(u.index + u[0].length)).trim();
  }
  const marks: string[] = [];
  s = s
    .replace(/\s(\d{1,2}|\*{1,3})$/, (_, m: string) => {
      marks.push(m);
      return '';
    })
    .trim();
  return { name: s.replace(/\s+,/g, ',').trim(), bound, unit, marks };
}

export interface ControlKind {
  type: string; // dotted, e.g. dimensional.setback_front
  rest: string | null; // what the label says beyond the term ("Abutting NR or LHD")
  unit: string | null;
  bound: Bound;
  known: boolean; // a term of the list, not a type made from the label
}

const slug = (s: string) =>
  s
    .normalize('NFKD')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^_|_$/g, '');

export const isGroup = (name: string) => GROUPS.test(squash(name));

// Setbacks by their words, however ordered ("YARD SETBACKS FRONT", "Front Yard", "Interior Side Setback"):
// what is left beside setback/yard and filler words must be a position.
const SETBACK_WORDS = /^(setbacks?|yards?)$/;
const FILLER = /^(minimum|min|required|depth|linear|the|building|buildings)$/;
const POSITIONS: Array<[RegExp, string]> = [
  [/^(front|primary front|front primary)$/, 'setback_front'],
  [/^(rear)$/, 'setback_rear'],
  [/^(side|interior side|side interior|interior)$/, 'setback_side'],
  [/^(street side|side street|secondary front|corner side|side corner|exterior side|corner)$/, 'setback_street_side'],
  [/^(sum of side|combined side|total side|side sum|sum of sides)$/, 'setback_side_sum'],
];

function setbackKind(name: string): ControlKind | null {
  const words = name.toLowerCase().split(/[^a-z]+/).filter(Boolean);
  if (!words.some((w) => SETBACK_WORDS.test(w))) return null;
  const rest = words.filter((w) => !SETBACK_WORDS.test(w) && !FILLER.test(w)).join(' ');
  const hit = POSITIONS.find(([re]) => re.test(rest));
  return hit ? { type: `dimensional.${hit[1]}`, rest: null, unit: null, bound: null, known: true } : null;
}

/** The term a label names exactly, or null. */
export function exactKind(name: string): ControlKind | null {
  const q = squash(name);
  const t = TERMS.find((x) => x.exact.test(q));
  if (t) return { type: `dimensional.${t.type}`, rest: null, unit: t.unit ?? null, bound: t.bound ?? null, known: true };
  return setbackKind(name);
}

// A measure of something a longer phrase names: "Diameter … of a Circle … Within Rear Yard Open Space"
const HEAD_NOUNS = /^(diameter|radius|width|depth|length)$/i;
const PREPOSITIONS = /^(of|within|in|for|from|on|at|to|inside|into|per)$/i;

function headNounKind(name: string): ControlKind | null {
  const words = name.split(/\s+/).filter(Boolean);
  if (words.length < 3 || !HEAD_NOUNS.test(words[0])) return null;
  const after = words.findIndex((w, i) => i > 0 && PREPOSITIONS.test(w));
  if (after < 0) return null;
  for (let i = after + 1; i < words.length; i++) {
    const k = exactKind(words.slice(i).join(' '));
    if (k) return { type: `${k.type}_${words[0].toLowerCase()}`, rest: null, unit: null, bound: null, known: true };
  }
  return null;
}

/** The term a label names, exactly or inside a longer name; else a type made from the label. */
export function kindOf(name: string): ControlKind {
  const exact = exactKind(name);
  if (exact) return exact;
  const head = headNounKind(name);
  if (head) return head;
  const q = squash(name);
  for (const t of TERMS) {
    const m = t.loose?.exec(q);
    if (!m) continue;
    const at = wordsBefore(name, m.index);
    // a term after "of", "within" … is where the measure is taken, not what is measured
    if (at.some((w) => PREPOSITIONS.test(w))) continue;
    return { type: `dimensional.${t.type}`, rest: restOf(name, m[0]), unit: t.unit ?? null, bound: t.bound ?? null, known: true };
  }
  // "Number of Efficiency Units" is named like "dwelling_units": efficiency_units
  return { type: `dimensional.${slug(name.replace(/^number of\s+/i, '')) || 'unnamed'}`, rest: null, unit: null, bound: null, known: false };
}

/** The words of `name` whose letters come before position `at` of its squashed form. */
function wordsBefore(name: string, at: number): string[] {
  const out: string[] = [];
  let n = 0;
  for (const w of name.split(/\s+/)) {
    if (n >= at) break;
    out.push(w);
    n += squash(w).length;
  }
  return out;
}

/** The words of `name` left when the letters of `term` are taken out, e.g. "Podium" from "Podium Rear Setback". */
function restOf(name: string, term: string): string | null {
  const words = name.split(/\s+/);
  for (let i = 0; i < words.length; i++) {
    let acc = '';
    for (let j = i; j < words.length; j++) {
      acc += squash(words[j]);
      if (acc === term) {
        const rest = [...words.slice(0, i), ...words.slice(j + 1)].join(' ').replace(/^[\s,;-]+|[\s,;-]+$/g, '');
        return rest || null;
      }
      if (!term.startsWith(acc)) break;
    }
  }
  return null;
}
