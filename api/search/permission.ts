// The regional permission as served (spec 2.5): a store row of GET /permission shaped into the
// item, its cells cited, its segments over an interval, and why a row is undecided.
import { stableId } from '../../core/ids.ts';
import { citationView } from '../../store/evidence.ts';
import type { Row, UseTerm } from '../../store/search/permission.ts';
import { precedenceView } from '../place/standing.ts';
import { runsOf } from '../town/timeline.ts';

const RANKS = ['by_right', 'permitted_with_standards', 'administrative_approval', 'conditional_use', 'prohibited'];
const rankOf = (level: string) => (RANKS.includes(level) ? RANKS.indexOf(level) + 1 : null);

/** A cell of a use table as served. */
function cellView(c: Row) {
  return {
    id: c.id,
    label: c.label,
    use: c.slug,
    symbol: c.symbol,
    level: c.level,
    process: c.process,
    conditions: c.conditions,
    table: c.table,
    status: c.status,
    effective_from: c.from,
    effective_through: c.to,
    citation: c.citation ? citationView(c.citation) : null,
  };
}
type Cell = ReturnType<typeof cellView>;

const stated = (c: Cell) => c.status !== 'withheld' && c.level !== 'unknown';

/** What a set of cells says together: the most permissive level stated, conflicting when they state different levels. */
function reading(cells: Cell[]) {
  const levels = [...new Set(cells.filter(stated).map((c) => c.level as string))].sort((a, b) => (rankOf(a) ?? 9) - (rankOf(b) ?? 9));
  if (levels.length === 0) return { level: null, level_rank: null, status: 'withheld' as const };
  const conflicting = levels.length > 1 || cells.some((c) => c.status === 'conflicting');
  return { level: levels[0], level_rank: rankOf(levels[0]), status: conflicting ? ('conflicting' as const) : ('stated' as const) };
}

/** The cells in force on each date the interval's cells start or end on, as maximal runs (null: the use not addressed). */
export function segmentsOf(cells: Cell[], from: string, to: string) {
  const inside = (d: string | null) => d !== null && d > from && d <= to;
  const starts = [from, ...new Set(cells.flatMap((c) => [c.effective_from, c.effective_through]).filter(inside) as string[])].sort();
  const values = starts.map((day) => {
    const now = cells.filter((c) => (c.effective_from === null || c.effective_from <= day) && (c.effective_through === null || day < c.effective_through));
    return now.length ? { ...reading(now), cell: now } : null;
  });
  const same = (v: (typeof values)[number]) => JSON.stringify(v && { ...v, cell: v.cell.map((c) => c.id + c.level + c.symbol + c.status) });
  return runsOf(starts, to, values, same).map((s) => ({ from: s.from, to: s.to, permission: s.value }));
}

const WORDS = (s: string) =>
  s
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((w) => w.length > 2 && !STOP.has(w))
    .map((w) => w.replace(/(ies|es|s)$/, ''));
const STOP = new Set(['and', 'the', 'for', 'with', 'use', 'uses', 'other', 'except', 'follows', 'noted', 'below', 'than', 'not']);

/** Unmapped labels of a district that share a word with the use asked: any of them might be it. */
export function mightBe(labels: string[], term: Pick<UseTerm, 'slug' | 'name'>): string[] {
  const wanted = new Set([...WORDS(term.name), ...WORDS(term.slug.split('.').pop() ?? '')]);
  return labels.filter((l) => WORDS(l).some((w) => wanted.has(w)));
}

const REASON: Record<string, (r: Row, use: string) => string> = {
  not_listed: (r, use) =>
    `No cell of the use tables read for ${r.d_code} names ${use} or a narrower use; a use a table does not name is not thereby prohibited (the code's rule for unlisted uses is given${r.broader?.length ? ', and the cells of broader uses it may fall under' : ''}).`,
  no_use_table: (r) => `No use table read from the zoning text held for ${r.j_name} has a column for ${r.d_code}.`,
  cell_unreadable: (r, use) => `Every cell stating ${use} in ${r.d_code} is blank or could not be read (held as level unknown, status withheld).`,
  filter: () => 'A filter could not be evaluated on this row (it has no value for a field the filter names).',
};

export interface Shaping {
  terms: Map<string, UseTerm>;
  interval: { from: string; to: string } | null;
  include: { control: boolean; composition: boolean };
}

/** binds and supersession_risk: what held could supersede the row where it applies. */
function supersession(r: Row, level_rank: number | null) {
  const others = (r.overlays ?? []) as Array<{ id: string; code: string; precedence_rank: number | null; level_rank: number | null }>;
  const overlay = others.map((o) => ({ id: o.id, code: o.code, level: o.level_rank ? RANKS[o.level_rank - 1] : null, precedence_rank: o.precedence_rank }));
  if (level_rank === null) return { binds: null, supersession_risk: { basis: 'undecided', overlay } };
  if (others.length === 0) return { binds: true, supersession_risk: { basis: 'none', overlay } };
  const agree = others.every((o) => o.level_rank === level_rank);
  if (r.d_kind === 'base') return { binds: agree, supersession_risk: { basis: agree ? 'overlays_agree' : 'overlay_states_other_level', overlay } };
  const first = r.d_rank !== null && others.every((o) => o.precedence_rank !== null && r.d_rank < o.precedence_rank);
  return { binds: agree || first, supersession_risk: { basis: agree ? 'overlays_agree' : first ? 'precedence_stated' : 'overlays_disagree', overlay } };
}

