// The real Cambridge FY2025 roll through the pipeline into PostGIS, then later versions with rows
// broken as a probe broke them: a row cut to 33 fields, an unclosed quote that swallows the next
// row, a NUL byte, a 5,000-character owner name. A row that cannot be read keeps what was held
// for its account (reported with its line); only rows truly gone from the roll are ended.
import { copyFile, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { sharedDir } from '../../../activities/fetch.ts';
import type { JurisdictionOutcome, SourceOutcome } from '../../../workflows/logic.ts';
import { type PipelineHarness, pipelineHarness } from '../../helpers/pipeline.ts';

const REAL = resolve(sharedDir(), 'real/cambridge_ma/ASSESSING_PropertyDatabase_FY2025.csv');
const SHIPPED = resolve(import.meta.dirname, '../../../ingest/manifests');

let h: PipelineHarness;
let dir: string;
let lines: string[];
const lineOf = (pid: string) => lines.findIndex((l) => l.startsWith(`${pid},`)) + 1;
const roll = (edit: (ls: string[]) => string[]) => writeFile(join(dir, 'roll.csv'), edit([...lines]).join('\n'));
const source = (o: JurisdictionOutcome) => o.sources.find((s) => s.source === 'assessor-fy2025') as SourceOutcome;

// accounts on single-building lines of the real file (those edited cell by cell have no quoted cell)
const CUT = '189208'; // cut to 33 fields
const QUOTED = '189195'; // a quote opened before its Address and never closed on its line
const SWALLOWED = '189196'; // the next line, read into QUOTED's field by that quote
const NUL = '189210'; // a NUL byte in its owner's name
const LONG = '189213'; // a 5,000-character owner name
const CHANGED = '22'; // assessed value changed
const GONE = '23'; // no longer in the roll

async function held(pid: string) {
  const { rows } = await h.pool.query(
    `SELECT fact_id::text, id, ownership->'owners' AS owners, assessment->>'total_value_cents' AS total FROM property
      WHERE account_key = $1 AND upper_inf(known) AND upper_inf(valid)`,
    [pid],
  );
  return rows;
}

const edits = {
  cut: (ls: string[]) => {
    const i = lineOf(CUT) - 1;
    ls[i] = ls[i].split(',').slice(0, 33).join(',');
    return ls;
  },
  quote: (ls: string[]) => {
    const i = lineOf(QUOTED) - 1;
    ls[i] = ls[i].replace(/^(\d+,[^,]*,\d+,)/, '$1"');
    return ls;
  },
  change: (ls: string[]) => {
    const i = lineOf(CHANGED) - 1;
    const f = ls[i].split(',');
    f[15] = String(Number(f[15]) + 1000); // AssessedValue
    ls[i] = f.join(',');
    return ls;
  },
  gone: (ls: string[]) => ls.filter((_, i) => i !== lineOf(GONE) - 1),
  nul: (ls: string[]) => {
    const i = lineOf(NUL) - 1;
    const f = ls[i].split(',');
    f[21] = `${f[21].slice(0, 3)}\u0000${f[21].slice(3)}`; // Owner_Name
    ls[i] = f.join(',');
    return ls;
  },
  long: (ls: string[]) => {
    const i = lineOf(LONG) - 1;
    const f = ls[i].split(',');
    f[21] = 'OWNER '.repeat(834).slice(0, 5000);
    ls[i] = f.join(',');
    return ls;
  },
};

const before: Record<string, Array<Record<string, unknown>>> = {};

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'landlex-roll-'));
  const text = await readFile(REAL, 'utf8');
  lines = text.replace(/\r?\n$/, '').split(/\r?\n/);
  for (const f of ['massachusetts.json', 'middlesex-county-ma.json']) await copyFile(join(SHIPPED, f), join(dir, f));
  const manifest = JSON.parse(await readFile(join(SHIPPED, 'cambridge-ma.json'), 'utf8'));
  manifest.sources = manifest.sources.filter((s: { key: string }) => s.key === 'assessor-fy2025').map((s: object) => ({ ...s, url: `file://${join(dir, 'roll.csv')}` }));
  await writeFile(join(dir, 'cambridge-ma.json'), JSON.stringify(manifest, null, 2));
  h = await pipelineHarness('roll_rejects', { manifestDir: dir });
  await writeFile(join(dir, 'roll.csv'), text);
  const [first] = await h.ingest(['cambridge-ma'], { now: new Date('2026-01-10T12:00:00Z') });
  expect(source(first)).toMatchObject({ state: 'loaded', counts: { rejected: 0 } });
  for (const pid of [CUT, QUOTED, SWALLOWED, NUL, LONG, CHANGED, GONE]) before[pid] = await held(pid);
}, 120_000);
afterAll(async () => {
  await h?.close();
});

