// How each table of a code is read: which of its columns speak for districts (a header, or the
// district whose section holds it), whether it is a use table (marks, and a key, a use title or a
// manifest legend), its name in facts and issues, and the prose around it where the code explains
// its marks. Tables that look like use tables but cannot be read, and uses two tables mark
// differently, are reported. Pure.
import type { OrdinanceHints } from '../manifest.ts';
import type { ParseIssue, PermissionRecord } from '../types.ts';
import { cellKind } from './cells.ts';
import { type DistrictIndex, isMarkedCode, splitCodeList } from './codes.ts';
import { type Layout, layoutOf } from './columns.ts';
import { districtAround } from './districts.ts';
import type { Marks } from './legend.ts';
import type { Grid } from './model.ts';
import { type SectionNode, sectionAt } from './sections.ts';
import type { Span } from './text.ts';
import { type BlankRule, isMarkCell, marksShare, ownKey } from './uses.ts';

export interface Plan {
  source: Grid; // the table as the document model holds it
  grid: Grid; // as read for uses (rows a Word table drew on their own grid lined up)
  node: SectionNode | null;
  around: string | null;
  layout: Layout | null;
  name: string | null;
  context: string;
  near: Span[];
  keyTables: Grid[]; // tables beside it in its section, which may print its key
  key: Marks;
  isUse: boolean;
  partial: boolean; // a use table only some of whose columns of marks name districts
}

/** How a table is named in facts and issues: its ref ("Table 4.1"), else its section ("§ 60.1"), else its caption. */
function tableName(grid: Grid, node: SectionNode | null): string | null {
  return grid.ref ?? (node ? `§ ${node.record.ref}` : null) ?? (grid.caption ? grid.caption.text.replace(/\s+/g, ' ').trim() : null);
}

/** The prose before a table in its section and its parent's, where a code explains its marks. */
function contextOf(text: string, grid: Grid, node: SectionNode | null): string {
  const top = node?.parent ?? node;
  const from = top ? top.start : Math.max(0, grid.start - 4000);
  return text.slice(Math.max(from, grid.start - 20000), grid.start);
}

/** The table with each row's printed cells side by side, one column each: rows a Word table drew on a grid of their own line up. */
function compact(grid: Grid): Grid {
  const rows = grid.rows.map((r, ri) => {
    const cells = r.cells.filter((c, i) => r.cells.indexOf(c) === i).map((c, ci) => ({ ...c, row: ri, col: ci, rowspan: 1, colspan: 1 }));
    return { ...r, cells };
  });
  const width = Math.max(...rows.map((r) => r.cells.length));
  for (const r of rows) while (r.cells.length < width) r.cells.push({ text: '', start: r.end, end: r.end, row: 0, col: r.cells.length, rowspan: 1, colspan: 1 });
  return { ...grid, rows, width };
}

/** A table inside one district's section whose one value column is marks and whose header names no district. */
function singleDistrict(grid: Grid, around: string): { grid: Grid; layout: Layout } | null {
  const g = compact(grid);
  const candidates: number[] = [];
  for (let col = 1; col < g.width; col++) {
    const cells = g.rows.map((r) => r.cells[col]).filter((c) => c.text);
    const marks = cells.filter((c) => cellKind(c.text) === 'mark').length;
    if (cells.length >= 3 && marks / cells.length >= 0.8) candidates.push(col);
  }
  if (candidates.length !== 1) return null;
  const col = candidates[0];
  // a column headed by words ("Commercial Building") speaks for something else than the district
  const head = g.rows[0].cells[col].text;
  if (/[a-z]/.test(head)) return null;
  const trailing = Array.from({ length: g.width - col - 1 }, (_, i) => ({ index: col + 1 + i, name: `column ${col + 2 + i}` }));
  return { grid: g, layout: { headerEnd: -1, columns: [{ index: col, codes: [around], printed: around, variant: null, start: grid.start, end: grid.start }], labelCols: Array.from({ length: col }, (_, i) => i), trailing, unknown: [] } };
}

/** Value columns that print marks, each counted once however many grid columns it spans. */
function markColumns(grid: Grid, layout: Layout): number {
  const seen = new Set<unknown>();
  for (let col = (layout.labelCols.at(-1) ?? 0) + 1; col < grid.width; col++) {
    const head = grid.rows[Math.max(0, layout.headerEnd)]?.cells[col];
    if (seen.has(head)) continue;
    if (grid.rows.slice(layout.headerEnd + 1).some((r) => r.cells[col].col === col && cellKind(r.cells[col].text) === 'mark')) seen.add(head);
  }
  return seen.size;
}

export interface PlanInput {
  table: Grid;
  tables: Grid[]; // every table of the document
  text: string;
  nodes: SectionNode[];
  byNode: Map<SectionNode, string>;
  index: DistrictIndex;
  accept: (code: string) => boolean;
  hints: OrdinanceHints;
}

