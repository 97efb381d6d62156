// A permit process as the code text held states it (GET /process/{type}): the process is named
// the town's own way (special_permit, site-plan-approval, variance) and found by the headings of
// the sections in force: a section headed with exactly its name, else one whose heading contains
// it; without such a heading, the sentences of any section naming it. From those sentences: who
// decides (the bodies and officials they name), the hearing, the notice and the appeal, each
// quoted and cited, or withheld with the reason. Sections the passages refer to (§ 15.5.3, or a
// step "Step 4: Public Hearing" of the procedure, by its heading) are listed.
import type { Queryable } from '../../store/db.ts';
import { type CitationView, citationsByIds } from '../../store/evidence.ts';
import type { Times } from '../../store/place/resolve.ts';

type Row = { ref: string; heading: string | null; parent_ref: string | null; body: string; citation_id: string | null; document_id: string; ordinal: number };

/** Lower-case words of a name, plurals folded (permits = permit). */
export function wordsOf(s: string): string[] {
  return s
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, ' ')
    .trim()
    .split(' ')
    .filter((w) => w && !/^\d+$/.test(w))
    .map((w) => (w.length > 3 && w.endsWith('s') && !w.endsWith('ss') ? w.slice(0, -1) : w));
}

const FACTS = {
  decides: /\b(granting authority|decision[- ]making authority|is the review board|(shall|may)( only)? (grant|approve|deny|decide)|authori[sz]ed to (grant|approve|decide)|hears?|acts? (up)?on)\b/i,
  hearing: /\bhearings?\b/i,
  notice: /\bnotices?\b|\bnotif(y|ied|ication)\b/i,
  appeal: /\bappeal(s|ed)?\b/i,
} as const;
type Fact = keyof typeof FACTS;

/** A named board, commission or official: capitalized words ending in one of these, with an "of …" complement. */
const BODY = /\b(?:[A-Z][\w'’&-]*\s+){1,4}(?:Board|Commissioner|Commission|Council|Committee|Official|Director|Administrator|Officer|Inspector)\b(?:\s+of\s+(?:[A-Z][\w'’&-]*)(?:\s+(?:&\s+)?[A-Z][\w'’&-]*){0,3})?/g;

/** Sentences of a body of text (split at a period), list markers (1. a. ii. b).) dropped; fragments under three words left out. */
function sentences(body: string): string[] {
  return body
    .split('\n')
    .flatMap((line) => line.split(/(?<=\.)\s+(?=[A-Z(]|(?:[ivxl]{1,5}|[a-z]|\d{1,3})[.)]{1,2}\s)/))
    .map((s) => s.replace(/^\s*(?:\(?(?:\d{1,3}|[a-z]{1,4})[.)]{1,2}\)?\s+)+/i, '').replace(/\s+(?:[ivxl]{1,5}|[a-z])[.)]{1,2}$/, '').trim())
    .filter((s) => s.split(/\s+/).length >= 3);
}

interface Passage {
  text: string;
  section_ref: string;
  citation: CitationView | null;
}

export type FactView = { status: 'stated'; passage: Passage[]; body?: string[] } | { status: 'withheld'; passage: []; reason: string };

export interface ProcessView {
  name: string;
  basis: 'heading' | 'mention';
  section: Array<{ ref: string; heading: string | null; citation: CitationView | null }>;
  decides: FactView;
  hearing: FactView;
  notice: FactView;
  appeal: FactView;
  see: Array<{ ref: string; heading: string | null }>;
  related: Array<{ ref: string; heading: string | null }>;
}

