// A table that says it controls: "In the event of conflict between this table and the standards
// listed in Article 40.3 through Article 40.15, this table shall control." Where the controlling
// table states a measure for a district, the same measure stated for that district in the sections
// it names is left out (reported, never silently): the code itself says which statement governs.
// A post-pass over every control of a parse, since the two tables are read apart. Pure.
import { codeKey } from '../district-codes.ts';
import type { ControlRecord, ParseIssue } from '../types.ts';
import { controllingClauses, inSections, rulingAfter } from './precedence.ts';

const CLAUSE =
  /in the event of (?:a |any )?conflict between this table and (?:the )?(?:standards?|provisions?|requirements?|regulations?)[^.]{0,80}?\b(?:in|of|by)\s+((?:(?:articles?|sections?|secs?\.|§+)\s*)?[\dA-Z][\w.-]*(?:\s*(?:,|and|through|thru|to|-|–)\s*(?:(?:articles?|sections?|secs?\.|§+)\s*)?[\dA-Z][\w.-]*)*)[^.]{0,40}?,?\s*this table (?:shall )?(?:control|govern|prevail)/gi;

/** The controls once the tables that say they control have been given precedence. */
export function settlePrecedence(controls: ControlRecord[], text: string, issues: ParseIssue[]): ControlRecord[] {
  let out = controls;
  for (const clause of controllingClauses(text, CLAUSE)) {
    // the controlling table: the first table whose facts follow the clause
    const after = rulingAfter(out, clause);
    if (!after) continue;
    const ruling = out.filter((c) => c.table_ref === after.table_ref);
    const stated = new Set(ruling.map((c) => `${codeKey(c.district_code)}|${c.control_type}`));
    const left = out.filter((c) => c.table_ref !== after.table_ref && inSections(c.citation.locator.section, clause.ranges) && stated.has(`${codeKey(c.district_code)}|${c.control_type}`));
    if (!left.length) continue;
    const gone = new Set(left);
    out = out.filter((c) => !gone.has(c));
    issues.push({
      severity: 'warning',
      code: 'control_superseded',
      detail: `${left.length} controls of ${clause.named.replace(/\s+/g, ' ')} are left out: ${after.table_ref} states the same measure for the same district and says it controls in a conflict`,
      locator: { table: after.table_ref, start: clause.start, end: clause.end },
    });
  }
  return out;
}
