// The code's rule for uses its tables never name: "Uses not listed in Table 4.1 are prohibited",
// "Uses that are not listed in the table are also prohibited", or "No building … shall be used …
// for any use not expressly permitted in that district". The one tied to the widest use table wins. Pure.
import type { UnlistedUseRecord } from '../types.ts';
import type { Citer } from './text.ts';

const UNLISTED =
  /\b(?:a |any )?uses?(?: categories| types?)?(?: that are| which are)? not (?:listed|identified|named|shown)(?: (?:in|on) (?:the )?(?:use )?(Table [\dA-Za-z.-]+?|tables?|this (?:article|section|chapter|ordinance)))?\.?,? (?:is|are|shall be) (?:also |hereby )?(not permitted|prohibited|permitted by special permit|permitted)\b[^.]*\./gi;

// "No building … shall be used … for any use not expressly permitted in that district"
const NOT_PERMITTED = /\bno\s+(?:building|structure|land|lot|premises)\b[^.]{0,200}?\b(?:shall|may)\s+be\s+used\b[^.]{0,200}?\bfor\s+any\s+(?:use|purpose)\s+(?:(?:that\s+is\s+)?not\s+(?:expressly\s+|specifically\s+)?(?:permitted|allowed|listed)|other\s+than)\b[^.]*\./gi;

/** The code's rule for uses its tables never name; the one tied to the widest use table wins. */
export function readUnlistedRule(text: string, citer: Citer, sectionOf: (offset: number) => { ref: string; heading: string | null } | null, preferTable: string | null): UnlistedUseRecord | null {
  let best: { rec: UnlistedUseRecord; score: number } | null = null;
  const consider = (start: number, end: number, result: UnlistedUseRecord['result'], score: number) => {
    const sec = sectionOf(start);
    const rec: UnlistedUseRecord = {
      result,
      process: result === 'conditional' ? 'special permit' : null,
      citation: citer.cite({ start, end }, { section: sec?.ref ?? null, heading: sec?.heading ?? null }, sec?.ref ?? null),
    };
    if (!best || score > best.score) best = { rec, score };
  };
  for (const m of text.matchAll(UNLISTED)) {
    const start = (m.index ?? 0) + (m[0].length - m[0].trimStart().length);
    const result = /permitted by special permit/i.test(m[2]) ? 'conditional' : /not permitted|prohibited/i.test(m[2]) ? 'prohibited' : 'permitted';
    const named = m[1] && /^Table /.test(m[1]) ? m[1].replace(/\.$/, '') : null;
    consider(start, (m.index ?? 0) + m[0].length, result, (preferTable && named === preferTable ? 2 : 0) + (/district/i.test(m[0]) || !m[1] ? 1 : 0));
  }
  if (!best) for (const m of text.matchAll(NOT_PERMITTED)) consider(m.index ?? 0, (m.index ?? 0) + m[0].length, 'prohibited', 0);
  return (best as { rec: UnlistedUseRecord } | null)?.rec ?? null;
}
