// npm run bench:ordinances — the ordinance reader measured against hand-checked gold samples
// (test/fixtures/ordinance-gold/*.json) of four real codes: Somerville (Markdown), Chicago 17-2
// (plain text), Worcester (PDF) and Ray County (HTML). For each: districts found against the
// document's own list (and the map's codes where a map is held), use-table cells read against the
// table's cells, controls read, parse issues by code, and precision/recall against the sample.
// Goal: precision ≥ 0.98 and recall ≥ 0.95 on each. Not a test: low figures do not fail it; a
// broken gold file does (exit 1, naming the file and the field). GOLD_DIR and BENCH_ONLY (a file
// name, e.g. chicago-17-2) narrow or move the samples.
import { readdirSync, readFileSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { sharedDir } from '../activities/fetch.ts';
import { heldCells, parseOrdinance } from '../ingest/ordinance/index.ts';
import type { OrdinanceParse } from '../ingest/types.ts';
import { compareCodes, foldCode, foldText, GOAL, type GoldDoc, loadGold, type Score, scoreControls, scoreUses, useCells } from './ordinance-score.ts';

const GOLD_DIR = resolve(process.env.GOLD_DIR ?? 'test/fixtures/ordinance-gold');
const ONLY = process.env.BENCH_ONLY;
const ORDER = ['somerville', 'chicago-17-2', 'worcester', 'ray-county'];

function loadAll(): Array<{ name: string; gold: GoldDoc }> {
  const files = readdirSync(GOLD_DIR)
    .filter((f) => f.endsWith('.json'))
    .sort((a, b) => (ORDER.indexOf(basename(a, '.json')) + 1 || 99) - (ORDER.indexOf(basename(b, '.json')) + 1 || 99));
  const out: Array<{ name: string; gold: GoldDoc }> = [];
  const broken: string[] = [];
  for (const f of files) {
    try {
      out.push({ name: basename(f, '.json'), gold: loadGold(join(GOLD_DIR, f)) });
    } catch (e) {
      broken.push((e as Error).message);
    }
  }
  if (broken.length) {
    console.error(`BROKEN GOLD FILE${broken.length > 1 ? 'S' : ''}:\n${broken.join('\n')}`);
    process.exit(1);
  }
  if (out.length === 0) {
    console.error(`no gold samples in ${GOLD_DIR}`);
    process.exit(1);
  }
  return ONLY ? out.filter((x) => x.name === ONLY) : out;
}

/** Parse with the document's media type; when the reader refuses it, with the nearest it takes. */
async function parse(bytes: Buffer, mediaType: string): Promise<{ parsed: OrdinanceParse; as: string; note: string | null; ms: number }> {
  const t = performance.now();
  try {
    const parsed = await parseOrdinance(bytes, { mediaType });
    return { parsed, as: mediaType, note: null, ms: performance.now() - t };
  } catch (e) {
    if (mediaType !== 'text/plain') throw e;
    const t2 = performance.now();
    const parsed = await parseOrdinance(bytes, { mediaType: 'text/markdown' });
    return { parsed, as: 'text/markdown', note: `text/plain refused (${(e as Error).message}); read as text/markdown, the nearest`, ms: performance.now() - t2 };
  }
}

/** The distinct codes of the map files' field, those with one of the prefixes. */
function mapCodes(map: NonNullable<GoldDoc['map']>): { byFile: Array<{ file: string; codes: string[] }>; all: string[] } {
  const byFile = map.files.map((file) => {
    const bytes = readFileSync(join(sharedDir(), file));
    const text = (file.endsWith('.gz') ? gunzipSync(bytes) : bytes).toString('utf8');
    const features = (JSON.parse(text) as { features: Array<{ properties: Record<string, unknown> }> }).features;
    const codes = new Set<string>();
    for (const f of features) {
      const v = f.properties[map.field];
      if (typeof v === 'string' && map.prefixes.some((p) => v.toUpperCase().startsWith(p))) codes.add(v);
    }
    return { file: basename(file), codes: [...codes].sort() };
  });
  return { byFile, all: [...new Set(byFile.flatMap((f) => f.codes))].sort() };
}

const fig = (v: number | null) => (v === null ? '  –  ' : v.toFixed(3));
const mark = (v: number | null, goal: number) => (v === null ? ' ' : v >= goal ? '✓' : '✗');
const list = (xs: string[], n = 8) => (xs.length === 0 ? '–' : xs.length <= n ? xs.join(', ') : `${xs.slice(0, n).join(', ')} … (+${xs.length - n})`);

interface Row {
  name: string;
  districts: string;
  cells: string;
  controls: number;
  issues: number;
  uses: Score;
  ctl: Score;
}

async function measure(name: string, g: GoldDoc): Promise<Row> {
  const bytes = readFileSync(join(sharedDir(), g.document));
  const { parsed, as, note, ms } = await parse(bytes, g.media_type);
  console.log(`\n== ${name}: ${g.document} (${(bytes.length / 1024).toFixed(0)} KB) read as ${as} in ${(ms / 1000).toFixed(1)} s`);
  if (note) console.log(`   note: ${note}`);

  const expected = g.districts.map((d) => d.code);
  const found = [...new Set(parsed.districts.map((d) => d.code_raw))];
  const d = compareCodes(expected, found);
  console.log(`   districts: ${d.matched.length}/${expected.length} of the document's list found; missing ${list(d.missing)}; not in the list ${list(d.extra)}`);
  if (g.map) {
    const m = mapCodes(g.map);
    for (const f of m.byFile) console.log(`   map ${f.file}: ${f.codes.length} ${g.map.prefixes.join('/')} classes in ${g.map.field}`);
    const text = compareCodes(expected, m.all);
    const read = compareCodes(found, m.all);
    const onMapOnly = [...new Set(m.all.filter((c) => !expected.some((e) => foldCode(e) === foldCode(c))))];
    console.log(`   map vs list: ${text.matched.length}/${expected.length} listed codes on the map; on the map only: ${list(onMapOnly)}`);
    console.log(`   map vs found: ${read.matched.length} found codes on the map; map codes not found: ${list(m.all.filter((c) => !found.some((f) => foldCode(f) === foldCode(c))))}`);
  }

  const tables = (g.judge_tables ?? []).map(foldText);
  const held = heldCells(parsed);
  const inTables = held.filter((p) => tables.length === 0 || tables.some((t) => foldText(p.table_ref).includes(t)));
  const tableCells = g.use_tables.reduce((n, t) => n + t.size.cells, 0);
  const shape = g.use_tables.map((t) => `${t.size.use_rows} × ${t.size.columns}`).join(' + ');
  const scope = tables.length ? ` citing ${g.judge_tables?.join(', ')}` : '';
  console.log(`   use cells: ${inTables.length} read${scope} (${parsed.permissions.length} stating, ${held.length - parsed.permissions.length} silent, held as unknown) against ${tableCells} in the table (${shape} rows × district columns)`);
  console.log(`   controls: ${parsed.controls.length} read; sections ${parsed.sections.length}; unlisted-use rule ${parsed.unlisted_uses ? parsed.unlisted_uses.result : 'none'}`);
  const byCode = new Map<string, number>();
  for (const i of parsed.issues) byCode.set(`${i.severity === 'error' ? '!' : ''}${i.code}`, (byCode.get(`${i.severity === 'error' ? '!' : ''}${i.code}`) ?? 0) + 1);
  console.log(`   issues: ${parsed.issues.length}${byCode.size ? `: ${[...byCode].map(([c, n]) => `${c} ${n}`).join(', ')}` : ''} (! = error)`);

  const uses = scoreUses(g, held);
  const ctl = scoreControls(g, parsed.controls);
  for (const [what, s] of [
    ['use cells', uses],
    ['controls', ctl],
  ] as const) {
    console.log(
      `   ${what}: precision ${fig(s.precision)} ${mark(s.precision, GOAL.precision)} (${s.correct}/${s.judged} judged), recall ${fig(s.recall)} ${mark(s.recall, GOAL.recall)} (${s.found}/${s.gold} gold)`,
    );
    for (const w of s.wrong.slice(0, 4)) console.log(`     wrong: ${w}`);
    if (s.missed.length) console.log(`     missed ${s.missed.length}, e.g. ${s.missed.slice(0, 3).join('; ')}`);
  }
  return { name, districts: `${d.matched.length}/${expected.length}`, cells: `${inTables.length}/${tableCells}`, controls: parsed.controls.length, issues: parsed.issues.length, uses, ctl };
}

async function main() {
  const docs = loadAll();
  console.log(`gold samples (${GOLD_DIR}): ${docs.map((x) => `${x.name} ${useCells(x.gold)} use cells, ${x.gold.controls.length} values`).join('; ')}`);
  const rows: Row[] = [];
  for (const { name, gold } of docs) rows.push(await measure(name, gold));

  const head = ['document', 'districts', 'cells read', 'controls', 'issues', 'uses P', 'uses R', 'controls P', 'controls R'];
  const body = rows.map((r) => [
    r.name,
    r.districts,
    r.cells,
    String(r.controls),
    String(r.issues),
    `${fig(r.uses.precision)} ${mark(r.uses.precision, GOAL.precision)}`,
    `${fig(r.uses.recall)} ${mark(r.uses.recall, GOAL.recall)}`,
    `${fig(r.ctl.precision)} ${mark(r.ctl.precision, GOAL.precision)}`,
    `${fig(r.ctl.recall)} ${mark(r.ctl.recall, GOAL.recall)}`,
  ]);
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((b) => b[i].length)));
  const line = (cells: string[]) => cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join('  ');
  console.log(`\n${line(head)}`);
  for (const b of body) console.log(line(b));
  console.log(`goal: precision ≥ ${GOAL.precision}, recall ≥ ${GOAL.recall} on each document (P over judged parsed records, R over gold values); – = nothing to judge`);
}

await main();
