// The key a use table is read through, as the code prints it: a key line or cell ("P = permitted
// by-right S = special use approval req'd - = Not allowed", "Y – Yes; N – No; SP – Special
// Permit", "P - Permitted • SP - Special Permit Required"), or prose that quotes each mark
// ('Uses identified with a "P" are permitted by-right', 'A “C” indicates … a conditional use').
// A mark's level comes from the words of its meaning; a meaning whose words say none is `unknown`.
// The code's rule for blank cells ("A blank cell indicates that a use type is not allowed") is
// read the same way. Pure.
import type { PermissionLevel } from '../types.ts';
import type { Grid } from './model.ts';
import type { Span } from './text.ts';

export interface LegendEntry {
  meaning: string;
  level: PermissionLevel;
  source: 'table' | 'text' | 'hint';
}

export type Marks = Map<string, LegendEntry>;

/** The level a meaning's words give. Refusals are tested first, approvals before plain permission. */
export function levelOf(meaning: string): PermissionLevel {
  const m = meaning.toLowerCase().replace(/\s+/g, ' ');
  if (/\bnot (?:be )?(?:permitted|allowed)\b|\bprohibited\b|\bnot an? (?:permitted|allowed)\b|^\W*no\b|\bexcluded\b/.test(m)) return 'prohibited';
  if (/special (?:permit|use|exception)|conditional|board of (?:zoning )?(?:appeals|adjustment)|zoning board|planning (?:board|commission)|(?:city|town|village) council|planned (?:unit )?development|\bhearing\b/.test(m)) return 'conditional_use';
  if (/site plan|administrative|staff review|zoning (?:administrator|officer)|\bminor\b.*\breview\b/.test(m)) return 'administrative_approval';
  if (/with (?:standards|conditions)|subject to (?:the |specific |use[- ]specific |supplemental |additional )*(?:standards|conditions|requirements)|\blimited\b/.test(m)) return 'permitted_with_standards';
  if (/\bpermitted\b|by[\s-]?right|\ballowed\b|^\W*yes\b|\bpermits?\b|\baccessory\b/.test(m)) return 'by_right';
  return 'unknown';
}

