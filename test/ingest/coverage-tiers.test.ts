// A coverage tier is earned by what a load read (store/coverage.ts sourceTier): not held when a
// source gave nothing, partial when part of it could not be read, full otherwise. Checked on the
// real Cambridge loads (whose parcel layer has one feature with no geometry), and on the rule itself.
import { afterAll, beforeAll, expect, test } from 'vitest';
import { sourceTier } from '../../store/coverage.ts';
import { createPool, type Pool } from '../../store/db.ts';
import { ingestedDatabase } from '../helpers/pipeline.ts';

let db: { url: string; drop: () => Promise<void> };
let pool: Pool;
beforeAll(async () => {
  db = await ingestedDatabase('cambridge', ['cambridge-ma']);
  pool = createPool(db.url, { max: 2 });
}, 300_000);
afterAll(async () => {
  await pool?.end();
  await db?.drop();
});

test('the rule: nothing read is not held; something unread is partial', () => {
  expect(sourceTier(0, 0)).toEqual({ held: false, tier: 'none' });
  expect(sourceTier(0, 3)).toEqual({ held: false, tier: 'none' });
  expect(sourceTier(10, 1)).toEqual({ held: true, tier: 'partial' });
  expect(sourceTier(10, 0)).toEqual({ held: true, tier: 'full' });
});

test("each Cambridge source's tier follows what its load read and could not read", async () => {
  const { rows } = await pool.query(
    `SELECT c.layer, c.tier, s.key, s.entry FROM coverage c JOIN jurisdiction j ON j.id = c.jurisdiction_id, jsonb_each(c.detail->'sources') s(key, entry) WHERE j.slug = 'cambridge-ma'`,
  );
  const entry = (layer: string) => rows.find((r) => r.layer === layer)!.entry;
  // the parcel layer: 13,116 features, one without geometry
  const parcel = entry('parcel');
  expect(parcel.without_geometry.length).toBeGreaterThan(0);
  expect(parcel).toMatchObject({ held: true, tier: 'partial' });
  // the assessor roll: every row read (some keys match no parcel, which is no unread row)
  const assessor = entry('assessor');
  expect(assessor).toMatchObject({ rejected: 0, held: true, tier: 'full' });
  const list = entry('district_list');
  expect(list.issues.filter((i: { severity: string }) => i.severity === 'error')).toEqual([]);
  expect(list).toMatchObject({ held: true, tier: 'full' });
});
