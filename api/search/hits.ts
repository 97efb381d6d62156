// Law hits (GET /law, /section): each hit's status on the date asked, where q matched it (the
// snippet, with the matched words' offsets), and its citation. Ordinances and moratoriums are cited
// by the clerk's row, which holds their title. A section matched in its body is cited by the
// passage itself: the store's section citations quote the heading, so the passage's place in the
// retained version text is found from the heading's end and the body, and its citation (id from
// the version and offsets, as every citation's) is kept when the answer is given.
import { ApiError, invalid } from '../../core/errors.ts';
import { sha256Hex } from '../../core/ids.ts';
import { citationId } from '../../store/citations.ts';
import { type Pool, type Queryable, withTransaction } from '../../store/db.ts';
import { type CitationView, citationsByIds } from '../../store/evidence.ts';
import { type HitText, hitTextSql, INSERT_CITATION_SQL, type LawAsk, MARK_CLOSE, MARK_OPEN, SECTION_ORDINANCE_SQL, VERSION_TEXT_SQL } from '../../store/search/law.ts';
import type { SearchTimes } from '../../store/search/when.ts';
import { byKnown, datesOf, jurisdictionRef, moratoriumStatusOn, nextDay, ordinanceStatusOn, type Row, statusRuns } from './items.ts';

/** How long a regular expression may run over the text in scope. */
export const REGEX_TIME_LIMIT_MS = 2000;

const dayBefore = (d: string) => new Date(Date.parse(`${d}T00:00:00Z`) - 86_400_000).toISOString().slice(0, 10);

function sectionStatusOn(r: Row, day: string): string | null {
  if (r.valid_to && r.valid_to <= day) return 'expired';
  if (!r.valid_from || r.valid_from <= day) return 'in_force';
  return 'adopted';
}

const link = (r: Row) => (r.status_listed ? { introduced_on: r.introduced_on, status_listed: r.status_listed, adopted_listed: r.adopted_listed } : null);
const period = (r: Row) => ({ from: r.valid_from, through: r.valid_to ? dayBefore(r.valid_to) : null });

/** A hit's status on a day: an ordinance's own status, a section's or moratorium's law status. */
export function hitStatusOn(r: Row, day: string): string | null {
  if (r.kind === 'ordinance') return ordinanceStatusOn(r, day);
  if (r.kind === 'section') return sectionStatusOn(r, day);
  return moratoriumStatusOn({ ...period(r), ordinance: link(r) }, day);
}

/** One hit on its date (the last day asked), with segment[] over an interval; snippet and citation come from decorateHits. */
export function hitItem(r: Row, t: SearchTimes) {
  const { from, to } = datesOf(t, r.jurisdiction_id);
  const adopted = r.kind !== 'section' && r.status_listed === 'adopted' && (!r.adopted_listed || r.adopted_listed <= to);
  return {
    id: r.id,
    kind: r.kind,
    jurisdiction: jurisdictionRef(r),
    title: r.title,
    status: hitStatusOn(r, to),
    ...(r.kind === 'section' ? { ref: r.ref, heading: r.heading, document: r.document_id, version: r.source_version_id } : { number: r.number }),
    effective_from: r.kind === 'ordinance' ? (adopted ? r.effective_listed : null) : r.valid_from,
    effective_through: r.kind === 'ordinance' ? null : period(r).through,
    adopted_on: adopted ? r.adopted_listed : null,
    ordinance: r.ordinance_id ?? null,
    snippet: null as string | null,
    match: [] as Array<{ start: number; end: number }>,
    citation: { id: r.citation_id } as Row | null,
    href: `/law/${r.id}`,
    ...(t.interval ? { segment: statusRuns(from, to, [r.valid_from, r.valid_to, r.introduced_on, r.adopted_listed], (d) => hitStatusOn(r, d)) } : {}),
    _key: `${r.kind}:${r.fact_id}`,
    _row: r,
  };
}

