// District codes as the same district is written in different places: `RS-1`, `RS1`, `RS 1`,
// `R-S-1` on the map, in the list, in table headers and in prose. A code's key folds those
// forms together; reconciling the codes each source names tells which districts they share and
// which only one of them names. Pure.

/** The matching key of a code: upper case, separators between letters and digits dropped (`RS-1`, `RS 1`, `R-S-1` → `RS1`); `&` and `.` kept (`S & O` → `S&O`, `RT-3.5` → `RT3.5`). */
export function codeKey(code: string): string {
  return code
    .normalize('NFKC')
    .toUpperCase()
    .replace(/[\u2010-\u2015]/g, '-')
    .replace(/[\s\-_/]+/g, '')
    .trim();
}

export interface CodeSource {
  /** what named them: `map`, `list`, `text` … */
  name: string;
  codes: string[];
}

export interface ReconciledCode {
  key: string;
  /** the form kept: the first source's that names it (sources in order of authority) */
  code: string;
  /** every form seen, by source */
  forms: Record<string, string[]>;
}

export interface Reconciliation {
  codes: ReconciledCode[];
  /** per source, the keys no other source names */
  only: Record<string, string[]>;
  /** keys under which one source writes two different codes (`B1-1` and `B11`): matched only exactly */
  ambiguous: string[];
}

/** Which districts the sources share, and which only one names. Sources in order of authority. */
export function reconcileCodes(sources: CodeSource[]): Reconciliation {
  const byKey = new Map<string, ReconciledCode>();
  const ambiguous = new Set<string>();
  for (const s of sources) {
    const mine = new Map<string, Set<string>>();
    for (const raw of s.codes) {
      const code = raw.normalize('NFKC').trim().replace(/\s+/g, ' ');
      if (!code) continue;
      const key = codeKey(code);
      if (!key) continue;
      const set = mine.get(key) ?? new Set<string>();
      set.add(code.toUpperCase());
      mine.set(key, set);
      const entry = byKey.get(key) ?? { key, code, forms: {} };
      byKey.set(key, entry);
      const forms = entry.forms[s.name] ?? [];
      if (!forms.includes(code)) forms.push(code);
      entry.forms[s.name] = forms;
    }
    for (const [key, set] of mine) if (set.size > 1) ambiguous.add(key);
  }
  const only: Record<string, string[]> = {};
  for (const s of sources) only[s.name] = [];
  for (const e of byKey.values()) {
    const names = Object.keys(e.forms);
    if (names.length === 1 && sources.length > 1) only[names[0]].push(e.code);
  }
  for (const list of Object.values(only)) list.sort();
  return { codes: [...byKey.values()].sort((a, b) => a.key.localeCompare(b.key)), only, ambiguous: [...ambiguous].sort() };
}

/**
 * The text's district that a mapped code belongs to when the text names a family and the map
 * its members (`B1` in the text, `B1-1` … `B1-5` on the map): the longest text code that the
 * mapped code extends at a separator. Null when none does, or when the text names the code itself.
 */
export function familyOf(mapped: string, textCodes: string[]): string | null {
  const m = mapped.normalize('NFKC').toUpperCase().trim();
  if (textCodes.some((t) => codeKey(t) === codeKey(m))) return null; // the text names it itself
  let best: string | null = null;
  for (const t of textCodes) {
    const c = t.normalize('NFKC').toUpperCase().trim();
    if (m.length > c.length && m.startsWith(c) && /^[\s\-–]/.test(m.slice(c.length)) && (!best || c.length > best.length)) best = t;
  }
  return best;
}
