// A use table that says it controls: "In the event of conflict between this table and the
// standards listed in Article 40.3 through Article 40.15, the Use Table shall control." Where it
// marks a use in a district one way and a table of the sections it names marks it another, the
// other mark is left out and reported (permission_superseded): the code itself says which governs.
// Marks that agree are both kept. A post-pass over every permission of a parse. Pure.
import type { ParseIssue, PermissionRecord } from '../types.ts';
import { controllingClauses, inSections, rulingAfter } from './precedence.ts';

const REF = String.raw`(?:(?:articles?|sections?|secs?\.|§+)\s*)?\d[\w.-]*`;
const CLAUSE = new RegExp(
  String.raw`in the event of (?:a |any )?conflict between this table and [^.]{0,120}?\b(?:in|of|by)\s+(${REF}(?:\s*(?:,|and|through|thru|to)\s*${REF})*)[^.]{0,40}?,?\s*(?:this|the)\s+(?:use\s+)?table\s+(?:shall\s+)?(?:control|govern|prevail)`,
  'gi',
);

/** The permissions once a use table that says it controls has been given precedence. */
export function settleUsePrecedence(permissions: PermissionRecord[], text: string, issues: ParseIssue[]): PermissionRecord[] {
  let out = permissions;
  for (const clause of controllingClauses(text, CLAUSE)) {
    // the controlling table: the first use table whose rows follow the clause
    const first = rulingAfter(
      out.filter((p) => p.citation.locator.table),
      clause,
    );
    if (!first) continue;
    const ruling = first.table_ref;
    const marks = new Map(out.filter((p) => p.table_ref === ruling).map((p) => [`${p.district_code}|${p.use_label_normalized}`, p.level]));
    const left = out.filter((p) => {
      if (p.table_ref === ruling || !inSections(p.citation.locator.section, clause.ranges)) return false;
      const level = marks.get(`${p.district_code}|${p.use_label_normalized}`);
      return level !== undefined && level !== p.level;
    });
    if (left.length === 0) continue;
    const gone = new Set(left);
    out = out.filter((p) => !gone.has(p));
    issues.push({
      severity: 'warning',
      code: 'permission_superseded',
      detail: `${ruling} says it controls over ${clause.named.replace(/\s+/g, ' ')} in a conflict; left out, as marked otherwise there: ${left.map((p) => `${p.district_code} | ${p.use_label_raw} "${p.symbol}" in ${p.table_ref}`).join(', ')}`,
      locator: { table: ruling, start: clause.start, end: clause.end },
    });
  }
  return out;
}
