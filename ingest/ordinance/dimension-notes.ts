// A table's footnotes, by mark: "[1] No height limit for farm structures …", "1Not applicable to …",
// "(*See Sec. 17-17-0302 …)". Read from the table's own note rows and notes, and from the lines
// right after it, where a run of marked paragraphs follows the table.
import type { Grid } from './model.ts';
import type { Span } from './text.ts';

const START = /^\s*(\()?\s*(?:\[(\d{1,2}|[a-z])\]|\((\d{1,2})\)|(\d{1,2})(?=\s*[A-Z(])|(\*{1,3})|([\u00b9\u00b2\u00b3\u2070-\u2079]))\s*/;
const SUPER = '⁰¹²³⁴⁵⁶⁷⁸⁹';

function markOf(m: RegExpExecArray): string {
  if (m[6]) return String(SUPER.indexOf(m[6]) >= 0 ? SUPER.indexOf(m[6]) : m[6]);
  return m[2] ?? m[3] ?? m[4] ?? m[5];
}

/**
 * The lines of a notes block as notes: a leading "Note(s):" label dropped, and several notes run
 * together on one line ("1. Limited to … 2. Only on …") split where the next mark follows a sentence.
 */
export function noteLines(text: string): string[] {
  return text
    .split('\n')
    .flatMap((line) => line.replace(/^\s*notes?\s*:\s*/i, '').split(/(?<=[.;])\s+(?=(?:\(\d{1,2}\)|\[\d{1,2}\]|\d{1,2}[.:])\s+\S)/));
}

/** Notes in lines of text: a marked line opens a note, unmarked lines right below continue it. */
function notesIn(lines: string[], into: Map<string, string>, stopAtProse: boolean): void {
  let cur: { mark: string; text: string; paren: boolean } | null = null;
  let blank = false;
  let skipped = 0;
  const flush = () => {
    if (cur && !into.has(cur.mark)) {
      const t = cur.paren ? cur.text.replace(/\)\s*$/, '') : cur.text;
      into.set(cur.mark, t.replace(/\s+/g, ' ').trim());
    }
    cur = null;
  };
  for (const line of lines) {
    if (!line.trim()) {
      blank = true;
      continue;
    }
    if (/^\s*\d{1,4}\s*$/.test(line)) continue; // a page number
    const m = START.exec(line);
    if (m && line.length - m[0].length > 3) {
      flush();
      cur = { mark: markOf(m), text: line.slice(m[0].length), paren: !!m[1] };
      blank = false;
      if (into.size > 40) break;
      continue;
    }
    if (cur && !blank) {
      cur.text += ` ${line.trim()}`;
      continue;
    }
    if (!stopAtProse) continue;
    // before the first note: a page number or a running title may stand between; after one, prose ends them
    if (cur || into.size || ++skipped > 2) break;
    blank = false;
  }
  flush();
}

/** The footnotes of a table, by mark. */
export function footnotes(g: Grid, text: string): Map<string, string> {
  const notes = new Map<string, string>();
  const spans: Span[] = [...g.notes];
  for (const r of g.rows) {
    const cells = r.cells.filter((c, i) => r.cells.indexOf(c) === i && c.text);
    if (cells.length === 1 && cells[0].colspan >= g.width - 1 && START.test(noteLines(cells[0].text)[0] ?? '')) spans.push(cells[0]);
  }
  for (const s of spans) notesIn(noteLines(text.slice(s.start, s.end)), notes, false);
  notesIn(text.slice(g.end, g.end + 8000).split('\n'), notes, true);
  return notes;
}
