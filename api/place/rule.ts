// The rule answer at one date: each base district share with its controls and permissions,
// overlays composed into one binding answer per cell (losing values kept), the code's rule for
// unlisted uses, moratoriums, and every layer that could not be consulted, named.
import type { Queryable } from '../../store/db.ts';
import type { CitationView } from '../../store/evidence.ts';
import { type Composed, compose, type Stated } from '../../store/place/compose.ts';
import { apartSlivers, lawAt, sliverView } from '../../store/place/law.ts';
import type { Times } from '../../store/place/resolve.ts';

export interface RuleQuery {
  jurisdictionId: string;
  /** the location; null when it is too coarse to place in a district (a jurisdiction-level answer) */
  geojson: string | null;
  /** the point asked, whose own districts come first */
  point?: string | null;
  uses?: string[];
  controlTypes?: string[];
  include: Set<string>;
  heldLayers: Set<string>;
}

type Row = Record<string, any>;

function cellsFor(rows: Row[], districts: Map<string, { code: string; kind: 'base' | 'overlay'; rank: number | null }>, key: (r: Row) => string, same: (r: Row) => string) {
  const cells = new Map<string, Stated[]>();
  for (const r of rows) {
    const d = districts.get(r.district_id)!;
    const list = cells.get(key(r)) ?? [];
    list.push({ district_id: r.district_id, district_code: d.code, kind: d.kind, precedence_rank: d.rank, value: r, same: same(r) });
    cells.set(key(r), list);
  }
  return cells;
}

function cite(c: Map<string, CitationView>, id: string | null) {
  return id ? c.get(id) ?? { id } : null;
}

function controlView(s: Stated, cites: Map<string, CitationView>) {
  const r = s.value as Row;
  return {
    id: r.id,
    control_type: r.control_type,
    building_type: r.building_type,
    qualifier: r.qualifier,
    value: { min: r.min, max: r.max, unit: r.unit },
    value_text: r.value_text,
    conditions: r.conditions,
    table: r.table_ref,
    district: s.district_code,
    from: s.kind,
    citation: cite(cites, r.citation_id),
    effective_from: r.effective_from,
    status: r.status,
  };
}

function permissionView(s: Stated, cites: Map<string, CitationView>) {
  const r = s.value as Row;
  return {
    id: r.id,
    use: { slug: r.use_slug, id: r.use_id, name: r.use_name, label_raw: r.use_label_raw, status: r.use_slug ? 'mapped' : 'unmapped' },
    level: r.level,
    symbol: r.symbol,
    process: r.process,
    conditions: r.conditions,
    table: r.table_ref,
    district: s.district_code,
    from: s.kind,
    citation: cite(cites, r.citation_id),
    effective_from: r.effective_from,
    status: r.status,
  };
}

function composedView(c: Composed, view: (s: Stated) => Record<string, unknown>) {
  return {
    ...(c.binding ? view(c.binding) : { binding: null }),
    status: c.status === 'conflicting' ? 'conflicting' : (c.binding?.value.status ?? 'stated'),
    losing: c.losing.map((l) => ({ ...view(l.statement), reason: l.reason })),
  };
}

export async function ruleAt(db: Queryable, q: RuleQuery, t: Times) {
  const law = { jurisdictionId: q.jurisdictionId, geojson: q.geojson, point: q.point, codeText: q.heldLayers.has('zoning_text'), moratoria: q.include.has('moratorium'), controlTypes: q.controlTypes, uses: q.uses };
  const held = await lawAt(db, law, t);
  const { facts, controls, permissions, unlisted, moratoria, citations: cites } = held;
  const { shares, slivers } = apartSlivers(held.shares);
  const districts = new Map(shares.map((s) => [s.district_id, { code: facts.get(s.district_id)?.code_normalized ?? s.code, kind: s.kind, rank: (facts.get(s.district_id) as Row | undefined)?.precedence_rank ?? null }]));
  const overlays = shares.filter((s) => s.kind === 'overlay');
  const bases = shares.filter((s) => s.kind === 'base');
  const overlayIds = new Set(overlays.map((o) => o.district_id));
  const share = bases.map((b) => {
    const mine = (r: Row) => r.district_id === b.district_id || overlayIds.has(r.district_id);
    const cCells = cellsFor(controls.filter(mine), districts, (r) => `${r.control_type}|${r.building_type ?? ''}|${r.qualifier ?? ''}`, (r) => `${r.min}|${r.max}|${r.unit}`);
    const pCells = cellsFor(permissions.filter(mine), districts, (r) => r.use_slug ?? `raw:${r.use_label_raw}`, (r) => r.level);
    const f = facts.get(b.district_id);
    return {
      district: { id: b.district_id, code: districts.get(b.district_id)!.code, local_label: f?.local_label ?? null, type: f?.type ?? null, citation: cite(cites, f?.citation_id ?? null) },
      share: b.share,
      area_m2: b.area_m2,
      on_boundary: b.on_boundary || undefined,
      contains_point: b.contains_point ?? undefined,
      control: compose(cCells).map((c) => composedView(c, (s) => controlView(s, cites))),
      permission: compose(pCells).map((c) => composedView(c, (s) => permissionView(s, cites))),
    };
  });
  return {
    // no district assignment for a location too coarse to place in one: null, not an empty list
    share: q.geojson ? share : null,
    ...(slivers.length ? { sliver: slivers.map(sliverView) } : {}),
    overlay: q.geojson ? overlays.map((o) => ({ district: { id: o.district_id, code: districts.get(o.district_id)!.code, local_label: facts.get(o.district_id)?.local_label ?? null, citation: cite(cites, facts.get(o.district_id)?.citation_id ?? null) }, share: o.share, contains_point: o.contains_point ?? undefined })) : null,
    unlisted_uses: unlisted ? { result: unlisted.result, process: unlisted.process, citation: cite(cites, unlisted.citation_id), effective_from: unlisted.effective_from } : null,
    ...(q.include.has('moratorium') ? { moratorium: moratoria.map((m) => ({ ...m, citation: cite(cites, m.citation_id) })) } : {}),
  };
}
