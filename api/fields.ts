// Field selection (spec 4.0.7): `field=default,-geometry`, `field=all,-provenance`, `field=id,name`.
// Some fields can never be suppressed; an unknown field name is field_unknown.
import { ApiError } from '../core/errors.ts';
import type { Param } from './params.ts';

/** Named by the contract: these survive any selection. */
export const UNSUPPRESSIBLE = ['as_of', 'status', 'citation.id', 'effective_from', 'derivation'];

export const FIELD_PARAM: Param = {
  name: 'field',
  in: 'query',
  type: 'string',
  description: 'Field selection: default or all, then names to add or -names to remove, comma-separated (e.g. default,-geometry).',
};

export interface FieldRules {
  /** fields shown without a selection (absent: every field) */
  default?: string[];
  /** fields that are always shown (id, object) besides the contract's */
  fixed?: string[];
}

type Obj = Record<string, unknown>;

function removePath(obj: Obj, path: string[]) {
  const [head, ...rest] = path;
  if (!(head in obj)) return;
  if (rest.length === 0) delete obj[head];
  else if (obj[head] && typeof obj[head] === 'object') {
    const child = obj[head];
    if (!Array.isArray(child)) removePath(child as Obj, rest);
    else for (const c of child) if (c && typeof c === 'object') removePath(c as Obj, rest);
  }
}

function project(item: Obj, spec: string | undefined, rules: FieldRules, known: Set<string>): Obj {
  const tokens = (spec ?? 'default').split(',').map((t) => t.trim()).filter(Boolean);
  const all = Object.keys(item);
  let keep: Set<string> | null = null;
  const remove: string[] = [];
  for (const t of tokens) {
    if (t === 'all') keep = new Set(all);
    else if (t === 'default') keep = new Set(rules.default ?? all);
    else if (t.startsWith('-')) remove.push(t.slice(1));
    else {
      keep ??= new Set();
      keep.add(t.split('.')[0]);
    }
    const name = t.replace(/^-/, '');
    if (name !== 'all' && name !== 'default' && !known.has(name) && !known.has(name.split('.')[0])) {
      throw new ApiError('field_unknown', { field: 'field', detail: `${name} is not a field here. Fields: ${[...known].sort().join(', ')}` });
    }
  }
  const base = keep ?? new Set(rules.default ?? all);
  const out: Obj = {};
  for (const k of all) if (base.has(k)) out[k] = item[k];
  const fixed = [...UNSUPPRESSIBLE, ...(rules.fixed ?? [])];
  for (const r of remove) {
    if (fixed.includes(r)) continue;
    const copy = out[r.split('.')[0]];
    if (copy && typeof copy === 'object' && r.includes('.')) out[r.split('.')[0]] = structuredClone(copy);
    removePath(out, r.split('.'));
  }
  for (const f of fixed) {
    const head = f.split('.')[0];
    if (head in item && !(head in out)) out[head] = item[head];
  }
  return out;
}

export function selectFields(item: unknown, spec: string | undefined, rules: FieldRules): unknown {
  if (spec === undefined && !rules.default) return item;
  const items = Array.isArray(item) ? item : [item];
  const known = new Set<string>(rules.default ?? []);
  for (const it of items) if (it && typeof it === 'object') for (const k of Object.keys(it)) known.add(k);
  const shaped = items.map((it) => (it && typeof it === 'object' ? project(it as Obj, spec, rules, known) : it));
  return Array.isArray(item) ? shaped : shaped[0];
}
