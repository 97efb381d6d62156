// What the dimensional and the use precedence passes share: the clauses by which a table says it
// controls over other sections in a conflict, the sections they name, and the table the clause
// stands before. Pure.

/** A section ref's numbers: "40.8C" → [40, 8]; "Article IV" → []. */
const numbers = (ref: string) => (ref.match(/\d+/g) ?? []).map(Number);

/** Negative, zero or positive as a's numbers fall before, within or after b's ("40.8C" is within "40.8"). */
function compare(a: number[], b: number[]): number {
  for (let i = 0; i < Math.min(a.length, b.length); i++) if (a[i] !== b[i]) return a[i] - b[i];
  return 0;
}

export type SectionRange = { from: number[]; to: number[] };

/** The sections a clause names, as ranges: "40.3 through 40.15" → one range; "40.3, 40.4" → two of one section each. */
function rangesOf(list: string): SectionRange[] {
  return list
    .split(/\s*(?:,|\band\b)\s*/i)
    .filter(Boolean)
    .map((piece) => {
      const [from, to] = piece.split(/\s*(?:through|thru|to|[-–](?=\s*(?:articles?|sections?|secs?\.|§|\d)))\s*/i);
      return { from: numbers(from), to: numbers(to ?? from) };
    })
    .filter((r) => r.from.length > 0 && r.to.length > 0);
}

/** Whether a section ref falls within one of the ranges. */
export function inSections(ref: string | null | undefined, ranges: SectionRange[]): boolean {
  const n = numbers(ref ?? '');
  return n.length > 0 && ranges.some((r) => compare(n, r.from) >= 0 && compare(n, r.to) <= 0);
}

export interface Clause {
  /** the sections it names, as printed, and as ranges */
  named: string;
  ranges: SectionRange[];
  start: number;
  end: number;
}

/** Each clause of the text matching `pattern` (a global regex whose group 1 lists the sections). */
export function* controllingClauses(text: string, pattern: RegExp): Generator<Clause> {
  for (const m of text.matchAll(pattern)) {
    const start = m.index ?? 0;
    yield { named: m[1], ranges: rangesOf(m[1]), start, end: start + m[0].length };
  }
}

/** The first record quoted after the clause, within 5,000 characters: the start of the table that controls. */
export function rulingAfter<T extends { citation: { locator: { start: number } } }>(records: T[], clause: Clause): T | null {
  const first = records.filter((r) => r.citation.locator.start >= clause.end).sort((a, b) => a.citation.locator.start - b.citation.locator.start)[0];
  return first && first.citation.locator.start - clause.end <= 5000 ? first : null;
}
