// `sort=field,-field2`: at most three fields, each listed by the resource; the id is always
// the final tiebreaker. NULLs sort last in either direction.
import { ApiError, invalid } from '../errors.ts';
import type { ResourceDef } from './resource.ts';

export const MAX_SORT_FIELDS = 3;

export interface SortKey {
  field: string;
  desc: boolean;
}

/** `text` is what request.param shows and what cursors are tied to. */
export interface SortSpec {
  keys: SortKey[];
  text: string;
}

export function sortFields(def: ResourceDef): string[] {
  return Object.entries(def.fields)
    .filter(([, f]) => f.sortable)
    .map(([n]) => n)
    .sort();
}

export function parseSort(def: ResourceDef, raw: string, field = 'sort'): SortSpec {
  const parts = raw.split(',').map((s) => s.trim());
  if (parts.some((p) => p === '' || p === '-')) throw invalid(field, 'sort is a comma-separated list of fields, each optionally prefixed with -');
  if (parts.length > MAX_SORT_FIELDS) throw invalid(field, `sort takes at most ${MAX_SORT_FIELDS} fields (${parts.length} given)`);
  const valid = sortFields(def);
  const keys = parts.map((p) => ({ field: p.replace(/^-/, ''), desc: p.startsWith('-') }));
  const seen = new Set<string>();
  for (const k of keys) {
    if (!valid.includes(k.field)) {
      throw new ApiError('field_unknown', { field, detail: `${JSON.stringify(k.field)} is not a sort field here. Sort fields: ${valid.join(', ')}.` });
    }
    if (seen.has(k.field)) throw invalid(field, `${k.field} is named twice`);
    seen.add(k.field);
  }
  return { keys, text: keys.map((k) => (k.desc ? '-' : '') + k.field).join(',') };
}

/** The sort in force: the one asked, or the resource's default; refuses a query-only sort without a query. */
export function effectiveSort(def: ResourceDef, asked: SortSpec | undefined, hasQuery: boolean): SortSpec {
  const spec = asked ?? parseSort(def, def.defaultSort);
  for (const k of spec.keys) {
    if (def.fields[k.field].requiresQuery && !hasQuery) {
      throw new ApiError('sort_requires_query', { field: 'sort', detail: `sort by ${k.field} ranks against a query; send q, or sort by another field.` });
    }
  }
  return spec;
}