export function planTable(input: PlanInput): Plan {
  const { table, tables, text, nodes, byNode, index, accept, hints } = input;
  const node = sectionAt(nodes, table.start);
  const around = districtAround(node, byNode);
  let grid = table;
  let layout = layoutOf(grid, { index, accept, around });
  if (!layout && around) {
    const one = singleDistrict(grid, around);
    if (one) ({ grid, layout } = one);
  }
  const name = tableName(grid, node);
  const context = contextOf(text, grid, node);
  const share = layout ? marksShare(grid, layout) : { marks: 0, filled: 0 };
  const marky = share.filled > 0 && share.marks / share.filled >= 0.8;
  const near = [...grid.before, ...grid.after].filter((s) => sectionAt(nodes, s.start) === node);
  const keyTables = tables.filter((t) => t !== table && sectionAt(nodes, t.start) === node && (Math.abs(t.start - table.end) < 600 || Math.abs(table.start - t.end) < 600));
  const key: Marks = marky || (!layout && markish(grid)) ? ownKey(grid, text, context, near, keyTables) : new Map();
  const titled = /\buses?\b/i.test(`${grid.caption?.text ?? ''} ${node?.record.heading ?? ''} ${node?.parent?.record.heading ?? ''}`);
  const covered = layout ? new Set(layout.columns.map((c) => c.start)).size * 2 >= markColumns(grid, layout) : false;
  const isUse = !!layout && marky && covered && (titled || key.size > 0 || Object.keys(hints.legend ?? {}).length > 0);
  return { source: table, grid, node, around, layout, name, context, near, keyTables, key, isUse, partial: !!layout && marky && !covered && (titled || key.size > 0) };
}

/** A table with no header of its own right after a use table of the same width, whose cells are marks: the use table going on (over a page). */
export function continueTables(plans: Plan[]): void {
  for (let i = 1; i < plans.length; i++) {
    const p = plans[i];
    const prev = plans[i - 1];
    if (p.layout || !prev.isUse || !prev.layout || p.grid.width !== prev.grid.width) continue;
    if (p.source.start - prev.source.end > 3000 || !markish(p.grid)) continue;
    Object.assign(p, { layout: { ...prev.layout, headerEnd: -1, unknown: [] }, name: prev.name, key: prev.key, context: prev.context, isUse: true, partial: false });
  }
}

/** One use in one district marked differently by two tables ("C" in § 40.12B, "P" in § 60.1): both are kept, and reported. */
export function reportConflicts(permissions: PermissionRecord[], issues: ParseIssue[]): void {
  const by = new Map<string, PermissionRecord[]>();
  for (const p of permissions) {
    if (/, column \d+$/.test(p.table_ref ?? '')) continue; // a numbered column is a regime of its own
    const k = `${p.district_code} | ${p.use_label_normalized}`;
    by.set(k, [...(by.get(k) ?? []), p]);
  }
  for (const [k, list] of by) {
    const tables = new Set(list.map((p) => p.table_ref));
    if (tables.size < 2 || new Set(list.map((p) => p.level)).size < 2) continue;
    issues.push({ severity: 'warning', code: 'permission_conflicting', detail: `${k}: ${list.map((p) => `"${p.symbol}" (${p.level}) in ${p.table_ref}`).join(', ')}; each is kept as its table states it` });
  }
}

/** The blank-cell rule's place in the text and its section. */
export function locateRule(rule: { text: string; level: BlankRule['level'] }, text: string, grid: Grid, nodes: SectionNode[]): BlankRule | null {
  const start = text.lastIndexOf(rule.text, grid.start);
  const at = start >= 0 ? start : text.indexOf(rule.text, grid.start); // in the table's own key row, or after it
  if (at < 0) return null;
  const n = sectionAt(nodes, at);
  return { text: rule.text, level: rule.level, start: at, end: at + rule.text.length, section: n ? { ref: n.record.ref, heading: n.record.heading } : null };
}

/** Whether most value cells of a table are marks ("P", "SP", "N"), with at least a few of them. */
function markish(grid: Grid): boolean {
  const cells = grid.rows.flatMap((r) => r.cells.filter((c, i) => i > 0 && c.col === i && c.text));
  const marks = cells.filter((c) => isMarkCell(c.text)).length;
  return marks >= 6 && marks / cells.length >= 0.6;
}


/** A table that states no fact although it has the shape of a use table, or a header of district codes that name no district held: reported so held facts stay. */
export function unreadTable(plan: Plan, section: { ref: string } | null, accept: (code: string) => boolean, issues: ParseIssue[]): void {
  const { grid, name, layout } = plan;
  const locator = { section: section?.ref ?? null, table: name, start: grid.start, end: grid.end };
  const report = (why: string) => {
    issues.push({ severity: 'warning', code: 'table_unread', detail: `${name ?? 'a table'}: ${why}; no fact is read from it`, locator });
  };
  if (plan.partial && layout) {
    const named = layout.columns.map((c) => c.printed).join(', ');
    report(`it reads as a use table, but only ${named} of its columns of marks name districts the code holds${layout.unknown.length ? ` (${layout.unknown.join(', ')} name none)` : ''}`);
    return;
  }
  if (layout) return;
  const heads = grid.rows.slice(0, 3).flatMap((r) => r.cells.slice(1).flatMap((c) => splitCodeList(c.text.replace(/:$/, '')) ?? []));
  const codes = [...new Set(heads.filter((h) => isMarkedCode(h) && /[A-Z]/.test(h)))];
  if (codes.length >= 2 && !codes.some(accept)) {
    report(`its header codes ${codes.join(', ')} name no district the code or its map holds`);
    return;
  }
  // columns headed by words ("Cottage", "Apartment Building") speak for something else than districts
  const worded = grid.rows.slice(0, 2).some((r) => r.cells.slice(1).some((c) => /[a-z]/.test(c.text) && c.text.length < 60));
  if (plan.key.size > 0 && markish(grid) && !worded) report('it reads as a use table (marks and a legend) but no column names a district');
}
