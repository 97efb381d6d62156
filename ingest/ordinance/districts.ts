// District headings: a section whose heading names a district, with its kind (overlay when it or
// an ancestor says so), its type in words, and its purpose passage. A heading names a district as
// "Name (CODE)" ("3.1 NEIGHBORHOOD RESIDENCE (NR)"), as "CODE Name District" ("40.3 R-A
// Agricultural District", "S & O Service & Office District"), as a list of codes ("RS1, RS2 and RS3
// Districts") or as the code alone under a heading about districts ("17-2-0104-B RM4.5." under
// "RM, Residential Multi-Unit Districts"). "RS, … Districts" names a family, not a district.
// A heading that says neither district nor zone, nor has an ancestor that does ("Visible Light
// Reflectance (VLR)" in a glossary), is only a candidate: it counts when other evidence names the code.
import { typeFromLabel } from '../district-list.ts';
import type { DistrictRecord } from '../types.ts';
import { isCodeShaped, isMarkedCode, splitCodeList } from './codes.ts';
import { ancestors, type SectionNode } from './sections.ts';
import type { Citer } from './text.ts';

const NAMED = /^(.*\S)\s*\(([A-Z][A-Z0-9&.\-/ ]{0,11})\)\s*\.?$/;
const NOT_A_CODE = /^(RESERVED|REPEALED|DELETED|SEE|NOTE)$/i;
const DISTRICT_WORD = /\b(?:districts?|zones?|overlays?)\b/i;
const ENDS_DISTRICT = /\b(?:district|zone)(s?)\.?\s*$/i;
const LEAD_CODES = /^((?:[A-Z]{1,3}\s?&\s?[A-Z]{1,3}|[A-Z][A-Z0-9]*(?:[-.][A-Z0-9]+)*)(?:\s*(?:,\s*(?:and\s+|or\s+)?|\s+and\s+|\s+or\s+|\/)\s*(?:[A-Z][A-Z0-9]*(?:[-.][A-Z0-9]+)*))*)(?:\s*[,:\u2013\u2014]\s*|\s+-\s+|\s+|$)(.*)$/;

export interface HeadingDistrict {
  node: SectionNode;
  codes: string[];
  name: string | null;
  family: boolean; // "RS, Residential Single-Unit Districts": the RS family
  strong: boolean; // the heading or an ancestor says district or zone
  overlay: boolean;
}

const chainOf = (node: SectionNode) => [...ancestors(node)].map((n) => n.record.heading ?? '');

/** The districts a section heading names, or null. */
export function headingDistricts(node: SectionNode): HeadingDistrict | null {
  const heading = (node.record.heading ?? '').trim();
  if (!heading) return null;
  const chain = chainOf(node);
  const above = chain.slice(1).join(' / ');
  const overlay = /overlay/i.test(chain.join(' / '));
  const named = NAMED.exec(heading);
  // a code that reads as a roman numeral ("(VI)") counts where the heading says district
  if (named && (isCodeShaped(named[2]) || (/^[IVX]{1,4}$/.test(named[2]) && DISTRICT_WORD.test(heading))) && !NOT_A_CODE.test(named[2])) {
    const name = named[1].replace(/[\s,:;-]+$/, '');
    return { node, codes: [named[2].trim()], name, family: false, strong: DISTRICT_WORD.test(heading) || DISTRICT_WORD.test(above), overlay };
  }
  const bare = heading.replace(/\.$/, '');
  const only = splitCodeList(bare);
  if (only) {
    // the code alone: a district when the section above is about districts
    const strong = DISTRICT_WORD.test(above) && only.some(isMarkedCode);
    return strong ? { node, codes: only, name: null, family: false, strong, overlay } : null;
  }
  const lead = LEAD_CODES.exec(heading);
  if (!lead) return null;
  const codes = splitCodeList(lead[1]);
  const name = lead[2].trim();
  const ends = ENDS_DISTRICT.exec(name);
  if (!codes || !name) return null;
  // in a heading set in capitals a word looks like a code: only a code with a digit or a separator counts
  if (!/[a-z]/.test(name) && !codes.every(isMarkedCode)) return null;
  // "OP Open Space and Parks" under "Base Zoning Districts": a district when other evidence names OP
  if (!ends) return DISTRICT_WORD.test(above) && /^[A-Z]/.test(name) ? { node, codes, name, family: false, strong: false, overlay } : null;
  const plural = ends[1] !== '';
  const family = plural && codes.length === 1 && !/\d/.test(codes[0]);
  return { node, codes, name: name.replace(/^[,:\s]+/, '') || null, family, strong: true, overlay: overlay || /overlay/i.test(name) };
}

const titleCase = (s: string) => (s === s.toUpperCase() ? s.toLowerCase().replace(/\b[a-z]/g, (c) => c.toUpperCase()) : s);

function purposeOf(node: SectionNode, all: SectionNode[]): string | null {
  const children = all.filter((n) => n.parent === node);
  const named = (re: RegExp) => children.find((c) => re.test(c.record.heading ?? ''));
  const child = named(/^purpose/i) ?? named(/^intent/i) ?? named(/^character/i) ?? named(/^description/i);
  const body = (child ?? node).record.body.trim();
  return body && !body.startsWith('|') ? body : null;
}

/** The district record a heading gives one of its codes. */
export function headingRecord(h: HeadingDistrict, code: string, normalized: string, all: SectionNode[], citer: Citer): DistrictRecord {
  const { node } = h;
  const chain = chainOf(node).join(' / ');
  const single = h.codes.length === 1;
  return {
    kind: h.overlay ? 'overlay' : 'base',
    code_raw: code,
    code_normalized: normalized,
    local_label: single && h.name ? titleCase(h.name) : null,
    type: h.overlay ? 'overlay' : (typeFromLabel(h.name) ?? typeFromLabel(chain)),
    purpose: single ? purposeOf(node, all) : null,
    section_ref: node.record.ref,
    citation: citer.cite(node.title, { section: node.record.ref, heading: node.record.heading }, node.record.ref),
  };
}

/** The district a place in the text belongs to: the nearest enclosing district section. */
export function districtAround(node: SectionNode | null, byNode: Map<SectionNode, string>): string | null {
  for (const n of ancestors(node)) {
    const code = byNode.get(n);
    if (code) return code;
  }
  return null;
}
