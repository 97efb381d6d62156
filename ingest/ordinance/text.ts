// Offsets, lines and pages of the parsed text, and the one way citations are made: every quote
// is text.slice(start, end) of the text the parser returns.
import type { CitationDraft, Locator } from '../types.ts';

/** Start offsets of lines (or pages), searchable by offset. */
export class OffsetIndex {
  constructor(readonly starts: number[]) {}

  static lines(text: string): OffsetIndex {
    const starts = [0];
    for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) starts.push(i + 1);
    return new OffsetIndex(starts);
  }

  /** 1-based number of the entry holding `offset`. */
  at(offset: number): number {
    let lo = 0;
    let hi = this.starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (this.starts[mid] <= offset) lo = mid;
      else hi = mid - 1;
    }
    return lo + 1;
  }
}

export interface Span {
  start: number;
  end: number;
}

const isSpace = (c: string | undefined) => c === ' ' || c === '\t' || c === '\n' || c === '\r' || c === '\u00a0';

/** The span with surrounding white space removed. */
export function trimSpan(text: string, start: number, end: number): Span {
  let s = start;
  let e = end;
  while (s < e && isSpace(text[s])) s++;
  while (e > s && isSpace(text[e - 1])) e--;
  return { start: s, end: e };
}

/** Makes citations over one text; knows its lines and, for PDFs, its pages. */
export class Citer {
  readonly lines: OffsetIndex;

  constructor(
    readonly text: string,
    readonly pages: OffsetIndex | null = null,
  ) {
    this.lines = OffsetIndex.lines(text);
  }

  cite(span: Span, locator: Omit<Locator, 'start' | 'end' | 'line' | 'page'>, sectionRef: string | null): CitationDraft {
    const { start, end } = span;
    const loc: Locator = { ...locator, start, end, line: this.lines.at(start) };
    if (this.pages) loc.page = this.pages.at(start);
    return { quote: this.text.slice(start, end), locator: loc, section_ref: sectionRef };
  }
}
