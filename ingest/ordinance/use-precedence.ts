// A use table that says it controls: "In the event of conflict between this table and the
// standards listed in Article 40.3 through Article 40.15, the Use Table shall control." Where it
// marks a use in a district one way and a table of the sections it names marks it another, the
// other mark is left out and reported (permission_superseded): the code itself says which governs.
// Marks that agree are both kept. A post-pass over every permission of a parse. Pure.
import type { ParseIssue, PermissionRecord } from '../types.ts';

const REF = String.raw`(?:(?:articles?|sections?|secs?\.|§+)\s*)?\d[\w.-]*`;
const CLAUSE = new RegExp(
  String.raw`in the event of (?:a |any )?conflict between this table and [^.]{0,120}?\b(?:in|of|by)\s+(${REF}(?:\s*(?:,|and|through|thru|to)\s*${REF})*)[^.]{0,40}?,?\s*(?:this|the)\s+(?:use\s+)?table\s+(?:shall\s+)?(?:control|govern|prevail)`,
  'gi',
);

const numbers = (ref: string) => (ref.match(/\d+/g) ?? []).map(Number);

/** -1, 0 or 1 as a section's numbers fall before, within or after another's ("40.8C" is within "40.8"). */
function order(a: number[], b: number[]): number {
  for (let i = 0; i < Math.min(a.length, b.length); i++) if (a[i] !== b[i]) return Math.sign(a[i] - b[i]);
  return 0;
}

/** The sections a clause names, as ranges: "Article 40.3 through Article 40.15" → one range. */
function rangesOf(list: string): Array<{ from: number[]; to: number[] }> {
  return list
    .split(/\s*(?:,|\band\b)\s*/i)
    .filter(Boolean)
    .map((piece) => {
      const [from, to] = piece.split(/\s+(?:through|thru|to)\s+/i);
      return { from: numbers(from), to: numbers(to ?? from) };
    })
    .filter((r) => r.from.length > 0 && r.to.length > 0);
}

const inRanges = (ref: string | null | undefined, ranges: ReturnType<typeof rangesOf>) => {
  const n = numbers(ref ?? '');
  return n.length > 0 && ranges.some((r) => order(n, r.from) >= 0 && order(n, r.to) <= 0);
};

/** The permissions once a use table that says it controls has been given precedence. */
export function settleUsePrecedence(permissions: PermissionRecord[], text: string, issues: ParseIssue[]): PermissionRecord[] {
  let out = permissions;
  for (const m of text.matchAll(CLAUSE)) {
    const end = (m.index ?? 0) + m[0].length;
    // the controlling table: the first use table whose rows follow the clause
    const first = out.filter((p) => p.citation.locator.table && p.citation.locator.start >= end).sort((a, b) => a.citation.locator.start - b.citation.locator.start)[0];
    if (!first || first.citation.locator.start - end > 5000) continue;
    const ruling = first.table_ref;
    const marks = new Map(out.filter((p) => p.table_ref === ruling).map((p) => [`${p.district_code}|${p.use_label_normalized}`, p.level]));
    const ranges = rangesOf(m[1]);
    const left = out.filter((p) => {
      if (p.table_ref === ruling || !inRanges(p.citation.locator.section, ranges)) return false;
      const level = marks.get(`${p.district_code}|${p.use_label_normalized}`);
      return level !== undefined && level !== p.level;
    });
    if (left.length === 0) continue;
    const gone = new Set(left);
    out = out.filter((p) => !gone.has(p));
    issues.push({
      severity: 'warning',
      code: 'permission_superseded',
      detail: `${ruling} says it controls over ${m[1].replace(/\s+/g, ' ')} in a conflict; left out, as marked otherwise there: ${left.map((p) => `${p.district_code} | ${p.use_label_raw} "${p.symbol}" in ${p.table_ref}`).join(', ')}`,
      locator: { table: ruling, start: m.index ?? 0, end },
    });
  }
  return out;
}
