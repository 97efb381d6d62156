// Field selection (spec 4.0.7): `field=default,-geometry`, `field=all,-provenance`, `field=id,name`.
// Some fields can never be suppressed, at any depth; an unknown field name is field_unknown.
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
  /** fields that are always shown (id, object) besides the contract's; top level only */
  fixed?: string[];
  /** every top-level name the answer can carry, present or not (else: the names the items carry) */
  known?: string[];
  /** the blocks beside the item (resolution, authority, coverage …) are selected by the same names */
  extras?: boolean;
}

const segments = (path: string) => path.split('.');

/** a contains b as consecutive segments */
function containsRun(a: string[], b: string[]): boolean {
  for (let i = 0; i + b.length <= a.length; i++) if (b.every((s, j) => a[i + j] === s)) return true;
  return false;
}

/**
 * Would removing this path take away a field the contract keeps? The contract's fields are kept
 * wherever they sit: a path that names one (`-status`, `-assignment.status`, `-citation.id`),
 * reaches inside one (`-as_of.basis`) or removes the object holding one (`-citation`,
 * `-assignment.citation` take citation.id) is ignored. Removing a whole section that holds them
 * (`-assignment`) is allowed: nothing is left stated without them. A route's own fixed fields
 * (id, object, href) are kept at the top level.
 */
export function isProtectedPath(path: string, fixed: string[] = []): boolean {
  const p = segments(path);
  for (const f of UNSUPPRESSIBLE.map(segments)) {
    if (containsRun(p, f)) return true;
    // the path ends where a protected path begins: it removes the object holding the field
    for (let k = 1; k < f.length; k++) if (p.length >= k && containsRun(p.slice(p.length - k), f.slice(0, k))) return true;
  }
  return fixed.some((f) => f === path || f.startsWith(`${path}.`));
}

/** Refuse an unknown name in a selection (before any work, when the names are declared). */
export function checkFieldNames(spec: string | undefined, known: Iterable<string>): void {
  if (spec === undefined) return;
  const names = new Set(known);
  for (const t of spec.split(',').map((x) => x.trim()).filter(Boolean)) {
    const name = t.replace(/^-/, '');
    if (name !== 'all' && name !== 'default' && !names.has(name) && !names.has(name.split('.')[0])) {
      throw new ApiError('field_unknown', { field: 'field', detail: `${name} is not a field here. Fields: ${[...names].sort().join(', ')}` });
    }
  }
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

function project(item: Obj, spec: string | undefined, rules: FieldRules): Obj {
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
  }
  const base = keep ?? new Set(rules.default ?? all);
  const out: Obj = {};
  for (const k of all) if (base.has(k)) out[k] = item[k];
  const fixed = [...UNSUPPRESSIBLE, ...(rules.fixed ?? [])];
  for (const r of remove) {
    if (isProtectedPath(r, rules.fixed)) continue;
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
  const known = new Set<string>([...(rules.default ?? []), ...(rules.known ?? [])]);
  const objects = items.filter((it) => it && typeof it === 'object');
  for (const it of objects) for (const k of Object.keys(it)) known.add(k);
  // names are checked once; with no item and no declared names there is nothing to check against
  if (objects.length > 0 || rules.known) checkFieldNames(spec, known);
  const shaped = items.map((it) => (it && typeof it === 'object' ? project(it as Obj, spec, rules) : it));
  return Array.isArray(item) ? shaped : shaped[0];
}
