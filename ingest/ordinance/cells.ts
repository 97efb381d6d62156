// What a printed cell is, by its shape alone: empty, a mark ("P", "SP", "P/-", "A [E]", "-"), a
// number ("10,000", "2+", "0.5 to 1"), a reference ("§ 17-9-0118", "See 80.9") or text.

export type CellKind = 'empty' | 'mark' | 'number' | 'ref' | 'text';

const NOTE = /\s*(?:\[[A-Za-z0-9]{1,3}\]|\(\d{1,2}\)|[\u00b9\u00b2\u00b3\u2070-\u2079]+|\*+)$/;
const MARK = /^(?:[A-Z]{1,4}|[-\u2013\u2014\u2022\u25cf\u2713\u2714\u00d7]|N\/A)(?:\s*\/\s*(?:[A-Z]{1,4}|[-\u2013\u2014]))*$/;
const NUMBER = /^[$]?\.?\d/;
const REF = /^(?:§|Sec\.|Section\b|See\b|Art\.|Article\b)\s*\S/i;

/** The mark without its footnote decorations: "P/S*" → "P/S", "A [E]" → "A". */
export function markCore(text: string): string {
  let s = text.trim();
  for (let prev = ''; prev !== s; ) {
    prev = s;
    s = s.replace(NOTE, '');
  }
  return s;
}

export function cellKind(text: string): CellKind {
  const s = text.trim();
  if (s === '' || s === '\u00a0') return 'empty';
  if (s.length <= 12 && MARK.test(markCore(s))) return 'mark';
  if (NUMBER.test(s)) return 'number';
  if (REF.test(s)) return 'ref';
  return 'text';
}

export const isValueKind = (k: CellKind) => k === 'mark' || k === 'number';

/** Words in a text: a label has few, a sentence many. */
export const wordCount = (s: string) => (s.match(/\S+/g) ?? []).length;

/** The leading rows a table's structure shows to be its header: a blank first cell, or several labels and no values. */
export function headerRowCount(rows: string[][]): number {
  let n = 0;
  for (const cells of rows) {
    if (n >= 4 || n >= rows.length - 1) break;
    const filled = cells.filter((c) => c.trim() !== '');
    if (filled.length === 0) break;
    const kinds = filled.map(cellKind);
    const blankFirst = (cells[0] ?? '').trim() === '' && filled.length >= 1;
    const labels = filled.length >= 2 && kinds.every((k) => k === 'text' || k === 'ref') && filled.every((c) => wordCount(c) <= 12);
    if (!blankFirst && !labels) break;
    n++;
  }
  return n;
}
