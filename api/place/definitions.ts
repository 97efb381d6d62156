// Definitions of the uses and controls in a rule answer, read from the code text's definitions
// sections in force (a section whose heading says Definitions, and the sections under it). A term
// is a subsection's heading ("2.1 Accessory dwelling unit") or the opening words of a paragraph
// of such a section ("ii. Artist Housing: Residential occupancy …"); it defines a use or control
// of the answer when it names it, or is used whole within its name.
import type { Queryable } from '../../store/db.ts';
import { citationsByIds } from '../../store/evidence.ts';
import type { Times } from '../../store/place/resolve.ts';
import { DEFINITION_SECTIONS, DEFINITIONS_HEADING } from '../../store/definitions.ts';

type Row = Record<string, any>;

interface Subject {
  ref: { use: string | null; label: string } | { control_type: string };
  words: string[];
}

/** Lower-case words, parenthesised asides dropped, plurals folded (dwellings = dwelling). */
function words(s: string): string[] {
  return s
    .normalize('NFKD')
    .toLowerCase()
    .replace(/\([^)]*\)/g, ' ')
    .replace(/[^a-z0-9]+/g, ' ')
    .trim()
    .split(' ')
    .filter(Boolean)
    .map((w) => (w.length > 3 && w.endsWith('s') && !w.endsWith('ss') ? w.slice(0, -1) : w));
}

/** The uses and controls a rule answer (at one date) states, each once. */
export function subjectsOf(item: Row): Subject[] {
  const out = new Map<string, Subject>();
  const add = (key: string, s: Subject) => {
    if (s.words.length && !out.has(key)) out.set(key, s);
  };
  for (const share of (item.share ?? []) as Row[]) {
    for (const p of (share.permission ?? []) as Row[]) {
      for (const v of [p, ...(p.losing ?? [])] as Row[]) {
        if (!v.use) continue;
        add(`use:${v.use.label_raw}`, { ref: { use: v.use.slug, label: v.use.label_raw }, words: words(v.use.label_raw) });
        if (v.use.name) add(`use:${v.use.name}`, { ref: { use: v.use.slug, label: v.use.name }, words: words(v.use.name) });
      }
    }
    for (const c of (share.control ?? []) as Row[]) {
      for (const v of [c, ...(c.losing ?? [])] as Row[]) {
        if (v.control_type) add(`control:${v.control_type}`, { ref: { control_type: v.control_type }, words: words(v.control_type.replace(/^[a-z]+\./, '')) });
      }
    }
  }
  return [...out.values()];
}

const phrase = (w: string[]) => ` ${w.join(' ')} `;
const sameSet = (a: string[], b: string[]) => a.length === b.length && [...a].sort().join(' ') === [...b].sort().join(' ');
/** A term defines the subject when it is the subject's name (any order) or is used whole within it. */
const defines = (term: string[], s: Subject) => term.join(' ').length >= 3 && (phrase(s.words).includes(phrase(term)) || sameSet(term, s.words));

/** A paragraph's list markers ("1. a.", "ii.", "(3)") stripped. */
export const unmarked = (line: string) => line.replace(/^\s*(?:\(?(?:\d{1,3}|[a-z]{1,4})[.)]\)?\s+)+/i, '').trim();

/** The words of a paragraph that spell the subject's name, as printed. */
function opening(line: string, s: Subject): string | null {
  const tokens = line.split(/\s+/);
  for (let n = 1; n <= tokens.length && n <= s.words.length + 3; n++) {
    const w = words(tokens.slice(0, n).join(' '));
    if (w.length === s.words.length) return w.join(' ') === s.words.join(' ') ? tokens.slice(0, n).join(' ').replace(/[:.,;]+$/, '') : null;
    if (w.length > s.words.length) return null;
  }
  return null;
}

export async function definitionsFor(db: Queryable, jurisdictionId: string, subjects: Subject[], t: Times) {
  if (!subjects.length) return [];
  const { rows } = await db.query(
    `WITH RECURSIVE ${DEFINITION_SECTIONS}
     SELECT s.ref, s.heading, s.body, s.citation_id, bool_or(d.top) AS top, min(s.ordinal) AS ordinal
       FROM d JOIN s USING (ref, document_id) GROUP BY s.document_id, s.ref, s.heading, s.body, s.citation_id ORDER BY min(s.ordinal)`,
    [jurisdictionId, t.asOf, t.knownAsOf, DEFINITIONS_HEADING],
  );
  type Found = { term: string; text: string; section_ref: string; for: Subject['ref'][]; citation_id: string | null };
  const found = new Map<string, Found>();
  const note = (term: string, text: string, r: Row, s: Subject) => {
    const key = `${r.ref}|${term.toLowerCase()}`;
    const f: Found = found.get(key) ?? { term, text, section_ref: r.ref, for: [], citation_id: r.citation_id };
    if (!f.for.some((x) => JSON.stringify(x) === JSON.stringify(s.ref))) f.for.push(s.ref);
    found.set(key, f);
  };
  for (const r of rows) {
    const term = words(r.heading ?? '');
    // a subsection of a definitions section is one term, its heading, defined by its body
    if (!r.top && r.heading) for (const s of subjects) if (defines(term, s)) note(r.heading, r.body, r, s);
    // a paragraph of a definitions section that opens with a subject's name defines it
    for (const line of String(r.body ?? '').split('\n')) {
      const text = unmarked(line);
      for (const s of subjects) {
        const printed = text && opening(text, s);
        if (printed) note(printed, text, r, s);
      }
    }
  }
  const cites = await citationsByIds(db, [...found.values()].map((f) => f.citation_id));
  return [...found.values()].map(({ citation_id, ...f }) => ({ ...f, citation: citation_id ? (cites.get(citation_id) ?? null) : null, status: 'stated' }));
}
