// What the code text held says a district is (include=definition): the district's own section
// (its body, when its heading names the district or says purpose, and its subsections whose
// headings say purpose, intent, description or character) and the entries of the definitions
// sections (a section headed Definitions and those under it) whose term is the district's name
// or code. Each passage is cited; when the text holds none, the definition is withheld with why.
import { DEFINITION_SECTIONS, DEFINITIONS_HEADING } from '../../store/definitions.ts';
import { unmarked } from '../place/definitions.ts';
import type { Queryable } from '../../store/db.ts';
import { type CitationView, citationsByIds } from '../../store/evidence.ts';
import type { Times } from '../../store/place/resolve.ts';

/** A heading of a passage saying what a district is for. */
const PURPOSE = /\b(purposes?|intent|intended|description|character|definitions?|objectives?)\b/i;

export interface District {
  id: string;
  code_raw: string;
  code_normalized: string;
  local_label: string | null;
  section_ref: string | null;
  source: string;
}

interface Passage {
  source: 'district_section' | 'definitions_section';
  section_ref: string;
  heading: string | null;
  text: string;
  citation: CitationView | null;
  status: 'stated';
}

export type Definition = { status: 'stated'; passage: Passage[] } | { status: 'withheld'; passage: []; reason: string };

type Row = { ref: string; heading: string | null; parent_ref: string | null; body: string; citation_id: string | null; top: boolean | null; defines: boolean };

const reEscape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const labelOf = (d: District) => (d.local_label ?? '').replace(/\s+district$/i, '').trim();

/** The district's name (its label without "District", any case) or its code, as whole words; a one-letter code only in parentheses. */
function namer(d: District): { names: (text: string) => boolean; opens: (text: string) => boolean } {
  const label = labelOf(d);
  const codes = [...new Set([d.code_raw, d.code_normalized])];
  const word = (s: string) => `(?<![\\w-])${reEscape(s)}(?![\\w-])`;
  const byLabel = label.length >= 4 ? new RegExp(word(label), 'i') : null;
  const byCode = new RegExp(codes.map((c) => (c.length >= 2 ? word(c) : `\\(${reEscape(c)}\\)`)).join('|'));
  const opensLabel = label.length >= 4 ? new RegExp(`^${reEscape(label)}(?![\\w-])`, 'i') : null;
  const long = codes.filter((c) => c.length >= 2);
  const opensCode = long.length ? new RegExp(`^(?:${long.map(escape).join('|')})(?![\\w-])`) : null;
  return {
    names: (text) => Boolean(byLabel?.test(text)) || byCode.test(text),
    opens: (text) => Boolean(opensLabel?.test(text)) || Boolean(opensCode?.test(text)),
  };
}


export async function districtDefinitions(db: Queryable, jurisdiction: { id: string; name: string }, districts: District[], t: Times, textHeld: boolean): Promise<Map<string, Definition>> {
  const out = new Map<string, Definition>();
  if (districts.length === 0) return out;
  const refs = [...new Set(districts.map((d) => d.section_ref).filter((r): r is string => Boolean(r)))];
  const { rows } = await db.query(
    `WITH RECURSIVE ${DEFINITION_SECTIONS}
     SELECT s.ref, s.heading, s.parent_ref, s.body, s.citation_id, bool_or(d.top) AS top, bool_or(d.ref IS NOT NULL) AS defines, min(s.ordinal) AS ordinal
       FROM s LEFT JOIN d USING (ref, document_id)
      WHERE s.ref = ANY($5::text[]) OR s.parent_ref = ANY($5::text[]) OR d.ref IS NOT NULL
      GROUP BY s.document_id, s.ref, s.heading, s.parent_ref, s.body, s.citation_id ORDER BY min(s.ordinal)`,
    [jurisdiction.id, t.asOf, t.knownAsOf, DEFINITIONS_HEADING, refs],
  );
  const sections = rows as Row[];
  const definitionsHeld = sections.filter((r) => r.top).length;
  const found = new Map<string, Array<Omit<Passage, 'citation'> & { citation_id: string | null }>>();
  for (const d of districts) {
    const { names, opens } = namer(d);
    const passages: Array<Omit<Passage, 'citation'> & { citation_id: string | null }> = [];
    const take = (r: Row, source: Passage['source'], text = r.body.trim()) => {
      if (text && !passages.some((p) => p.section_ref === r.ref && p.text === text)) passages.push({ source, section_ref: r.ref, heading: r.heading, text, citation_id: r.citation_id, status: 'stated' });
    };
    const own = d.section_ref ? sections.find((r) => r.ref === d.section_ref) : undefined;
    const children = own ? sections.filter((r) => r.parent_ref === own.ref) : [];
    const ownNamed = Boolean(own && names(own.heading ?? ''));
    if (own && ownNamed) {
      // the district's own section: its text and its purpose subsections
      take(own, 'district_section');
      for (const c of children.filter((r) => PURPOSE.test(r.heading ?? ''))) take(c, 'district_section');
    } else if (own && PURPOSE.test(own.heading ?? '')) {
      // a section of the purposes of several districts: the lines and subsections naming this one
      for (const line of own.body.split('\n')) if (names(line)) take(own, 'district_section', unmarked(line));
      for (const c of children.filter((r) => names(r.heading ?? ''))) take(c, 'district_section');
    }
    for (const r of sections.filter((x) => x.defines)) {
      if (!r.top && opens(r.heading ?? '')) take(r, 'definitions_section');
      for (const line of r.body.split('\n')) {
        const text = unmarked(line);
        if (text && opens(text)) take(r, 'definitions_section', text);
      }
    }
    found.set(d.id, passages);
    if (passages.length === 0) out.set(d.id, { status: 'withheld', passage: [], reason: whyNone(d, jurisdiction.name, own, ownNamed, definitionsHeld, t, textHeld) });
  }
  const cites = await citationsByIds(db, [...found.values()].flat().map((p) => p.citation_id));
  for (const [id, passages] of found) {
    if (passages.length) out.set(id, { status: 'stated', passage: passages.map(({ citation_id, ...p }) => ({ ...p, citation: citation_id ? (cites.get(citation_id) ?? null) : null })) });
  }
  return out;
}

/** Why the text held defines a district nowhere, from what it holds. */
function whyNone(d: District, name: string, own: Row | undefined, ownNamed: boolean, definitionsHeld: number, t: Times, textHeld: boolean): string {
  const code = d.code_normalized;
  if (!textHeld) return `No zoning text of ${name} is held as known at ${t.knownAsOf}, and a definition is read only from a code's text; ${code} is known from the ${d.source.replace(/_/g, ' ')}.`;
  const defs =
    definitionsHeld > 1 ? `none of the ${definitionsHeld} definitions sections in force defines ${code}` : definitionsHeld ? `its definitions section in force does not define ${code}` : `the text in force has no section headed Definitions`;
  if (!d.section_ref) return `The zoning text held for ${name} gives ${code} no section of its own, and ${defs}.`;
  if (!own) return `Section ${d.section_ref}, given for ${code}, is not in force in the zoning text held for ${name}, and ${defs}.`;
  const heading = own.heading ?? '';
  const what = ownNamed ? 'holds no text of its own and no purpose, intent or description subsection' : PURPOSE.test(heading) ? `has no line or subsection naming ${code}` : `is headed neither for ${code} nor for a purpose`;
  return `Section ${own.ref}${heading ? ` (${heading})` : ''}, given for ${code} in the zoning text held for ${name}, ${what}, and ${defs}.`;
}
