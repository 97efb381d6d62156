// An amending ordinance's own text (the clerk's page for one ordinance) to the instructions it
// gives: strike a quoted passage of a section and insert another, change a cell of a table in a
// district's row, or move land on the zoning map from one district to another. Read from the
// sentence's structure (target, verbs, quoted passages, district codes), never from one town's
// wording; a sentence that amends something in a way not read is kept as `unread` with why.

import type { ParseIssue } from '../types.ts';
import { readDocument } from './document.ts';
import { kindOf, unitWord } from './lexicon.ts';

export interface DistrictRef {
  code: string;
  name: string | null;
}

export interface AmendmentInstruction {
  quote: string; // the sentence, verbatim in `text`
  start: number;
  end: number;
  action: 'replace' | 'rezone' | 'unread';
  target: 'section' | 'table' | 'map' | 'unknown';
  ref: string | null; // the section's or table's own number
  row: string | null; // a table's row, as the district code it names
  column: string | null; // the phrase naming the column ("minimum front setback")
  control_type: string | null; // the column as a control type, where the lexicon knows it
  struck: string | null;
  inserted: string | null;
  unit: string | null; // the unit word printed after the inserted value ("feet")
  from: DistrictRef | null;
  to: DistrictRef | null;
  land: string | null; // the land a map amendment moves, as described
  address: string | null; // its street address, where one is given
  reason: string | null; // why an `unread` sentence was not read
}

export interface AmendmentTextResult {
  text: string;
  instructions: AmendmentInstruction[];
  issues: ParseIssue[];
}

