// The districts of a code from every evidence held: headings that name districts, lists and
// tables that establish them, the codes of the jurisdiction's map and list, and the headers of
// its use and dimensional tables (a column or row per district). A code needs structural
// evidence: a glossary term or a word in a heading is no district. Table headers name districts
// the other evidence holds (RS-1 = RS1, BO 1 = BO-1.0, RS1 of the "RS districts"); only a code
// that names no district anywhere else is read as printed. Districts in the text and not on the
// map, and on the map and not in the text, are reported. Pure.
import { codeKey, familyOf } from '../district-codes.ts';
import { normalizeCode, typeFromLabel } from '../district-list.ts';
import type { OrdinanceHints } from '../manifest.ts';
import type { DistrictRecord, DistrictReport, ParseIssue } from '../types.ts';
import { cellKind } from './cells.ts';
import { DistrictIndex, type Evidence, isCodeShaped, numericKey, readCodes } from './codes.ts';
import { type Layout, layoutOf } from './columns.ts';
import { listDistricts } from './district-lists.ts';
import { type HeadingDistrict, headingDistricts, headingRecord } from './districts.ts';
import type { Grid } from './model.ts';
import type { SectionNode } from './sections.ts';
import type { Citer, Span } from './text.ts';
import { marksShare } from './uses.ts';

export interface DistrictReading {
  records: DistrictRecord[];
  byNode: Map<SectionNode, string>;
  index: DistrictIndex;
  open: boolean; // no evidence but tables' headers: codes read as printed
  report: DistrictReport;
  /** the codes a table reader may meet, each as the text prints it, folding to a district held */
  known: Set<string>;
}

export interface DistrictInput {
  text: string;
  nodes: SectionNode[];
  grids: Grid[];
  citer: Citer;
  districtCodes?: string[];
  hints: OrdinanceHints;
  skipped: (grid: Grid) => boolean;
  issues: ParseIssue[];
}

interface TableEvidence extends Span {
  code: string;
  printed: string;
}

/** Whether a table's value cells are mostly marks (a use table) or numbers (a dimensional one). */
function tableKind(grid: Grid, layout: Layout): Evidence | null {
  const { marks, filled } = marksShare(grid, layout);
  if (filled === 0) return null;
  if (marks / filled >= 0.8) return 'use_table';
  let numbers = 0;
  for (const r of grid.rows.slice(layout.headerEnd + 1)) for (const c of layout.columns) if (cellKind(r.cells[c.index]?.text ?? '') === 'number') numbers++;
  return numbers >= filled / 2 ? 'dimension_table' : null;
}

const joinCode = (printed: string) => printed.replace(/^([A-Z]+)\s(\d)/, '$1$2');