/** A mark as a key: dashes one hyphen, quotes and a trailing period dropped, upper case. */
export function markKey(raw: string): string {
  return raw
    .normalize('NFKC')
    .replace(/[\u2010-\u2015\u2212]/g, '-')
    .replace(/^["“”'‘’]+|["“”'‘’.]+$/g, '')
    .replace(/\s+/g, '')
    .toUpperCase();
}

const MARK = String.raw`(?:[A-Z]{1,4}\*{0,2}|[A-Z]{1,3}\/[A-Z\-]{1,3}|[-\u2013\u2014\u2022\u25cf]|["“][^"”\s]{1,4}["”])`;
const ENTRY = new RegExp(String.raw`(?:^|(?<=[\s•;,.(]))(${MARK})\s*(=|:|[\u2013\u2014]|-(?=\s))\s*(?=\S)`, 'g');

/**
 * The entries a key prints ("P = …  S = …", "Y – Yes; N – No"), or null when it prints fewer than
 * two, or none whose words give a level. Each meaning runs to the next entry.
 */
export function readKey(text: string): Marks | null {
  const body = text.replace(/^\s*(?:legend|key)\s*:?\s*/i, '');
  const hits = [...body.matchAll(ENTRY)];
  if (hits.length < 2) return null;
  const marks: Marks = new Map();
  hits.forEach((h, i) => {
    const from = (h.index ?? 0) + h[0].length;
    const to = i + 1 < hits.length ? (hits[i + 1].index ?? body.length) : body.length;
    const lines = body.slice(from, to).split('\n');
    let raw = lines[0];
    for (const l of lines.slice(1)) {
      if (!/^\s*[a-z(]/.test(l)) break;
      raw += ` ${l.trim()}`;
    }
    // a meaning ends where the key defines another term ("…; blank = not allowed")
    const meaning = raw.replace(/;\s*[^;=:]{1,20}\s(?:=|:)\s.*$/, '').replace(/[\s•;,]+$/, '').replace(/\.$/, '').trim();
    if (!meaning || meaning.length > 120) return;
    const key = markKey(h[1]);
    if (!marks.has(key)) marks.set(key, { meaning, level: levelOf(meaning), source: 'table' });
  });
  return marks.size >= 2 && [...marks.values()].some((v) => v.level !== 'unknown') ? marks : null;
}

const MARK_CELL = /^(?:["“]?(?:[A-Z]{1,4}\*{0,2}|[A-Z]{1,3}\/[A-Z-]{1,3})["”]?|[-\u2013\u2014\u2022\u25cf])$/;

/** A key printed as a table of its own: a mark in one cell, its meaning in the next ("P | Permitted by right"). */
export function readKeyTable(grid: Grid): Marks | null {
  const marks: Marks = new Map();
  for (const r of grid.rows) {
    const cells = r.cells.filter((c, i) => r.cells.indexOf(c) === i && c.text);
    if (cells.length !== 2 || !MARK_CELL.test(cells[0].text.trim())) continue;
    const meaning = cells[1].text.trim();
    const level = levelOf(meaning);
    if (level !== 'unknown' && meaning.length <= 160) marks.set(markKey(cells[0].text), { meaning, level, source: 'table' });
  }
  return marks.size >= 2 ? marks : null;
}

const QUOTED = /(?:^|[\s(])["“‘]\s*([A-Z]{1,4}\*?|[A-Z]{1,3}\/[A-Z]{1,3}|[-\u2013\u2014\u2022\u25cf\u25a0])\s*\.?\s*["”’]/g;
const CONNECTIVE = /^[\s,;]*(?:or|and|and\/or)?[\s,;]*$/i;

/** Sentences of a text with their offsets; a period inside closing quotes ends one too (“Y.” If …), and so does a blank line. */
export function sentences(text: string, base = 0): Array<Span & { text: string }> {
  const out: Array<Span & { text: string }> = [];
  const push = (from: number, to: number) => {
    const raw = text.slice(from, to);
    const lead = raw.length - raw.trimStart().length;
    const t = raw.trim();
    if (t) out.push({ text: t, start: base + from + lead, end: base + from + lead + t.length });
  };
  const re = /(?<!\b(?:Sec|Secs|Art|Ch|No|Nos|Ord|Coun|St|Para|Fig|J))[.!?]["”’)]*(?=\s+["“(]?[A-Z0-9])|\n[ \t]*\n/g;
  let from = 0;
  for (const m of text.matchAll(re)) {
    const to = (m.index ?? 0) + (m[0].startsWith('\n') ? 0 : m[0].length);
    push(from, to);
    from = (m.index ?? 0) + m[0].length;
  }
  push(from, text.length);
  return out;
}

/**
 * Marks that prose quotes, each with the level its own words give: one mark to a sentence
 * ('Uses identified with a "P" are permitted'), or several, each meaning running to the next mark
 * ('"•" indicates a use permitted by right, "C" a conditional use'); marks joined by "or" share
 * the next meaning. A clause about blank cells is no mark's meaning (readBlankRule reads it).
 */
export function readProseKey(text: string): Marks {
  const marks: Marks = new Map();
  for (const s of sentences(text)) {
    const quoted = [...s.text.matchAll(QUOTED)];
    if (quoted.length === 0 || s.text.length > 160 * quoted.length + 240) continue;
    if (/\b(?:column|row|number|cell)s?\b[^.]*\bindicates?\b/i.test(s.text) && !/\b(?:use|permit|allow)/i.test(s.text)) continue;
    if (!/\b(?:use|uses|permitted|allowed|prohibited|denoted|identified|indicates?|means?)\b/i.test(s.text)) continue;
    const blank = BLANK.exec(s.text);
    const cut = (from: number, to: number) => (blank && blank.index >= from && blank.index < to ? blank.index : to);
    const ends = quoted.map((q) => (q.index ?? 0) + q[0].length);
    const meanings =
      quoted.length === 1
        ? [s.text.slice(0, cut(ends[0], s.text.length)).replace(quoted[0][0], ' ')]
        : quoted.map((_, i) => s.text.slice(ends[i], cut(ends[i], i + 1 < quoted.length ? (quoted[i + 1].index ?? 0) : s.text.length)));
    for (let i = meanings.length - 2; i >= 0; i--) if (CONNECTIVE.test(meanings[i])) meanings[i] = meanings[i + 1];
    quoted.forEach((q, i) => {
      const level = levelOf(meanings[i]);
      const key = markKey(q[1]);
      if (level !== 'unknown' && !marks.has(key)) marks.set(key, { meaning: quoted.length === 1 ? s.text : meanings[i].replace(/^[\s,;:]+|[\s,;]+$/g, '').trim(), level, source: 'text' });
    });
  }
  return marks;
}

const BLANK =
  /\b(?:blank|empty)\s+(?:cells?|spaces?|boxes?|entr(?:y|ies))\b|\b(?:uses?|cells?)\s+(?:that\s+(?:are|is)\s+)?(?:not\s+(?:so\s+)?marked|unmarked|without\s+(?:a\s+)?(?:mark|symbol|letter))\b|\bleft\s+blank\b|(?:^|[;,.]\s*|\s)(?:blank|empty)\s*(?:=|:|[\u2013\u2014]|-\s)|\b(?:cells?|boxes|spaces?)\s+(?:that\s+(?:is|are)\s+|left\s+)blank\b|\b(?:indicated|denoted|shown|marked)\s+(?:by|as|with)\s+a\s+blank\b|\bno\s+(?:symbol|letter|mark|entry)\b[^.]*\b(?:cell|table|column)\b/i;

/** The code's rule for a blank cell, with the level it gives, from a text's sentences; null when none says. */
export function readBlankRule(text: string, base = 0): (Span & { text: string; level: PermissionLevel }) | null {
  for (const s of sentences(text, base)) {
    const m = BLANK.exec(s.text);
    if (!m) continue;
    // a key's entry ("…; blank = not allowed; …") is its own clause
    if (/[=:\u2013\u2014-]\s*$/.test(m[0])) {
      const from = m.index + (m[0].length - m[0].trimStart().length) + (/^[;,.]/.test(m[0].trimStart()) ? 1 : 0);
      const rest = s.text.slice(from);
      const clause = rest.slice(0, rest.search(/;|$/)).trim().replace(/\.$/, '');
      const at = s.start + from + (rest.length - rest.trimStart().length);
      const level = levelOf(clause.replace(BLANK, ' ').replace(/^\s*(?:blank|empty)\s*(?:=|:|[\u2013\u2014]|-)\s*/i, ''));
      if (level !== 'unknown') return { text: clause, start: at, end: at + clause.length, level };
      continue;
    }
    const level = levelOf(s.text.replace(BLANK, ' '));
    if (level !== 'unknown') return { ...s, level };
  }
  return null;
}