/** A store row as the regional permission item. */
export function permissionItem(r: Row, s: Shaping) {
  const term = s.terms.get(r.u_slug);
  const cells = ((r.cells ?? []) as Row[]).map(cellView);
  const undecided = r.decided === null || r.undecided;
  const segment = s.interval ? (cells.length ? segmentsOf(cells, s.interval.from, s.interval.to) : [{ from: s.interval.from, to: s.interval.to, permission: null }]) : null;
  const latest = segment ? [...segment].reverse().find((x) => x.permission)?.permission : null;
  const status = segment ? (latest?.status ?? 'withheld') : r.status;
  const level_rank: number | null = r.level_rank && r.level_rank <= 4 ? r.level_rank : null;
  const citing = cells.filter((c) => stated(c) && c.level === r.level);
  // the cell that states the row's level (the latest to take effect, first in the tables' order)
  const binding = citing.reduce<Cell | null>((best, c) => (!best || (c.effective_from ?? '') > (best.effective_from ?? '') ? c : best), null);
  const use = term ?? { slug: r.u_slug, id: null, name: null, via: [r.u_slug] };
  const item: Record<string, unknown> = {
    id: stableId('regional_permission', r.d_id, r.u_slug),
    use: { id: use.id, slug: use.slug, name: use.name, via: use.via, match: use.via.includes(use.slug) ? 'exact' : 'narrower' },
    jurisdiction: { id: r.j_id, name: r.j_name, slug: r.j_slug, fips_key: r.j_fips_key, href: `/jurisdiction/${r.j_id}` },
    district: r.d_id,
    district_code: r.d_code,
    district_kind: r.d_kind,
    district_label: r.d_label,
    overlay: r.d_kind === 'overlay' ? r.d_id : null,
    private_restriction: null,
    level: level_rank ? r.level : null,
    level_rank,
    status,
    ...supersession(r, r.level_rank ?? null),
    effective_from: r.effective_from,
    citation: binding?.citation ?? null,
    cell: cells,
    constant: segment ? segment.length === 1 : true,
    data_horizon: r.j_retrieved ? String(r.j_retrieved instanceof Date ? r.j_retrieved.toISOString() : r.j_retrieved).slice(0, 10) : null,
    horizon_basis: 'measured',
    filter_outcome: undecided ? 'indeterminate' : 'match',
    href: `/jurisdiction/${r.j_id}/district/${encodeURIComponent(r.d_code)}?use=${encodeURIComponent(r.u_slug)}`,
  };
  if (undecided) {
    const code = r.reason ?? 'filter';
    const labels: string[] = r.unmapped ?? [];
    item.indeterminate = {
      reason: code,
      detail: REASON[code](r, use.slug),
      ...(r.reason ? { unlisted_uses: r.unlisted ? { ...r.unlisted, citation: r.unlisted.citation ? citationView(r.unlisted.citation) : null } : null } : {}),
      ...(code === 'not_listed' ? { broader: ((r.broader ?? []) as Row[]).map(cellView), unmapped_label_count: labels.length, unmapped_label: mightBe(labels, use as UseTerm) } : {}),
    };
  }
  if (segment) item.segment = segment;
  if (s.include.control) item.control = ((r.controls ?? []) as Row[]).map((k) => ({ ...k, citation: k.citation ? citationView(k.citation) : null }));
  if (s.include.composition) {
    const held = { text: Boolean(r.text_held), ordinances: 0 };
    item.composition = {
      precedence: precedenceView({ code: r.d_code, kind: r.d_kind, precedence_rank: r.d_rank, source_kind: r.d_source }, { jurisdiction: r.j_name, held, asOf: r.day }),
      overlay: (item.supersession_risk as { overlay: unknown[] }).overlay,
    };
  }
  return item;
}

/** Why a jurisdiction in scope cannot be answered for, from its zoning_text coverage. */
export function notAnsweredRow(j: Row) {
  const sources = Object.values((j.sources ?? {}) as Record<string, Row>);
  const problem = sources.map((x) => x.problem).find(Boolean) ?? null;
  const unread = sources.reduce((n, x) => n + (Number(x.tables_unread) || 0), 0);
  let reason: string;
  if (!j.held) reason = `No zoning text of ${j.name} is held${problem ? '; the last attempt to read one failed' : ''}.`;
  else if (!j.cells_ever) reason = `The zoning text held for ${j.name} gave no use table that could be read${unread ? ` (${unread} tables not read)` : ''}.`;
  else if (!j.cells_known) reason = `No use table of ${j.name} was held as known at ${j.known}.`;
  else reason = `No cell of a use table of ${j.name} is in force on ${j.day} as known at ${j.known}${j.earliest_retained ? `; the earliest held takes effect ${j.earliest_retained}` : ''}.`;
  return {
    jurisdiction: { id: j.id, name: j.name, slug: j.slug, fips_key: j.fips_key, href: `/jurisdiction/${j.id}` },
    layer: 'zoning_text',
    held: Boolean(j.held),
    tier: j.tier ?? 'none',
    earliest_retained: j.earliest_retained ?? null,
    last_retrieved_at: j.last_retrieved_at ?? null,
    reason,
    ...(problem ? { problem } : {}),
    href: `/coverage?jurisdiction=${j.id}&layer=zoning_text`,
  };
}
