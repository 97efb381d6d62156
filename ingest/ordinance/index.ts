// The ordinance parser: bytes of a code (Markdown, HTML, plain text or a PDF's text layer) in;
// sections, districts, permissions, controls and the rule for unlisted uses out, every one citing
// a verbatim passage of the returned text. Every format is first read into one document model
// (document.ts: text, headings, paragraphs, tables as grids); the readers below work on it.
import type { OrdinanceHints } from '../manifest.ts';
import type { ControlRecord, OrdinanceParse, ParseIssue, PermissionRecord } from '../types.ts';
import { districtAround, readDistricts } from './districts.ts';
import { readDimensionTable } from './dimensions.ts';
import { readDocument } from './document.ts';
import { ancestors, buildSections, type SectionNode, sectionAt } from './sections.ts';
import { gridToTable } from './tables.ts';
import { Citer, OffsetIndex } from './text.ts';
import { type Legend, readUnlistedRule, readUseTable } from './uses.ts';

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
  const citer = new Citer(text, doc.pageStarts ? new OffsetIndex(doc.pageStarts) : null);
  const nodes = buildSections(text, doc.headings, citer, issues);
  if (nodes.length === 0 && text.trim() && !issues.some((i) => i.severity === 'error')) issues.push({ severity: 'error', code: 'sections_none', detail: 'no section headings were found' });
  const { records: districts, byNode } = readDistricts(nodes, citer);
  const known = new Set(districts.map((d) => d.code_normalized));

  const permissions: PermissionRecord[] = [];
  const controls: ControlRecord[] = [];
  let legend: Legend['marks'] | null = null;
  let widestUseTable: { ref: string | null; width: number } = { ref: null, width: 0 };
  for (const grid of doc.tables) {
    const table = gridToTable(grid);
    const node = sectionAt(nodes, table.start);
    const section = node ? { ref: node.record.ref, heading: node.record.heading } : null;
    const around = districtAround(node, byNode);
    const after = doc.paragraphs.filter((p) => p.start >= table.end && p.start - table.end < 400).map((p) => text.slice(p.start, p.end));
    const hints = opts.hints ?? {};
    const read = readUseTable({ table, grid, hints, text, citer, section, known, around, legendNearby: after, inherited: legend, issues });
    if (read) {
      const uses = read.permissions;
      if (read.legend.size > 0) legend = read.legend;
      permissions.push(...uses);
      const width = new Set(uses.map((u) => u.district_code)).size;
      if (width > widestUseTable.width) widestUseTable = { ref: table.ref, width };
      continue;
    }
    const typeNode = [...ancestors(node)].find((n) => buildingTypeOf(n, byNode));
    controls.push(...readDimensionTable({ table, grid, hints, citer, section, known, around, buildingType: typeNode ? buildingTypeOf(typeNode, byNode) : null, issues }));
  }
  const sectionOf = (offset: number) => {
    const n = sectionAt(nodes, offset);
    return n ? { ref: n.record.ref, heading: n.record.heading } : null;
  };
  const unlisted = permissions.length ? readUnlistedRule(text, citer, sectionOf, widestUseTable.ref) : null;
  if (permissions.length && !unlisted) issues.push({ severity: 'warning', code: 'unlisted_rule_missing', detail: 'the code states no rule for uses its tables do not name; such uses are answered as not addressed' });

  const permKey = (p: PermissionRecord) => `${p.district_code} | ${p.use_label_normalized} | ${p.table_ref}`;
  const ctlKey = (c: ControlRecord) => `${c.district_code} | ${c.control_type} | ${c.building_type} | ${c.qualifier} | ${c.table_ref}`;
  return {
    text,
    media_type: opts.mediaType,
    sections: nodes.map((n) => n.record),
    districts,
    permissions: dedupe(permissions, permKey, (p, n) => ({ ...p, use_label_normalized: `${p.use_label_normalized} ${n}` }), issues, 'permission'),
    controls: dedupe(controls, ctlKey, (c, n) => ({ ...c, qualifier: [c.qualifier, `occurrence ${n}`].filter(Boolean).join('; ') }), issues, 'control'),
    unlisted_uses: unlisted,
    issues,
  };
}