export type Hit = ReturnType<typeof hitItem> & Row;

/** A text with marks around matched words, as the text and the marked spans (UTF-16 offsets). */
export function unmark(marked: string): { text: string; match: Array<{ start: number; end: number }> } {
  let text = '';
  const match: Array<{ start: number; end: number }> = [];
  let open = -1;
  for (const ch of marked) {
    if (ch === MARK_OPEN) open = text.length;
    else if (ch === MARK_CLOSE) {
      if (open >= 0) match.push({ start: open, end: text.length });
      open = -1;
    } else text += ch;
  }
  return { text, match };
}

/** The UTF-16 offset of a 0-based character (code point) index in a string. */
export function unitsAt(s: string, chars: number): number {
  let units = 0;
  let n = 0;
  for (const ch of s) {
    if (n === chars) return units;
    units += ch.length;
    n++;
  }
  return units;
}

const SENTENCE_END = /[.!?;:]/;
const REACH = 300;

/** The passage around [s, e) of a text: out to the sentence ends (or line ends) on either side, at most REACH further each way, at a word. */
export function passageAround(text: string, s: number, e: number): [number, number] {
  let a = s;
  while (a > 0 && s - a < REACH && text[a - 1] !== '\n' && !(/\s/.test(text[a - 1]) && SENTENCE_END.test(text[a - 2] ?? ''))) a--;
  if (s - a >= REACH) a = text.indexOf(' ', a) + 1 || a;
  let b = e;
  while (b < text.length && b - e < REACH && text[b] !== '\n' && !(SENTENCE_END.test(text[b - 1] ?? '') && b > e && /\s/.test(text[b]))) b++;
  if (b - e >= REACH) b = Math.max(e, text.lastIndexOf(' ', b));
  while (a < s && /\s/.test(text[a])) a++;
  while (b > e && /\s/.test(text[b - 1])) b--;
  return [a, b];
}

const count = (s: string | null | undefined, ch = '\n') => (s ? s.split(ch).length - 1 : 0);

/**
 * Version texts (immutable) by id, kept by this process up to TEXT_CACHE_CHARS: a page of hits
 * usually comes from a few codes, each read once and then placed in without PostgreSQL walking it.
 */
const TEXT_CACHE_CHARS = 16_000_000;
const texts = new Map<string, string>();
let cached = 0;

async function versionText(db: Queryable, id: string): Promise<string | null> {
  const hit = texts.get(id);
  if (hit !== undefined) {
    texts.delete(id);
    texts.set(id, hit); // most recently used last
    return hit;
  }
  const text: string | undefined = (await db.query(VERSION_TEXT_SQL, [id])).rows[0]?.text;
  if (text === undefined) return null;
  texts.set(id, text);
  cached += text.length;
  for (const [k, v] of texts) {
    if (cached <= TEXT_CACHE_CHARS || k === id) break;
    texts.delete(k);
    cached -= v.length;
  }
  return text;
}

export interface Passage {
  view: CitationView;
  row: unknown[];
}

/**
 * The citation of a passage of a section's body at [p0, p1) of the body: the body is found in the
 * version text after the heading its citation quotes, and the quote checked against the text.
 */
