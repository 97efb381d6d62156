// The ordinance parser: bytes of a code (Markdown, HTML, plain text or a PDF's text layer) in;
// sections, districts, permissions, controls and the rule for unlisted uses out, every one citing
// a verbatim passage of the returned text. Every format is first read into one document model
// (document.ts: text, headings, paragraphs, tables as grids); the readers below work on it.
import type { OrdinanceHints } from '../manifest.ts';
import type { ControlRecord, OrdinanceParse, ParseIssue, PermissionRecord } from '../types.ts';
import { readDistricts } from './district-records.ts';
import { settlePrecedence } from './dimension-precedence.ts';
import { readDimensionTable } from './dimensions.ts';
import { readDocument } from './document.ts';
import { type Marks, readBlankRule, readKey } from './legend.ts';
import type { Grid } from './model.ts';
import { ancestors, buildSections, type SectionNode, sectionAt } from './sections.ts';
import { gridToTable } from './tables.ts';
import { Citer, OffsetIndex } from './text.ts';
import { continueTables, locateRule, planTable, reportConflicts, unreadTable } from './use-plans.ts';
import { settleUsePrecedence } from './use-precedence.ts';
import { readUnlistedRule } from './unlisted.ts';
import { readUseTable } from './uses.ts';

export interface OrdinanceOptions {
  mediaType: string; // text/markdown, text/html, text/plain or application/pdf
  /** what the document cannot tell by itself, from the manifest */
  hints?: OrdinanceHints;
  /** district codes held for the jurisdiction from its other sources (the map, the list), as they write them */
  districtCodes?: string[];
}

/** The building type a section names: a child of a district section that is not about the district as a whole. */
function buildingTypeOf(node: SectionNode | null, byNode: Map<SectionNode, string>): string | null {
  if (!node || byNode.has(node) || !node.parent || !byNode.has(node.parent)) return null;
  const h = node.record.heading ?? '';
  if (/^table\b|\b(^general$|standards|provisions|purpose|intent|applicability|character|description|district|uses?|parking|development|components?|benefits|design|guidelines)\b/i.test(h)) return null;
  return h || null;
}

/** Two facts of one kind may not share a key within a version: later ones are numbered and reported. */
function dedupe<T>(items: T[], key: (t: T) => string, rename: (t: T, n: number) => T, issues: ParseIssue[], what: string): T[] {
  const seen = new Map<string, number>();
  return items.map((t) => {
    const k = key(t);
    const n = (seen.get(k) ?? 0) + 1;
    seen.set(k, n);
    if (n === 1) return t;
    issues.push({ severity: 'warning', code: `${what}_duplicate`, detail: `${k} is stated ${n} times; this one is kept as number ${n}` });
    return rename(t, n);
  });
}

