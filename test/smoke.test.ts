import { expect, test } from 'vitest';
import { createPool } from '../store/db.ts';

test('the run database has PostGIS and every migration', async () => {
  const pool = createPool(process.env.TEST_DATABASE_URL!);
  const { rows } = await pool.query('SELECT postgis_full_version() AS v, (SELECT count(*) FROM schema_migration) AS n');
  await pool.end();
  expect(rows[0].v).toMatch(/POSTGIS="3/);
  expect(rows[0].n).toBeGreaterThanOrEqual(5);
});
