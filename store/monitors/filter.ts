// A list item's `filter` as a monitor reads it: which permits, cases and changes of the law at the
// site's parcels are sent. Keys (each optional; absent = no constraint):
//   kind    'permit' (permits and applications), 'case', 'law' (rezonings and rule changes)
//   type    record type codes as the feed prints them (permit_type, case_type), any case
//   status  record status codes as the feed prints them, any case
// type and status constrain records only. A value may be one string or an array of strings. The
// list routes store any object; read here, a key not defined above, or a value of the wrong shape,
// constrains nothing (so nothing is lost to a filter that cannot be read): filterProblems names them.
export const FILTER_KINDS = ['permit', 'case', 'law'] as const;
export type FilterKind = (typeof FILTER_KINDS)[number];
export const FILTER_KEYS = ['kind', 'type', 'status'] as const;

export interface ItemFilter {
  kind: Set<string> | null;
  type: Set<string> | null;
  status: Set<string> | null;
}

const fold = (s: string) => s.trim().toUpperCase();

/** The strings of a value (one string, or an array of strings), or null when it is not one. */
function strings(v: unknown): string[] | null {
  if (typeof v === 'string') return [v];
  if (Array.isArray(v) && v.every((x) => typeof x === 'string')) return v as string[];
  return null;
}

/** What is wrong with a filter, by key (empty when every key is read as written). */
export function filterProblems(filter: unknown): Array<{ key: string; detail: string }> {
  if (filter === null || filter === undefined) return [];
  if (typeof filter !== 'object' || Array.isArray(filter)) return [{ key: '', detail: 'a filter is an object' }];
  const out: Array<{ key: string; detail: string }> = [];
  for (const [key, v] of Object.entries(filter)) {
    if (!(FILTER_KEYS as readonly string[]).includes(key)) {
      out.push({ key, detail: `not a filter key; the keys are ${FILTER_KEYS.join(', ')}` });
      continue;
    }
    const list = strings(v);
    if (!list) out.push({ key, detail: 'is a string or an array of strings' });
    else if (key === 'kind') {
      const bad = list.find((k) => !(FILTER_KINDS as readonly string[]).includes(k));
      if (bad !== undefined) out.push({ key, detail: `${JSON.stringify(bad)} is not one of ${FILTER_KINDS.join(', ')}` });
    }
  }
  return out;
}

/** The filter as matching reads it: keys with a problem are left out (no constraint). */
export function readFilter(filter: unknown): ItemFilter {
  const f: ItemFilter = { kind: null, type: null, status: null };
  if (!filter || typeof filter !== 'object' || Array.isArray(filter)) return f;
  const bad = new Set(filterProblems(filter).map((p) => p.key));
  const raw = filter as Record<string, unknown>;
  for (const key of FILTER_KEYS) {
    if (!(key in raw) || bad.has(key)) continue;
    const list = strings(raw[key])!;
    f[key] = new Set(key === 'kind' ? list : list.map(fold));
  }
  return f;
}

/** Whether a record (kind permit, application or case; its type and status codes) passes. */
export function recordPasses(f: ItemFilter, r: { kind: string; type: string | null; status: string | null }): boolean {
  const kind = r.kind === 'case' ? 'case' : 'permit';
  if (f.kind && !f.kind.has(kind)) return false;
  if (f.type && !(r.type !== null && f.type.has(fold(r.type)))) return false;
  if (f.status && !(r.status !== null && f.status.has(fold(r.status)))) return false;
  return true;
}

/** Whether changes of the law at the site are sent. */
export const lawPasses = (f: ItemFilter) => !f.kind || f.kind.has('law');
