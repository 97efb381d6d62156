// Districts from the section tree: a heading that names a district with its code in
// parentheses ("3.1 NEIGHBORHOOD RESIDENCE (NR)", "3.3.1 Residence A District (R-1)"), its kind
// (overlay when it or an ancestor says so), its type in words, and its purpose passage.
import { normalizeCode, typeFromLabel } from '../district-list.ts';
import type { DistrictRecord } from '../types.ts';
import { ancestors, type SectionNode } from './sections.ts';
import type { Citer } from './text.ts';

const NAMED = /^(.*\S)\s*\(([A-Z][A-Za-z0-9&.\-/]{0,9})\)\s*$/;
const NOT_A_CODE = /^(RESERVED|REPEALED|DELETED|SEE|NOTE)$/i;

/** The code a heading names, e.g. {code: "NR", name: "NEIGHBORHOOD RESIDENCE"}. */
export function districtHeading(heading: string | null): { code: string; name: string } | null {
  const m = heading ? NAMED.exec(heading) : null;
  if (!m || NOT_A_CODE.test(m[2]) || !/[A-Z]/.test(m[2])) return null;
  return { code: m[2], name: m[1].replace(/[\s,:;-]+$/, '') };
}

const titleCase = (s: string) => (s === s.toUpperCase() ? s.toLowerCase().replace(/\b[a-z]/g, (c) => c.toUpperCase()) : s);

function purposeOf(node: SectionNode, all: SectionNode[]): string | null {
  const children = all.filter((n) => n.parent === node);
  const named = (re: RegExp) => children.find((c) => re.test(c.record.heading ?? ''));
  const child = named(/^purpose/i) ?? named(/^intent/i) ?? named(/^character/i);
  const body = (child ?? node).record.body.trim();
  return body && !body.startsWith('|') ? body : null;
}

export function readDistricts(sections: SectionNode[], citer: Citer): { records: DistrictRecord[]; byNode: Map<SectionNode, string> } {
  const records: DistrictRecord[] = [];
  const byNode = new Map<SectionNode, string>();
  const seen = new Set<string>();
  for (const node of sections) {
    const named = districtHeading(node.record.heading);
    if (!named) continue;
    const code = normalizeCode(named.code);
    byNode.set(node, code);
    if (seen.has(code)) continue;
    seen.add(code);
    const chain = [...ancestors(node)].map((n) => n.record.heading ?? '').join(' / ');
    const overlay = /overlay/i.test(chain);
    records.push({
      kind: overlay ? 'overlay' : 'base',
      code_raw: named.code,
      code_normalized: code,
      local_label: titleCase(named.name),
      type: overlay ? 'overlay' : (typeFromLabel(named.name) ?? typeFromLabel(chain)),
      purpose: purposeOf(node, sections),
      section_ref: node.record.ref,
      citation: citer.cite(node.title, { section: node.record.ref, heading: node.record.heading }, node.record.ref),
    });
  }
  return { records, byNode };
}

/** The district a place in the text belongs to: the nearest enclosing district section. */
export function districtAround(node: SectionNode | null, byNode: Map<SectionNode, string>): string | null {
  for (const n of ancestors(node)) {
    const code = byNode.get(n);
    if (code) return code;
  }
  return null;
}