async function passageCitation(db: Queryable, x: HitText, heading: CitationView | undefined, p0: number, p1: number): Promise<Passage | null> {
  const body = x.body!;
  const loc = heading?.locator as { start?: number; end?: number; line?: number; heading?: string } | undefined;
  if (!heading || loc?.end === undefined || loc.start === undefined || !x.version_id) return null;
  const text = await versionText(db, x.version_id);
  if (!text) return null;
  const at = text.indexOf(body, loc.end);
  if (at < 0) return null;
  const start = at + p0;
  const end = at + p1;
  const quote = text.slice(start, end);
  if (quote !== body.slice(p0, p1) || !quote.trim()) return null;
  const line = (loc.line ?? 1) + count(text.slice(loc.start, start));
  const locator = { section: x.ref, heading: loc.heading ?? null, start, end, line, passage: 'body' };
  const id = citationId(x.version_id, { quote, locator, section_ref: x.ref });
  const provenance = { basis: 'search_passage', heading_citation: heading.id };
  const view: CitationView = {
    id,
    quote,
    section_ref: x.ref,
    locator,
    document: x.document_id!,
    version: x.version_id,
    url: x.url,
    retrieved_at: x.retrieved_at!,
    effective_from: x.effective_from,
    href: `/citation/${id}`,
  };
  return { view, row: [id, x.jurisdiction_id, x.document_id, x.version_id, quote, sha256Hex(quote), JSON.stringify(locator), x.ref, JSON.stringify(provenance), x.effective_from] };
}

/**
 * Snippets, citations, ranks and section ordinances for a page of hits. Returns the passage
 * citations built, for the answer to keep (persistPassages) once it is given.
 */
export async function decorateHits(db: Queryable, hits: Hit[], t: SearchTimes, ask: LawAsk): Promise<Passage[]> {
  const passages: Passage[] = [];
  if (hits.length === 0) return passages;
  const cites = await citationsByIds(db, hits.map((h) => h.citation?.id));
  const found = new Map<string, HitText>();
  if (ask.q !== undefined) {
    const { rows } = await db.query(hitTextSql(ask), [hits.map((h) => h.kind), hits.map((h) => h._row.fact_id), ask.q]);
    for (const r of rows) found.set(`${r.kind}:${r.fact_id}`, r);
  }
  for (const h of hits) {
    const heading = cites.get(h.citation?.id);
    h.citation = heading ?? (h.citation?.id ? h.citation : null);
    const x = found.get(h._key);
    if (!x?.headline) continue;
    if (ask.mode === 'literal') {
      h.rank = x.rank;
      const { text, match } = unmark(x.headline);
      h.snippet = text;
      h.match = match;
      if (x.in_body && x.body) {
        const at = x.body.indexOf(text);
        const p = at >= 0 ? await passageCitation(db, x, heading, at, at + text.length) : null;
        if (p) {
          passages.push(p);
          h.citation = p.view;
        }
      }
    } else if (x.m_start) {
      const doc = x.headline;
      const s = unitsAt(doc, x.m_start - 1);
      const e = unitsAt(doc, (x.m_end ?? x.m_start) - 1);
      if (x.in_body && x.body) {
        const [p0, p1] = passageAround(x.body, s, e);
        h.snippet = x.body.slice(p0, p1);
        h.match = [{ start: s - p0, end: e - p0 }];
        const p = await passageCitation(db, x, heading, p0, p1);
        if (p) {
          passages.push(p);
          h.citation = p.view;
        }
      } else {
        h.snippet = doc;
        h.match = [{ start: s, end: e }];
      }
    }
  }
  await sectionOrdinances(db, hits, t);
  return passages;
}

/** A section version's ordinance: the one whose change event made it (or, once it expired, ended it). */
async function sectionOrdinances(db: Queryable, hits: Hit[], t: SearchTimes) {
  const sections = hits.filter((h) => h.kind === 'section');
  for (const [known, group] of byKnown(t, sections, (h) => h.jurisdiction.id)) {
    const on = group.map((h) => (h.status === 'expired' ? h._row.valid_to : h._row.valid_from));
    const { rows } = await db.query(SECTION_ORDINANCE_SQL, [group.map((h) => h.id), on, known, group.map((h) => h.jurisdiction.id)]);
    for (const [i, h] of group.entries()) h.ordinance = rows.find((r) => r.id === h.id && r.on_date === on[i])?.ordinance_id ?? null;
  }
}

/** The passage citations of an answer, kept (an id already held is left as it is). */
export async function persistPassages(pool: Pool, passages: Passage[]) {
  for (const p of passages) await pool.query(INSERT_CITATION_SQL, p.row);
}