export function readDistricts(input: DistrictInput): DistrictReading {
  const { text, nodes, grids, citer, issues } = input;
  const index = new DistrictIndex(input.hints.code_aliases ?? {});
  // the map's and list's forms first: a district the text names too is held as they write it
  for (const c of input.districtCodes ?? []) if (c.trim()) index.add(c, 'map');
  const heads = nodes.map(headingDistricts).filter((h): h is HeadingDistrict => h !== null);
  for (const h of heads) {
    if (!h.strong) continue;
    if (h.family) index.addFamily(h.codes[0]);
    else for (const c of h.codes) index.add(c, 'heading');
    if (!h.family && h.codes.length === 1) index.addName(h.name, index.resolve(h.codes[0]) as string);
  }
  const lists = listDistricts(text, nodes, grids);
  for (const e of lists) {
    for (const c of e.codes) index.add(c, 'list');
    if (e.codes.length === 1) index.addName(e.name, index.resolve(e.codes[0]) as string);
  }
  index.addSequence(lists.flatMap((e) => e.codes));
  const weak = heads.filter((h) => !h.strong);
  const open = index.size === 0 && index.families.size === 0;

  // the headers of use and dimensional tables: columns, or rows, that name districts
  const tables: TableEvidence[] = [];
  const held = (code: string) => index.has(code) || index.inFamily(code) || (open && isCodeShaped(joinCode(code)));
  const candidate = (code: string) => weak.some((h) => h.codes.some((w) => numericKey(w) === numericKey(code)));
  const accept = (code: string) => held(code) || candidate(code);
  for (const g of grids) {
    if (input.skipped(g)) continue;
    const layout = layoutOf(g, { index, accept, around: null });
    const kind = layout ? tableKind(g, layout) : null;
    // a code only a candidate heading names counts beside a district held, or beside another candidate
    const corroborated = layout ? layout.columns.some((c) => c.codes.some(held)) || layout.columns.length >= 2 : false;
    if (layout && kind && corroborated) {
      const found: string[] = [];
      for (const col of layout.columns)
        for (const code of col.codes) {
          if (!accept(code)) continue;
          const e = index.add(code, kind);
          found.push(e.code);
          tables.push({ code: e.code, printed: col.codes.length === 1 ? joinCode(col.printed) : code, start: col.start, end: col.end });
        }
      index.addSequence(found);
      continue;
    }
    // districts as rows: a code in the first column, numbers beside it
    const rows = g.rows.filter((r) => r.cells[0]?.text && r.cells.slice(1).some((c) => cellKind(c.text) === 'number'));
    const read = rows.map((r) => ({ r, codes: readCodes([r.cells[0].text.replace(/:$/, '')], accept, index) }));
    if (read.filter((x) => x.codes).length < 2) continue;
    for (const { r, codes } of read)
      for (const code of codes?.codes ?? []) {
        const e = index.add(code, 'dimension_table');
        tables.push({ code: e.code, printed: codes?.how === 'one' ? joinCode(r.cells[0].text.replace(/:$/, '')) : code, start: r.cells[0].start, end: r.cells[0].end });
      }
  }
  // a heading that only looked like a district's counts when other evidence names its code
  for (const h of weak) if (h.codes.every((c) => index.has(c))) for (const c of h.codes) index.add(c, 'heading');
  const strongHeads = heads.filter((h) => !h.family && (h.strong || h.codes.every((c) => index.entry(c)?.evidence.has('heading'))));

  const records: Array<DistrictRecord & { at: number }> = [];
  const byNode = new Map<SectionNode, string>();
  for (const h of strongHeads) if (h.codes.length === 1) byNode.set(h.node, index.resolve(h.codes[0]) as string);
  const known = new Set<string>();
  for (const e of index.entries()) {
    if (![...e.evidence].some((x) => x !== 'map')) continue;
    known.add(e.code);
    const head = strongHeads.find((h) => h.codes.some((c) => numericKey(c) === e.key));
    const item = lists.find((l) => l.codes.some((c) => numericKey(c) === e.key));
    const cols = tables.filter((t) => t.code === e.code);
    for (const t of cols) if (codeKey(t.printed) === codeKey(e.code)) known.add(normalizeCode(t.printed));
    if (head) {
      const printed = head.codes.find((c) => numericKey(c) === e.key) as string;
      records.push({ ...headingRecord(head, printed, e.code, nodes, citer), at: head.node.title.start });
    } else if (item) {
      const printed = item.codes.find((c) => numericKey(c) === e.key) as string;
      const ref = item.section?.record.ref ?? null;
      const overlay = lists.some((l) => l.overlay && l.codes.some((c) => numericKey(c) === e.key));
      records.push({
        kind: overlay ? 'overlay' : 'base',
        code_raw: printed,
        code_normalized: e.code,
        local_label: item.codes.length === 1 ? item.name : null,
        type: overlay ? 'overlay' : typeFromLabel(item.name),
        purpose: null,
        section_ref: ref,
        citation: citer.cite(item, { section: ref, heading: item.section?.record.heading ?? null }, ref),
        at: item.start,
      });
    } else if (cols.length) {
      // cite a cell that prints the whole code ("RS1"), else the header it was read from
      const whole = cols.find((t) => codeKey(text.slice(t.start, t.end)) === codeKey(t.printed)) ?? cols[0];
      const span = whole.end - whole.start <= 40 ? whole : { start: whole.end - Math.min(whole.end - whole.start, 12), end: whole.end };
      records.push({ kind: 'base', code_raw: whole.printed, code_normalized: e.code, local_label: null, type: null, purpose: null, section_ref: null, citation: citer.cite(span, { table: null }, null), at: whole.start });
    }
  }
  records.sort((a, b) => a.at - b.at);
  for (const r of records) known.add(r.code_normalized);

  const evidence: DistrictReport['evidence'] = {};
  for (const e of index.entries()) if (known.has(e.code)) evidence[e.code] = [...e.evidence];
  const report: DistrictReport = { compared: input.districtCodes !== undefined, not_on_map: [], only_on_map: [], evidence };
  if (input.districtCodes !== undefined) {
    const textCodes = records.map((r) => r.code_normalized);
    const mapKeys = new Set(input.districtCodes.map(numericKey));
    report.not_on_map = textCodes.filter((t) => !mapKeys.has(numericKey(t)) && !input.districtCodes?.some((m) => familyOf(m, [t]) === t));
    const textKeys = new Set(textCodes.map(numericKey));
    const seen = new Set<string>();
    for (const m of input.districtCodes) {
      const k = numericKey(m);
      if (!k || textKeys.has(k) || seen.has(k) || familyOf(m, textCodes)) continue;
      seen.add(k);
      report.only_on_map.push(m.trim());
    }
    report.only_on_map.sort();
    if (report.not_on_map.length) issues.push({ severity: 'warning', code: 'district_not_on_map', detail: `${report.not_on_map.length} districts the text establishes are on no map or list of the jurisdiction: ${report.not_on_map.join(', ')}` });
    if (report.only_on_map.length) issues.push({ severity: 'warning', code: 'district_only_on_map', detail: `${report.only_on_map.length} codes the map or list holds are named nowhere in the text: ${report.only_on_map.join(', ')}` });
  }
  return { records: records.map(({ at: _, ...r }) => r), byNode, index, open, report, known };
}
