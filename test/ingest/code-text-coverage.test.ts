// Honest coverage of the zoning text (issue 13, part 6): a code-text source is full only when it
// stated facts, and a new version read only in part keeps every fact the last good one stated.
// The real Somerville ordinance, then the same ordinance with its tables' rows taken out.
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { codeTextTier } from '../../store/load/zoning-coverage.ts';
import type { JurisdictionOutcome } from '../../workflows/logic.ts';
import { type PipelineHarness, pipelineHarness } from '../helpers/pipeline.ts';
import { type PlacedSource, placedSource, SOMERVILLE_A } from '../helpers/placed.ts';

const at = (d: string) => new Date(`${d}T12:00:00Z`);
/** Somerville's ordinance with every table row that is not its header removed: sections stay, no table has a body. */
const withoutTableBodies = (text: string) => {
  const lines = text.split('\n');
  return lines.filter((l, i) => !(l.trimStart().startsWith('|') && lines[i - 1]?.trimStart().startsWith('|') && !/^\s*\|?\s*:?-{3,}/.test(l))).join('\n');
};

describe('coverage of the zoning text', () => {
  let placed: PlacedSource;
  let h: PipelineHarness;
  let second: JurisdictionOutcome;
  const coverage = async () => (await h.pool.query(`SELECT held, tier, detail FROM coverage WHERE layer = 'zoning_text'`)).rows[0];
  const heldFacts = async () =>
    (
      await h.pool.query(
        `SELECT (SELECT count(*) FROM permission WHERE status = 'stated' AND upper_inf(known) AND upper_inf(valid))::int AS permissions,
                (SELECT count(*) FROM permission WHERE status = 'withheld' AND upper_inf(known) AND upper_inf(valid))::int AS silent,
                (SELECT count(*) FROM control WHERE upper_inf(known) AND upper_inf(valid))::int AS controls`,
      )
    ).rows[0];
  let before: { permissions: number; silent: number; controls: number };
  let coverageBefore: { held: boolean; tier: string; detail: any };

  beforeAll(async () => {
    const text = readFileSync(SOMERVILLE_A, 'utf8');
    placed = await placedSource('somerville-ma', 'zoning-ordinance', Buffer.from(text));
    h = await pipelineHarness('code_text_coverage', { manifestDir: placed.manifestDir });
    await h.ingest(['somerville-ma'], { now: at('2026-03-05') });
    before = await heldFacts();
    coverageBefore = await coverage();
    await placed.publish(Buffer.from(withoutTableBodies(text)));
    [second] = await h.ingest(['somerville-ma'], { now: at('2026-03-12') });
  }, 240_000);
  afterAll(async () => {
    await h?.close();
    await placed?.close();
  });

  test('a version that states facts is held with the counts of what was read', () => {
    expect(before.permissions).toBeGreaterThan(2000);
    expect(coverageBefore.held).toBe(true);
    const entry = coverageBefore.detail.sources['zoning-ordinance'];
    expect(entry).toMatchObject({ held: true, permissions: before.permissions, cells_indeterminate: before.silent, controls: expect.any(Number), districts_without_facts: [] });
    expect(coverageBefore.tier).toBe(entry.tier);
  });

  test('a later version whose tables cannot be read keeps every fact the earlier one stated, and says so', async () => {
    const code = second.sources.find((s) => s.source === 'zoning-ordinance')!;
    expect(code.state).toBe('loaded');
    expect(code.counts.permissions).toBe(0);
    // the cells held as silent are kept too
    expect(code.counts.facts_kept).toBe(before.permissions + before.silent + before.controls);
    expect(code.issues.map((i) => i.code)).toContain('facts_kept');
    expect(await heldFacts()).toEqual(before);
    const c = await coverage();
    expect(c.held).toBe(true);
    expect(c.tier).toBe('partial'); // never full with nothing stated
    expect(c.detail.sources['zoning-ordinance']).toMatchObject({ tier: 'partial', permissions: 0, controls: 0, facts_kept: before.permissions + before.silent + before.controls });
  });
});

test('the tier of a code-text source', () => {
  const e = { sections: 10, permissions: 5, controls: 5, tables_unread: 0, errors: 0 };
  expect(codeTextTier(e)).toEqual({ held: true, tier: 'full' });
  expect(codeTextTier({ ...e, permissions: 0, controls: 0 })).toEqual({ held: true, tier: 'partial' });
  expect(codeTextTier({ ...e, sections: 0, permissions: 0, controls: 0 })).toEqual({ held: false, tier: 'none' });
  expect(codeTextTier({ ...e, tables_unread: 1 }).tier).toBe('partial');
  expect(codeTextTier({ ...e, errors: 1 }).tier).toBe('partial');
  expect(codeTextTier({ ...e, districts_without_facts: ['RS-3'] }).tier).toBe('partial');
});
