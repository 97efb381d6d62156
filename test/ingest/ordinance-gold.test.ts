// The gold samples the ordinance reader is measured against (test/fixtures/ordinance-gold/): each is
// well-formed, holds whole rows and the required counts, names control types the reader knows (or
// proposes them), and points at a document held in ../shared/real. The scoring the bench uses is
// checked on hand-made examples; the bench itself stops on a broken gold file.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { sharedDir } from '../../activities/fetch.ts';
import {
  compareCodes,
  type ControlLike,
  foldCode,
  foldText,
  type GoldControl,
  type GoldDoc,
  MIN_CONTROLS,
  MIN_USE_CELLS,
  type PermissionLike,
  scoreControls,
  scoreUses,
  useCells,
  validateGold,
} from '../../bench/ordinance-score.ts';

const DIR = resolve('test/fixtures/ordinance-gold');
const FILES = ['somerville.json', 'chicago-17-2.json', 'worcester.json', 'ray-county.json'];
const read = (f: string) => JSON.parse(readFileSync(join(DIR, f), 'utf8')) as GoldDoc;

/** The control types the reader's lexicon names, read from its source: its terms, and parking setbacks. */
function lexiconTypes(): Set<string> {
  const src = readFileSync(resolve('ingest/ordinance/lexicon.ts'), 'utf8');
  const terms = [...src.matchAll(/\bT\('([a-z0-9_]+)'/g)].map((m) => m[1]);
  return new Set([...terms.map((t) => `dimensional.${t}`), ...terms.filter((t) => t.startsWith('setback_')).map((t) => `dimensional.parking_${t}`)]);
}

describe('the gold files', () => {
  test('the four documents each have one', () => {
    expect(readdirSync(DIR).sort()).toEqual([...FILES].sort());
  });

  test.each(FILES)('%s is well-formed, holds whole rows, and at least 40 use cells and 20 values', (f) => {
    const g = read(f);
    expect(validateGold(g)).toEqual([]);
    expect(useCells(g)).toBeGreaterThanOrEqual(MIN_USE_CELLS);
    expect(g.controls.length).toBeGreaterThanOrEqual(MIN_CONTROLS);
    expect(existsSync(join(sharedDir(), g.document))).toBe(true);
    for (const t of g.use_tables) {
      const width = t.columns.reduce((n, c) => n + c.districts.length, 0);
      for (const r of t.rows) expect(r.cells.map((c) => c.district)).toEqual(t.columns.flatMap((c) => c.districts));
      expect(t.size.cells).toBe(t.size.use_rows * width);
    }
  });

  test.each(FILES)('%s: every control type is the lexicon’s or listed as proposed', (f) => {
    const g = read(f);
    const known = lexiconTypes();
    const proposed = new Set(g.proposed_control_types.map((p) => p.control_type));
    for (const p of proposed) expect(known.has(p), `${p} is proposed but the lexicon already names it`).toBe(false);
    for (const c of g.controls) expect(known.has(c.control_type) || proposed.has(c.control_type), `${f}: ${c.control_type}`).toBe(true);
  });

  test('a broken gold file is named with each problem', () => {
    const g = read('ray-county.json');
    const broken = structuredClone(g);
    broken.use_tables[0].rows[0].cells.pop(); // a row that is not whole
    broken.use_tables[0].rows[1].cells[0].level = 'conditional_use'; // 'P' is by_right in the legend
    broken.use_tables[1].rows[0].cells[0].mark = 'X'; // a mark the legend does not define
    broken.controls[0].district = 'Z-9';
    broken.controls[1].unit = 'furlongs';
    const problems = validateGold(broken).join('\n');
    expect(problems).toMatch(/use_tables\[0\]\.rows\[0\] \(Congregate Living\): not a whole row/);
    expect(problems).toMatch(/use_tables\[0\]\.rows\[1\] \(House, Detached\)\.cells\[0\] \(R-A\)\.level: conditional_use, but the legend makes 'P' by_right/);
    expect(problems).toMatch(/use_tables\[1\]\.rows\[0\] \(Adult Use\)\.cells\[0\] \(R-A\)\.mark: 'X' is not in the legend/);
    expect(problems).toMatch(/controls\[0\] \(Z-9 dimensional\.lot_area\)\.district: not in districts/);
    expect(problems).toMatch(/controls\[1\] .*\.unit: furlongs is neither a known unit nor proposed/);
    const small = { ...structuredClone(g), controls: g.controls.slice(0, 3) };
    expect(validateGold(small)).toContain(`controls: 3 values, at least ${MIN_CONTROLS} are required`);
  });
});

describe('the bench on a broken gold file', () => {
  const dir = mkdtempSync(join(tmpdir(), 'landlex-gold-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  test('stops with exit code 1 before reading any document, naming the file and the field', () => {
    const g = read('chicago-17-2.json');
    g.use_tables[0].rows[0].cells[3].mark = 'Q';
    writeFileSync(join(dir, 'chicago-17-2.json'), JSON.stringify(g));
    const r = spawnSync(process.execPath, ['--import', 'tsx', 'bench/ordinances.ts'], { env: { ...process.env, GOLD_DIR: dir }, encoding: 'utf8', timeout: 60_000 });
    expect(r.status).toBe(1);
    expect(r.stderr).toContain(join(dir, 'chicago-17-2.json'));
    expect(r.stderr).toMatch(/rows\[0\] \(Detached House\)\.cells\[3\] \(RT3\.5\)\.mark: 'Q' is not in the legend/);
    expect(r.stdout).not.toMatch(/==/);
  });
});

describe('folding', () => {
  test('district codes: RS1 = RS-1 = RS 1; BO-1.0 = BO 1; S & O = S&O; RM4-.5 = RM-4.5; RM5.5 stays apart from RM5', () => {
    expect(new Set(['RS1', 'RS-1', 'RS 1', 'rs‑1'].map(foldCode)).size).toBe(1);
    expect(foldCode('BO-1.0')).toBe(foldCode('BO 1'));
    expect(foldCode('ML-0.5')).toBe(foldCode('ML 0.5'));
    expect(foldCode('S & O')).toBe(foldCode('S&O'));
    expect(foldCode('RM4-.5')).toBe(foldCode('RM-4.5'));
    expect(foldCode('RM5.5')).not.toBe(foldCode('RM5'));
    expect(foldCode('RT-4.5')).not.toBe(foldCode('RT4'));
  });

  test('labels: case, space, punctuation and accents', () => {
    expect(foldText('Café or Coffee Shop')).toBe(foldText('cafe  or coffee-shop'));
    expect(foldText('Ar ts Exhibition')).toBe(foldText('Arts Exhibition'));
    expect(foldText('1. Detached House')).not.toBe(foldText('Detached House'));
  });

  test('codes compared: found, missing and extra, each as its source prints it', () => {
    expect(compareCodes(['A-1', 'B-2', 'D-4'], ['A1', 'B 2', 'C-3'])).toEqual({ matched: ['A-1', 'B-2'], missing: ['D-4'], extra: ['C-3'] });
  });
});

const cell = (column: string, district: string, mark: string, level: string, extra: object = {}) => ({ column, district, mark, level, process: null, ...extra });
const tiny = {
  document: 'x',
  media_type: 'text/plain',
  districts: [
    { code: 'A-1', kind: 'base' },
    { code: 'B-2', kind: 'base' },
  ],
  map: null,
  legend: [],
  blank_rule: { level: 'prohibited' },
  use_tables: [
    {
      table: 'Table 9.1.1',
      columns: [
        { column: 'A 1', districts: ['A-1'] },
        { column: 'B 2', districts: ['B-2'] },
      ],
      size: { use_rows: 3, columns: 2, cells: 6 },
      rows: [
        { label: 'Bakery', number: '1.', category: null, page: null, cells: [cell('A 1', 'A-1', 'P', 'by_right'), cell('B 2', 'B-2', 'S', 'conditional_use')] },
        { label: 'Kennel', number: '2.', category: null, page: null, cells: [cell('A 1', 'A-1', 'N', 'prohibited'), cell('B 2', 'B-2', 'P', 'by_right')] },
        {
          label: 'Two-Flat',
          number: '3.',
          category: null,
          page: null,
          cells: [cell('A 1', 'A-1', 'P/-', 'by_right', { accept: ['permitted_with_standards'] }), cell('B 2', 'B-2', '', 'prohibited')],
        },
      ],
      non_use_rows: ['Commercial'],
    },
  ],
  controls: [] as GoldControl[],
  proposed_control_types: [],
  proposed_units: [],
} as unknown as GoldDoc;
const perm = (use_label_raw: string, district_code: string, symbol: string, level: string, table_ref = 'Table 9.1.1') => ({ use_label_raw, district_code, symbol, level, table_ref }) as PermissionLike;

describe('scoring use cells', () => {
  test('a true positive, a wrong level, a missing cell, an extra district, a category read as a use', () => {
    const s = scoreUses(tiny, [
      perm('Bakery', 'A1', 'P', 'by_right'), // true positive, the district written another way
      perm(' bakery ', 'B-2', 'S', 'by_right'), // the right mark with the wrong level
      perm('Kennel', 'B 2', 'P', 'by_right'), // true positive
      perm('Kennel', 'C-3', 'P', 'by_right'), // a district the sample does not hold: not judged
      perm('Commercial', 'A-1', 'P', 'by_right'), // a category row read as a use: judged, wrong
      // Kennel @ A-1 is not stated at all: missing
    ]);
    expect(s).toMatchObject({ judged: 4, correct: 2, gold: 6, found: 2, precision: 0.5 });
    expect(s.recall).toBeCloseTo(2 / 6);
    expect(s.wrong).toEqual([" bakery  @ B-2: parsed 'S' by_right, gold 'S' conditional_use", 'Commercial @ A-1: a category or legend row read as a use']);
    expect(s.missed).toEqual(["Bakery @ B-2: 'S' conditional_use", "Kennel @ A-1: 'N' prohibited", "Two-Flat @ A-1: 'P/-' by_right", "Two-Flat @ B-2: '' prohibited"]);
  });

  test('a compound mark takes the levels the gold accepts, never a part alone; a blank cell is judged by its rule', () => {
    const s = scoreUses(tiny, [
      perm('Two-Flat', 'A-1', 'P/–', 'permitted_with_standards'),
      perm('Two-Flat', 'A-1', 'P', 'by_right'),
      perm('Two-Flat', 'B-2', '', 'prohibited'),
    ]);
    expect(s).toMatchObject({ judged: 3, correct: 2, found: 2 });
    expect(s.wrong).toEqual(["Two-Flat @ A-1: parsed 'P' by_right, gold 'P/-' by_right"]);
  });

  test('with judge_tables, records citing another table are not judged', () => {
    const g = { ...tiny, judge_tables: ['9.1.1'] } as GoldDoc;
    const s = scoreUses(g, [perm('Bakery', 'A-1', 'N', 'prohibited', 'Table 3.1.16, column 2'), perm('Bakery', 'A-1', 'P', 'by_right', 'Table 9.1.1')]);
    expect(s).toMatchObject({ judged: 1, correct: 1 });
  });
});

const gc = (district: string, control_type: string, building_type: string | null, qualifier: string | null, min: number | null, max: number | null, unit: string | null, value: string): GoldControl => ({
  table: 't',
  page: null,
  row: 'r',
  column: 'c',
  district,
  control_type,
  building_type,
  qualifier,
  min,
  max,
  unit,
  value,
});
const pc = (district_code: string, control_type: string, building_type: string | null, qualifier: string | null, min: number | null, max: number | null, unit: string | null, value_text: string): ControlLike => ({
  district_code,
  control_type,
  building_type,
  qualifier,
  min,
  max,
  unit,
  value_text,
});

describe('scoring controls', () => {
  const g = {
    ...tiny,
    controls: [
      gc('A-1', 'dimensional.lot_area', null, null, 5000, null, 'sq_ft', '5,000'),
      gc('A-1', 'dimensional.height', 'Principal', null, null, 40, 'ft', '40/30'),
      gc('A-1', 'dimensional.height', 'Accessory', null, null, 30, 'ft', '40/30'),
      gc('A-1', 'dimensional.lot_area_per_unit', null, 'Dwelling units', 1000, null, 'sq_ft', 'Dwelling units: 1,000'),
      gc('A-1', 'dimensional.lot_area_per_unit', null, 'SRO units', 500, null, 'sq_ft', 'SRO units: 500'),
      gc('B-2', 'dimensional.far', null, null, null, null, null, 'NA'),
    ],
  } as GoldDoc;

  test('true positives, a wrong value, a missing value, values outside the sample', () => {
    const s = scoreControls(g, [
      pc('A1', 'dimensional.lot_area', 'House', null, 5000, null, 'sq_ft', '5,000'), // a value for every building type
      pc('A-1', 'dimensional.height', null, 'Principal', null, 40, 'ft', '40'), // building type held as qualifier
      pc('A-1', 'dimensional.height', 'Accessory', null, null, 35, 'ft', '35'), // wrong value
      pc('A-1', 'dimensional.lot_area_per_unit', null, 'SRO units:', 500, null, 'sq_ft', 'SRO units: 500'),
      pc('B 2', 'dimensional.far', null, null, null, null, null, 'NA'), // no number, matched by its text
      pc('A-1', 'dimensional.setback_front', null, null, 10, null, 'ft', '10'), // a measure the sample does not hold
      pc('C-3', 'dimensional.lot_area', null, null, 5000, null, 'sq_ft', '5,000'), // a district the sample does not hold
      // Dwelling units @ A-1 is not stated: missing
    ]);
    expect(s).toMatchObject({ judged: 5, correct: 4, gold: 6, found: 4 });
    expect(s.precision).toBeCloseTo(0.8);
    expect(s.recall).toBeCloseTo(4 / 6);
    expect(s.wrong).toHaveLength(1);
    expect(s.wrong[0]).toMatch(/^A-1 dimensional\.height Accessory: parsed –\.\.35 ft/);
    expect(s.missed).toEqual(['A-1 dimensional.height [Accessory]: "40/30"', 'A-1 dimensional.lot_area_per_unit (Dwelling units): "Dwelling units: 1,000"']);
  });

  test('a wrong unit, a number where the table states none, a missing qualifier among several', () => {
    const s = scoreControls(g, [
      pc('A-1', 'dimensional.lot_area', null, null, 5000, null, 'acres', '5,000'),
      pc('B-2', 'dimensional.far', null, null, null, 0, 'ratio', 'NA'),
      pc('A-1', 'dimensional.lot_area_per_unit', null, null, 1000, null, 'sq_ft', '1,000'),
    ]);
    expect(s).toMatchObject({ judged: 3, correct: 0, found: 0 });
  });
});
