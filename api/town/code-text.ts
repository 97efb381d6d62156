// Why a town's code text is not in force on a date, from what is held of its code texts: shared by
// the codes of one town and its plans.
import type { CodeTextsHeld } from '../../store/codes.ts';
import type { Times } from '../../store/place/resolve.ts';
import type { Town } from './context.ts';

/** Why no code text of the town is in force on the date, from what is held of its code texts. */
export function whyNoCodeText(town: Town, held: CodeTextsHeld, t: Times): string {
  const name = town.j.name;
  if (held.sources.length === 0) return `No code text of ${name} is held: no code_text source of it is named.`;
  if (held.titles.length === 0) return `No text of the code text sources of ${name} (${held.sources.join(', ')}) was loaded as known at ${t.knownAsOf}.`;
  return `The zoning code text held for ${name} (${held.titles.join('; ')}) is in force from ${held.from}${held.through ? ` to ${held.through}` : ''}; not on ${t.asOf}.`;
}