export async function parseOrdinance(bytes: Uint8Array, opts: OrdinanceOptions): Promise<OrdinanceParse> {
  const issues: ParseIssue[] = [];
  const doc = await readDocument(bytes, opts.mediaType, issues);
  const { text } = doc;
  const hints = opts.hints ?? {};
  const citer = new Citer(text, doc.pageStarts ? new OffsetIndex(doc.pageStarts) : null);
  const nodes = buildSections(text, doc.headings, citer, issues);
  if (nodes.length === 0 && text.trim() && !issues.some((i) => i.severity === 'error')) issues.push({ severity: 'error', code: 'sections_none', detail: 'no section headings were found' });
  const skip = new Set(hints.skip_sections ?? []);
  const skipped = (grid: Grid) => skip.size > 0 && [...ancestors(sectionAt(nodes, grid.start))].some((n) => skip.has(n.record.ref));
  const reading = readDistricts({ text, nodes, grids: doc.tables, citer, districtCodes: opts.districtCodes, hints, skipped, issues });
  const { index, byNode, known } = reading;
  const accept = (code: string) => known.has(index.resolve(code) ?? '');

  // each table's reading: a use table (its districts, its own key) or not; a table that prints no key is read with another's (reported)
  const plans = doc.tables.map((table) => planTable({ table, tables: doc.tables, text, nodes, byNode, index, accept, hints }));
  continueTables(plans);
  const inheritFor = (i: number): { marks: Marks; from: string | null } | null => {
    const order = [...plans.slice(0, i).reverse(), ...plans.slice(i + 1)];
    const donor = order.find((p) => p.isUse && p.key.size > 0);
    return donor ? { marks: donor.key, from: donor.name } : null;
  };

  const permissions: PermissionRecord[] = [];
  const indeterminate: PermissionRecord[] = [];
  const controls: ControlRecord[] = [];
  let widestUseTable: { ref: string | null; width: number } = { ref: null, width: 0 };
  plans.forEach((plan, i) => {
    const { grid, node, around, layout, name } = plan;
    const section = node ? { ref: node.record.ref, heading: node.record.heading } : null;
    if (skipped(grid)) {
      issues.push({ severity: 'warning', code: 'table_skipped', detail: `${name ?? 'a table'}: its section is listed in the manifest's skip_sections; not read`, locator: { section: section?.ref ?? null, table: name, start: grid.start, end: grid.end } });
      return;
    }
    if (plan.isUse && layout) {
      const keyRows = grid.rows.map((r) => r.cells.filter((c, k) => r.cells.indexOf(c) === k && c.text)).filter((cs) => cs.length === 1 && readKey(cs[0].text));
      const rule = readBlankRule(`${plan.context}\n\n${[...grid.notes, ...plan.near, ...keyRows.map((cs) => cs[0])].map((s) => text.slice(s.start, s.end)).join('\n\n')}`);
      const blankRule = rule ? locateRule(rule, text, grid, nodes) : null;
      const read = readUseTable({ grid, layout, name, text, citer, section, context: plan.context, near: plan.near, keyTables: plan.keyTables, hints, inherited: plan.key.size > 0 ? null : inheritFor(i), blankRule, issues });
      permissions.push(...read.permissions);
      indeterminate.push(...read.indeterminate);
      const width = new Set([...read.permissions, ...read.indeterminate].map((u) => u.district_code)).size;
      if (width > widestUseTable.width) widestUseTable = { ref: name, width };
      return;
    }
    if (plan.partial) {
      unreadTable(plan, section, accept, issues);
      return;
    }
    const table = gridToTable(plan.source);
    const typeNode = [...ancestors(node)].find((n) => buildingTypeOf(n, byNode));
    const read = readDimensionTable({ table, grid: plan.source, hints, citer, section, known, around, buildingType: typeNode ? buildingTypeOf(typeNode, byNode) : null, issues });
    controls.push(...read);
    if (read.length === 0) unreadTable(plan, section, accept, issues);
  });
  const sectionOf = (offset: number) => {
    const n = sectionAt(nodes, offset);
    return n ? { ref: n.record.ref, heading: n.record.heading } : null;
  };
  const unlisted = permissions.length ? readUnlistedRule(text, citer, sectionOf, widestUseTable.ref) : null;
  if (permissions.length && !unlisted) issues.push({ severity: 'warning', code: 'unlisted_rule_missing', detail: 'the code states no rule for uses its tables do not name; such uses are answered as not addressed' });

  // a table that says it controls in a conflict is given precedence over the sections it names
  const settled = settleUsePrecedence(permissions, text, issues);
  reportConflicts(settled, issues);
  const permKey = (p: PermissionRecord) => `${p.district_code} | ${p.use_label_normalized} | ${p.table_ref}`;
  const ctlKey = (c: ControlRecord) => `${c.district_code} | ${c.control_type} | ${c.building_type} | ${c.qualifier} | ${c.table_ref}`;
  return {
    text,
    media_type: opts.mediaType,
    sections: nodes.map((n) => n.record),
    districts: reading.records,
    permissions: dedupe(settled, permKey, (p, n) => ({ ...p, use_label_normalized: `${p.use_label_normalized} ${n}` }), issues, 'permission'),
    // a table that says it controls over other sections wins where both state a measure
    controls: dedupe(settlePrecedence(controls, text, issues), ctlKey, (c, n) => ({ ...c, qualifier: [c.qualifier, `occurrence ${n}`].filter(Boolean).join('; ') }), issues, 'control'),
    unlisted_uses: unlisted,
    issues,
    indeterminate: dedupe(indeterminate, permKey, (p, n) => ({ ...p, use_label_normalized: `${p.use_label_normalized} ${n}` }), issues, 'permission'),
    district_report: reading.report,
  };
}


/** The use-table cells a load holds: what each states, then the cells that state nothing (never where the same row states something). */
export function heldCells(p: OrdinanceParse): PermissionRecord[] {
  const key = (x: PermissionRecord) => `${x.district_code}|${x.use_label_normalized}|${x.table_ref}`;
  const stated = new Set(p.permissions.map(key));
  return [...p.permissions, ...(p.indeterminate ?? []).filter((x) => !stated.has(key(x)))];
}
