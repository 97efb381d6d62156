// A table that says it controls: "In the event of conflict between this table and the standards
// listed in Article 40.3 through Article 40.15, this table shall control." Where the controlling
// table states a measure for a district, the same measure stated for that district in the sections
// it names is left out (reported, never silently): the code itself says which statement governs.
// A post-pass over every control of a parse, since the two tables are read apart. Pure.
import { codeKey } from '../district-codes.ts';
import type { ControlRecord, ParseIssue } from '../types.ts';

const CLAUSE =
  /in the event of (?:a |any )?conflict between this table and (?:the )?(?:standards?|provisions?|requirements?|regulations?)[^.]{0,80}?\b(?:in|of|by)\s+((?:(?:articles?|sections?|secs?\.|§+)\s*)?[\dA-Z][\w.-]*(?:\s*(?:,|and|through|thru|to|-|–)\s*(?:(?:articles?|sections?|secs?\.|§+)\s*)?[\dA-Z][\w.-]*)*)[^.]{0,40}?,?\s*this table (?:shall )?(?:control|govern|prevail)/gi;

/** A section ref's numbers: "40.8C" → [40, 8]; "Article IV" → []. */
const numbers = (ref: string) => (ref.match(/\d+/g) ?? []).map(Number);

function compare(a: number[], b: number[]): number {
  for (let i = 0; i < Math.min(a.length, b.length); i++) if (a[i] !== b[i]) return a[i] - b[i];
  return 0; // "40.8C" is within "40.8", and "40" holds "40.8"
}

/** The section ranges a clause names: "40.3 through 40.15" → [[40,3],[40,15]]; "40.3, 40.4" → two ranges of one. */
function rangesOf(list: string): Array<[number[], number[]]> {
  const refs = list.split(/\s*(?:,|\band\b)\s*/i).filter(Boolean);
  return refs.map((r) => {
    const [lo, hi] = r.split(/\s*(?:through|thru|to|[-–](?=\s*(?:articles?|sections?|secs?\.|§|\d)))\s*/i);
    return [numbers(lo), numbers(hi ?? lo)] as [number[], number[]];
  });
}

const within = (ref: string | null | undefined, ranges: Array<[number[], number[]]>) => {
  const n = numbers(ref ?? '');
  return n.length > 0 && ranges.some(([lo, hi]) => lo.length > 0 && compare(n, lo) >= 0 && compare(n, hi) <= 0);
};

/** The controls once the tables that say they control have been given precedence. */
export function settlePrecedence(controls: ControlRecord[], text: string, issues: ParseIssue[]): ControlRecord[] {
  let out = controls;
  for (const m of text.matchAll(CLAUSE)) {
    const end = (m.index ?? 0) + m[0].length;
    // the controlling table: the first table whose facts follow the clause
    const after = out.filter((c) => c.citation.locator.start >= end).sort((a, b) => a.citation.locator.start - b.citation.locator.start)[0];
    if (!after || after.citation.locator.start - end > 5000) continue;
    const ruling = out.filter((c) => c.table_ref === after.table_ref);
    const ranges = rangesOf(m[1]);
    const stated = new Set(ruling.map((c) => `${codeKey(c.district_code)}|${c.control_type}`));
    const left = out.filter((c) => c.table_ref !== after.table_ref && within(c.citation.locator.section, ranges) && stated.has(`${codeKey(c.district_code)}|${c.control_type}`));
    if (!left.length) continue;
    const gone = new Set(left);
    out = out.filter((c) => !gone.has(c));
    issues.push({
      severity: 'warning',
      code: 'control_superseded',
      detail: `${left.length} controls of ${m[1].replace(/\s+/g, ' ')} are left out: ${after.table_ref} states the same measure for the same district and says it controls in a conflict`,
      locator: { table: after.table_ref, start: m.index ?? 0, end },
    });
  }
  return out;
}