/** The process named by `words` in the code texts of the jurisdiction in force, or null when no section names it. */
export async function processAt(db: Queryable, jurisdiction: { id: string; name: string }, words: string[], t: Times): Promise<ProcessView | null> {
  const { rows } = await db.query(
    `SELECT x.ref, x.heading, x.parent_ref, x.body, x.citation_id, x.document_id, x.ordinal
       FROM section x JOIN document doc ON doc.id = x.document_id JOIN source s ON s.id = doc.source_id AND s.kind = 'code_text'
      WHERE x.jurisdiction_id = $1 AND x.valid @> $2::date AND x.known @> $3::timestamptz ORDER BY x.ordinal, x.ref`,
    [jurisdiction.id, t.asOf, t.knownAsOf],
  );
  const all = rows as Row[];
  const phrase = ` ${words.join(' ')} `;
  const has = (text: string | null) => ` ${wordsOf(text ?? '').join(' ')} `.includes(phrase);
  const exact = all.filter((r) => wordsOf(r.heading ?? '').join(' ') === words.join(' '));
  const containing = all.filter((r) => has(r.heading) && !exact.includes(r)).sort((a, b) => (a.heading ?? '').length - (b.heading ?? '').length || a.ordinal - b.ordinal);
  const headed = exact[0] ?? containing[0];
  let read: Row[];
  let said: string[][];
  if (headed) {
    // the section headed for the process and those under it: every sentence is about it
    const under = new Set([headed.ref]);
    for (const r of all) if (r.document_id === headed.document_id && r.parent_ref && under.has(r.parent_ref)) under.add(r.ref);
    read = all.filter((r) => r.document_id === headed.document_id && under.has(r.ref));
    said = read.map((r) => sentences(r.body));
  } else {
    // no heading names it: the sentences naming it, wherever they are
    read = all.filter((r) => has(r.body));
    said = read.map((r) => sentences(r.body).filter((s) => has(s)));
  }
  if (read.length === 0) return null;
  const cites = await citationsByIds(db, read.map((r) => r.citation_id));
  const cite = (r: Row) => (r.citation_id ? (cites.get(r.citation_id) ?? null) : null);
  const name = headed?.heading ?? words.join(' ');
  const where = headed ? `Section ${headed.ref} (${headed.heading}) and the sections under it` : `The sentences naming ${name} (sections ${read.map((r) => r.ref).join(', ')})`;
  const fact = (f: Fact): FactView => {
    // a body's name is no statement (the Zoning Board of Appeals is no appeal)
    const passage = read.flatMap((r, i) => said[i].filter((s) => FACTS[f].test(s.replace(BODY, ''))).map((text) => ({ text, section_ref: r.ref, citation: cite(r) })));
    if (passage.length === 0) return { status: 'withheld', passage: [], reason: `${where}, in the code text held for ${jurisdiction.name}, state no ${f === 'decides' ? 'body that decides' : f}.` };
    if (f !== 'decides') return { status: 'stated', passage };
    // each passage's first named body: the subject of its sentence ("The Planning Board is the … granting authority")
    const bodies = [...new Set(passage.flatMap((p) => [...p.text.matchAll(BODY)].slice(0, 1).map((m) => m[0].replace(/^(The|A|An)\s+/, '').trim())))];
    return { status: 'stated', passage, body: bodies };
  };
  // sections the passages cite (§ 15.5.3), and those headed with the name of a step they list ("Step 4: Public Hearing")
  const refs = [...new Set(said.flat().flatMap((s) => [...s.matchAll(/§\s*(\d+(?:\.\d+)+)/g)].map((m) => m[1])))];
  const steps = new Set(said.flat().flatMap((s) => [.../^Step \d+:\s*(.+)$/i.exec(s)?.slice(1) ?? []].map((x) => wordsOf(x).join(' '))));
  const stepSections = all.filter((r) => r.document_id === read[0].document_id && steps.has(wordsOf(r.heading ?? '').join(' '))).map((r) => r.ref);
  const inRead = new Set(read.map((r) => r.ref));
  return {
    name,
    basis: headed ? 'heading' : 'mention',
    section: read.map((r) => ({ ref: r.ref, heading: r.heading, citation: cite(r) })),
    decides: fact('decides'),
    hearing: fact('hearing'),
    notice: fact('notice'),
    appeal: fact('appeal'),
    see: [...new Set([...stepSections, ...refs])].filter((ref) => !inRead.has(ref)).flatMap((ref) => all.filter((r) => r.ref === ref).slice(0, 1).map((r) => ({ ref: r.ref, heading: r.heading }))),
    related: [...exact, ...containing].filter((r) => r !== headed).map((r) => ({ ref: r.ref, heading: r.heading })),
  };
}