const OPEN = '"“';
const CLOSE = '"”';
const QUOTED = `[${OPEN}]([^${CLOSE}]+)[${CLOSE}]`;
const STRIKE = /\b(?:strik\w*|delet\w*|remov\w*)(?:\s+out)?\b/i;
// "striking [the minimum front setback of] "25" [feet] and inserting [in place thereof] "20" [feet]"
const REPLACE = new RegExp(
  `\\b(?:strik\\w*|delet\\w*|remov\\w*)(?:\\s+out)?\\b([^${OPEN}${CLOSE}]*?)${QUOTED}([^${OPEN}${CLOSE}]*?)\\b(?:and|,)\\s+(?:by\\s+)?(?:insert\\w*|substitut\\w*|add\\w*)\\b([^${OPEN}${CLOSE}]*?)${QUOTED}\\s*([A-Za-z.]+)?`,
  'gi',
);
// "replacing "A" with "B""
const REPLACE_WITH = new RegExp(`\\breplac\\w*\\b([^${OPEN}${CLOSE}]*?)${QUOTED}\\s+(?:with|by)\\s+${QUOTED}\\s*([A-Za-z.]+)?`, 'gi');
const AMENDS = /\b(?:amend\w*|rezon\w*|repeal\w*)\b/i;
const REPEALS = /\brepeal\w*\b/i;
const TABLE = /\bTable\s+([0-9A-Z][\w.-]*\w)/;
const SECTION = /(?:\b(?:Section|Sec\.|Article)|§+)\s*([0-9][\w.-]*\w(?:\([A-Za-z0-9]+\))*)/;
const MAP = /\b(?:zoning|district)\s+map\b|\brezon\w*/i;
const ROW = /\bin\s+the\s+(?:row|line|column)\s+(?:for|of)\s+(?:the\s+)?(.+?)(?=,|\s+by\b|\s+to\s+read\b|$)/i;
const CODE = /\b([A-Z]{1,5}(?:-?[0-9]{1,3}[A-Z]?)?(?:-[A-Z0-9]{1,4})?)\b/;
const FROM_TO = /\bfrom\s+(?:the\s+)?(.+?)\s+(?:district\s+)?to\s+(?:the\s+)?(.+?)(?=[,;]|\s+as\s+(?:shown|depicted)\b|\.(?:\s|$)|$)/i;
const LAND = /\b(?:land|parcel|property|premises|lot)\s+(?:at|known\s+as|located\s+at|numbered)\s+(.+?)(?=,|\s+from\b|\s+and\s+of\b)/i;
const ADDRESS = /^\d+[A-Z]?(?:-\d+)?\s+[A-Z][\w.' ]+$/;
const ABBREVIATIONS = /(?:\b(?:No|St|Sec|Art|Ave|Rd|Dr|Mr|Ms|Mrs|Inc|Co|Corp|approx|e\.g|i\.e|ft|sq|U\.S)\.)$/i;

/** A district named as "Village Center (VC)", "the R-2 District" or "R-2". */
export function districtRef(phrase: string): DistrictRef | null {
  const p = phrase
    .replace(/^(?:the|a|an)\s+/i, '')
    .replace(/[.,;]+$/, '')
    .trim();
  const paren = /^(.*?)\s*\(([^()]+)\)\s*(?:(?:zoning\s+)?district|zone)?$/i.exec(p);
  if (paren && CODE.test(paren[2]) && CODE.exec(paren[2])![1] === paren[2].trim()) return { code: paren[2].trim(), name: paren[1].replace(/\s+(?:district|zone)$/i, '').trim() || null };
  const bare = p.replace(/\s+(?:(?:zoning\s+)?district|zone)$/i, '').trim();
  const m = CODE.exec(bare);
  if (m && m[1] === bare) return { code: bare, name: null };
  return null;
}

/** The sentences of a paragraph, with their offsets in the text. */
function sentences(text: string, start: number, end: number): Array<{ start: number; end: number }> {
  const out: Array<{ start: number; end: number }> = [];
  let from = start;
  const re = /[.;](?=\s+[A-Z"“(])/g;
  re.lastIndex = start;
  for (let m = re.exec(text); m && m.index < end; m = re.exec(text)) {
    const upTo = text.slice(from, m.index + 1);
    // "Section 1." opens an ordinance's section; "No." and "St." are abbreviations
    if (/^\s*(?:Section|Sec\.|SECTION|§)\s*[0-9A-Z]+\.$/.test(upTo) || ABBREVIATIONS.test(upTo)) continue;
    out.push({ start: from, end: m.index + 1 });
    from = m.index + 1;
  }
  if (from < end) out.push({ start: from, end });
  return out
    .map((s) => {
      let a = s.start;
      let b = s.end;
      while (a < b && /\s/.test(text[a])) a++;
      while (b > a && /\s/.test(text[b - 1])) b--;
      return { start: a, end: b };
    })
    .filter((s) => s.end > s.start);
}

const clean = (s: string) => s.replace(/\s+/g, ' ').trim();

/** The column a "striking the minimum front setback of" phrase names. */
function columnPhrase(s: string): string | null {
  const c = clean(s)
    .replace(/^(?:out\s+)?(?:the\s+)?(?:words?|figures?|number|text|value|entry)?\s*/i, '')
    .replace(/\s+(?:of|for|in|from)$/i, '')
    .replace(/^the\s+/i, '')
    .trim();
  return c.length > 0 && /[a-z]/i.test(c) ? c : null;
}

function blank(quote: string, start: number, end: number): AmendmentInstruction {
  return { quote, start, end, action: 'unread', target: 'unknown', ref: null, row: null, column: null, control_type: null, struck: null, inserted: null, unit: null, from: null, to: null, land: null, address: null, reason: null };
}

function readSentence(text: string, start: number, end: number): AmendmentInstruction[] {
  // an ordinance's own section label ("Section 1.") is not the target
  const body = text.slice(start, end).replace(/^\s*(?:Section|Sec\.|SECTION|§)\s*[0-9A-Z]+\.\s+/, (m) => ' '.repeat(m.length));
  const quote = text.slice(start, end);
  // "be amended as follows:" introduces the instructions; it gives none itself
  if (!AMENDS.test(body) || /\bas\s+follows\s*[.:]?\s*$/i.test(body)) return [];
  const base = blank(quote, start, end);
  const table = TABLE.exec(body);
  const section = SECTION.exec(body);
  if (table) Object.assign(base, { target: 'table', ref: table[1] });
  else if (section) Object.assign(base, { target: 'section', ref: section[1] });
  const out: AmendmentInstruction[] = [];
  const replacements: Array<{ before: string; struck: string; inserted: string; after: string }> = [];
  for (const m of body.matchAll(REPLACE)) replacements.push({ before: m[1], struck: m[2], inserted: m[5], after: m[6] ?? m[3] });
  for (const m of body.matchAll(REPLACE_WITH)) replacements.push({ before: m[1], struck: m[2], inserted: m[3], after: m[4] ?? '' });
  if (replacements.length > 0) {
    const row = ROW.exec(body);
    const rowDistrict = row ? districtRef(row[1]) : null;
    for (const r of replacements) {
      const column = base.target === 'table' ? columnPhrase(r.before) : null;
      const unit = r.after ? unitWord(clean(r.after).replace(/\.$/, '')) : null;
      out.push({
        ...base,
        action: 'replace',
        row: rowDistrict?.code ?? null,
        column,
        control_type: column ? controlType(column) : null,
        struck: r.struck,
        inserted: r.inserted,
        unit,
        reason: base.target === 'unknown' ? 'names no section or table it amends' : base.target === 'table' && !rowDistrict ? 'names no district row of the table' : null,
      });
    }
    return out;
  }
  if (MAP.test(body)) {
    const ft = FROM_TO.exec(body);
    const from = ft ? districtRef(ft[1]) : null;
    const to = ft ? districtRef(ft[2]) : null;
    if (from && to) {
      const land = LAND.exec(body);
      const place = land ? clean(land[1]) : null;
      return [{ ...base, action: 'rezone', target: 'map', from, to, land: place, address: place && ADDRESS.test(place) ? place : null }];
    }
    return [{ ...base, target: 'map', reason: 'names no district the land moves from and to' }];
  }
  if (STRIKE.test(body)) return [{ ...base, reason: 'strikes text without quoting what replaces it' }];
  if (REPEALS.test(body)) return [{ ...base, reason: 'repeals a provision whole; what it removes from each district is not read' }];
  return [{ ...base, reason: 'amends in a way not read (no quoted passage struck and inserted, no district change)' }];
}

function controlType(column: string): string | null {
  const k = kindOf(column);
  return k.known ? k.type : null;
}

/** The instructions of an amending ordinance's text, in order; `paragraphs` as the document reader gives them. */
export function readAmendmentText(text: string, paragraphs: Array<{ start: number; end: number }>): AmendmentInstruction[] {
  const instructions: AmendmentInstruction[] = [];
  const spans = paragraphs.length > 0 ? paragraphs : [{ start: 0, end: text.length }];
  for (const p of spans) for (const s of sentences(text, p.start, p.end)) instructions.push(...readSentence(text, s.start, s.end));
  return instructions;
}

/** An ordinance's bytes (HTML, Markdown, plain text or PDF) to its text and instructions. */
export async function parseAmendmentText(bytes: Uint8Array, mediaType: string): Promise<AmendmentTextResult> {
  const issues: ParseIssue[] = [];
  const doc = await readDocument(bytes, mediaType, issues);
  const instructions = readAmendmentText(doc.text, doc.paragraphs);
  if (instructions.length === 0) issues.push({ severity: 'warning', code: 'no_amendment_instruction', detail: 'no sentence of the text amends a section, a table or the zoning map' });
  return { text: doc.text, instructions, issues };
}