describe('rows that cannot be read keep what was held for them', () => {
  test('33 fields and an unclosed quote: the three lines are rejected with their lines, their accounts kept; a changed row changes, a gone row ends', async () => {
    for (const pid of [CUT, QUOTED, SWALLOWED, CHANGED, GONE]) expect(before[pid]).toHaveLength(1);
    await roll((ls) => edits.gone(edits.change(edits.quote(edits.cut(ls)))));
    const [r] = await h.ingest(['cambridge-ma'], { now: new Date('2026-02-10T12:00:00Z') });
    const s = source(r);
    expect(s.state).toBe('loaded');
    expect(s.counts).toMatchObject({ rejected: 3, property_kept: 3, property_changed: 1, property_removed: 1 });
    const rejected = s.issues.filter((i) => i.code === 'row_rejected').map((i) => i.detail);
    // GONE's line comes after all three: their lines are as in the real file
    const at = lineOf;
    expect(rejected).toEqual([
      expect.stringMatching(new RegExp(`^line ${at(QUOTED)}: .*quote.*not closed.*account ${QUOTED} is kept`)),
      expect.stringMatching(new RegExp(`^line ${at(SWALLOWED)}: .*swallowed by the quote opened on line ${at(QUOTED)}.*account ${SWALLOWED} is kept`)),
      expect.stringMatching(new RegExp(`^line ${at(CUT)}: has 33 fields, the header has 61.*account ${CUT} is kept`)),
    ]);
    for (const pid of [CUT, QUOTED, SWALLOWED]) expect(await held(pid)).toEqual(before[pid]);
    expect((await held(CHANGED))[0].total).toBe(String(Number(before[CHANGED][0].total) + 100_000));
    expect(await held(GONE)).toEqual([]);
    // the kept accounts still resolve by address
    const { rows } = await h.pool.query('SELECT DISTINCT property_id FROM address_point WHERE property_id = ANY($1)', [[CUT, QUOTED, SWALLOWED].map((p) => before[p][0].id)]);
    expect(rows).toHaveLength(3);
  });

  test('a NUL byte rejects its row only: the roll loads, the account is kept, nothing stored holds a NUL', async () => {
    await roll((ls) => edits.nul(edits.gone(edits.change(edits.quote(edits.cut(ls))))));
    const [r] = await h.ingest(['cambridge-ma'], { now: new Date('2026-03-10T12:00:00Z') });
    const s = source(r);
    expect(s.error).toBeNull();
    expect(s.state).toBe('loaded');
    expect(s.counts).toMatchObject({ rejected: 4, property_kept: 4, property_changed: 0, property_removed: 0 });
    const nulLine = lineOf(NUL);
    expect(s.issues.filter((i) => i.code === 'row_rejected').map((i) => i.detail)).toContainEqual(
      expect.stringMatching(new RegExp(`^line ${nulLine}: a NUL byte in column Owner_Name.*account ${NUL} is kept`)),
    );
    expect(s.issues.every((i) => !i.detail.includes('\u0000'))).toBe(true);
    expect(await held(NUL)).toEqual(before[NUL]);
  });

  test('an over-long owner name is cut to 256 characters and reported with its line and column', async () => {
    await roll((ls) => edits.long(edits.nul(edits.gone(edits.change(edits.quote(edits.cut(ls)))))));
    const [r] = await h.ingest(['cambridge-ma'], { now: new Date('2026-04-10T12:00:00Z') });
    const s = source(r);
    expect(s.state).toBe('loaded');
    expect(s.counts).toMatchObject({ rejected: 4, property_changed: 1 });
    const longLine = lineOf(LONG);
    expect(s.issues.filter((i) => i.code === 'value_truncated').map((i) => i.detail)).toEqual([`line ${longLine}, column Owner_Name: 5000 characters, the first 256 kept`]);
    const [now] = await held(LONG);
    expect(now.owners).toEqual(['OWNER '.repeat(43).slice(0, 256).trim()]);
  });
});