/** A hit as answered: the working fields dropped. */
export function answered(h: Hit) {
  const { _key, _row, ...rest } = h;
  return rest;
}

/**
 * Each section's whole body, cited (the store's section citations quote the heading): keyed by
 * fact_id, with the passage citations to keep. The regular expression ^ finds each non-empty body
 * at its start, which places it in the version text as a search would.
 */
export async function bodyCitations(db: Queryable, hits: Hit[]): Promise<Map<number, { body: string; passage: Passage | null }>> {
  const out = new Map<number, { body: string; passage: Passage | null }>();
  const sections = hits.filter((h) => h.kind === 'section');
  if (sections.length === 0) return out;
  const { rows } = await db.query(hitTextSql({ q: '^', mode: 'regex', uses: [], subjects: [] }), [sections.map(() => 'section'), sections.map((h) => h._row.fact_id), '^']);
  const heads = await citationsByIds(db, sections.map((h) => h._row.citation_id));
  for (const x of rows as HitText[]) {
    const h = sections.find((s) => Number(s._row.fact_id) === Number(x.fact_id))!;
    const body = x.body ?? '';
    out.set(Number(x.fact_id), { body, passage: x.in_body && body ? await passageCitation(db, x, heads.get(h._row.citation_id), 0, body.length) : null });
  }
  return out;
}

/** The SQLSTATEs of a pattern PostgreSQL cannot compile, and of a statement stopped at its time limit. */
const INVALID_REGEX = '2201B';
const CANCELED = '57014';

/** Memory for a word search's sort: RUM orders every match in scope in its index scan, in memory when it fits. */
export const SEARCH_WORK_MEM = '64MB';

/** Runs fn in one read-only transaction with `settings` local to it, set in one statement. */
export function inReadOnly<T>(pool: Pool, settings: Record<string, string>, fn: (db: Queryable) => Promise<T>): Promise<T> {
  const pairs = Object.entries(settings);
  return withTransaction(
    pool,
    async (client) => {
      if (pairs.length) await client.query(`SELECT ${pairs.map((_, i) => `set_config($${2 * i + 1}, $${2 * i + 2}, true)`).join(', ')}`, pairs.flat());
      return fn(client);
    },
    { readOnly: true },
  );
}

/**
 * Runs fn in a read-only transaction whose statements stop after `ms`; a pattern that does not
 * compile or runs past the limit is 422 naming q (PostgreSQL's own words are not passed on, only
 * its fixed description of what is wrong with the pattern).
 */
export async function withRegexLimit<T>(pool: Pool, ms: number, fn: (db: Queryable) => Promise<T>): Promise<T> {
  try {
    return await inReadOnly(pool, { statement_timeout: String(ms) }, fn);
  } catch (err) {
    const e = err as { code?: string; message?: string };
    if (e.code === INVALID_REGEX) {
      const why = /^invalid regular expression: ([\w\s()[\]{}\\,'-]{1,80})$/.exec(e.message ?? '')?.[1];
      throw invalid('q', `q is not a regular expression PostgreSQL accepts (advanced regular expressions, matched without regard to case)${why ? `: ${why}` : ''}.`);
    }
    if (e.code === CANCELED) {
      throw invalid('q', `the regular expression ran past its time limit (${ms} ms) over the text in scope; make it more specific (no nested repetition or back-references over long spans), or narrow the scope.`);
    }
    throw err;
  }
}

/** A text query that has no words to search for (only stop words or punctuation) is refused, not answered empty. */
export async function checkWords(db: Queryable, q: string) {
  const { rows } = await db.query(`SELECT numnode(websearch_to_tsquery('english', $1)) AS n`, [q]);
  if (rows[0].n === 0) throw new ApiError('parameter_invalid', { field: 'q', detail: `q has no words to search for (${JSON.stringify(q)} holds only stop words or punctuation); send words, a "quoted phrase", or mode=regex.` });
}

