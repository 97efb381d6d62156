// Extracts on real Cambridge data, through the workflow logic bound in-process: row counts equal
// independent SQL counts, Parquet carries GeoParquet metadata DuckDB reads back, JSONL carries
// GeoJSON, and an attempt killed mid-way leaves nothing listed and converges when run again.
import { readFile, readdir } from 'node:fs/promises';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createExtractActivities, type ExtractDeps } from '../../activities/extract.ts';
import { type ExtractRequest, planExtract } from '../../activities/extract/plan.ts';
import { createLogger } from '../../core/log.ts';
import { localDate } from '../../core/time.ts';
import { newId, sha256Hex } from '../../core/ids.ts';
import { createPool, type Pool } from '../../store/db.ts';
import { insertExtract } from '../../store/extracts.ts';
import { runExtractInProcess } from '../../workflows/extract-inprocess.ts';
import { ingestedDatabase } from '../helpers/pipeline.ts';

let db: { url: string; drop: () => Promise<void> };
let pool: Pool;
let dir: string;
let jur: string;
let today: string;
let nowIso: string;

beforeAll(async () => {
  db = await ingestedDatabase('cambridge', ['cambridge-ma']);
  pool = createPool(db.url, { max: 6 });
  dir = await mkdtemp(join(tmpdir(), 'landlex-extracts-'));
  jur = (await pool.query(`SELECT id FROM jurisdiction WHERE slug = 'cambridge-ma'`)).rows[0].id;
  // after the load: rows are known from when the template was loaded
  today = localDate(new Date(), 'America/New_York');
  nowIso = new Date().toISOString();
}, 600_000);
afterAll(async () => {
  await pool.end();
  await db.drop();
  await rm(dir, { recursive: true, force: true });
});

const activities = (extra: Partial<ExtractDeps> = {}) => createExtractActivities({ pool, dir, log: createLogger('silent'), ...extra });
const fast = { sleep: async () => {} };

async function create(body: Partial<ExtractRequest>, organizationId: string | null = null) {
  const req = { scope: { jurisdiction: ['cambridge-ma'] }, as_of: today, known_as_of: nowIso, ...body } as ExtractRequest;
  const p = await planExtract(pool, req);
  const id = newId('extract');
  await insertExtract(pool, { id, organizationId, resource: p.plan.resource, format: p.plan.format, request: req, plan: p.plan, rowEstimate: p.rowEstimate, creditEstimate: p.creditEstimate, creditsCharged: organizationId ? p.creditEstimate : 0 });
  return { id, ...p };
}

async function duck<T = Record<string, unknown>>(sql: string): Promise<T[]> {
  const instance = await DuckDBInstance.create(':memory:');
  const c = await instance.connect();
  try {
    return (await c.runAndReadAll(sql)).getRowObjectsJson() as T[];
  } finally {
    c.closeSync();
    instance.closeSync();
  }
}

/** Law facts Cambridge's sources do not state: a permission changed in 2022 (the old row's
 * knowledge closed), one control, and change events detected before and after now. */
async function seedLaw() {
  const v = (await pool.query('SELECT id, document_id FROM document_version LIMIT 1')).rows[0];
  const district = (await pool.query('SELECT id FROM district WHERE jurisdiction_id = $1 LIMIT 1', [jur])).rows[0].id;
  await pool.query(
    `INSERT INTO citation (id, jurisdiction_id, document_id, version_id, quote, quote_sha256, locator, retrieved_at)
     VALUES ('cit_00000000000000000001', $1, $2, $3, 'q', 'x', '{}', now())`,
    [jur, v.document_id, v.id],
  );
  const permission = `INSERT INTO permission (id, content_sha256, source_id, jurisdiction_id, district_id, use_label_raw, use_label_normalized, symbol, level, citation_id, source_version_id, valid, known)
    VALUES ('pmn_00000000000000000001', $1, 'seed', $2, $3, 'Dwelling', 'dwelling', $4, $5, 'cit_00000000000000000001', $6, daterange($7::date, $8::date), tstzrange($9::timestamptz, $10::timestamptz))`;
  await pool.query(permission, ['a', jur, district, 'SP', 'conditional_use', v.id, '2020-01-01', '2022-01-01', '2020-01-01T00:00:00Z', '2022-01-01T00:00:00Z']);
  await pool.query(permission, ['b', jur, district, 'SP', 'conditional_use', v.id, '2020-01-01', '2022-01-01', '2022-01-01T00:00:00Z', null]);
  await pool.query(permission, ['c', jur, district, 'P', 'by_right', v.id, '2022-01-01', null, '2022-01-01T00:00:00Z', null]);
  await pool.query(
    `INSERT INTO control (id, content_sha256, source_id, jurisdiction_id, district_id, control_type, min_value, unit, value_text, citation_id, source_version_id, valid, known)
     VALUES ('ctl_00000000000000000001', 'a', 'seed', $1, $2, 'dimensional.setback_front', 15, 'ft', '15', 'cit_00000000000000000001', $3, daterange('2020-01-01', NULL), tstzrange('2020-01-01', NULL))`,
    [jur, district, v.id],
  );
  for (const [seq, at] of [[1, '2022-01-01T00:00:00Z'], [2, '2999-01-01T00:00:00Z']] as const) {
    await pool.query(
      `INSERT INTO change_event (id, seq, jurisdiction_id, kind, layer, subject, field_path, previous, current, detected_at)
       VALUES ($1, $2, $3, 'amendment', 'district', '{"district": "x"}', 'permission.level', '"conditional_use"', '"by_right"', $4)`,
      [`chg_0000000000000000000${seq}`, seq, jur, at],
    );
  }
}

const count = async (sql: string, values: unknown[]) => Number((await pool.query(sql, values)).rows[0].n);
const filesRows = async (id: string) => (await pool.query('SELECT * FROM extract_file WHERE extract_id = $1', [id])).rows;

describe('extract files', () => {
  test('parcels to GeoParquet: every row, WKB geometry, geo metadata DuckDB reads back', async () => {
    const x = await create({ resource: 'parcel', format: 'parquet' });
    const expected = await count('SELECT count(*) AS n FROM parcel WHERE jurisdiction_id = $1 AND known @> $2::timestamptz AND valid @> $3::date', [jur, nowIso, today]);
    expect(expected).toBeGreaterThan(13_000);
    expect(x.rowEstimate).toBe(expected);
    expect(x.creditEstimate).toBe(Math.ceil(expected / 1000));

    const out = await runExtractInProcess(activities(), x.id, fast);
    expect(out).toMatchObject({ state: 'succeeded', rows: expected });
    const path = join(dir, x.id, 'parcel.parquet');
    const [{ n }] = await duck<{ n: string }>(`SELECT count(*)::varchar AS n FROM read_parquet('${path}')`);
    expect(Number(n)).toBe(expected);
    const kv = await duck<{ k: string; v: string }>(`SELECT decode(key) AS k, decode(value) AS v FROM parquet_kv_metadata('${path}')`);
    const geo = JSON.parse(kv.find((r) => r.k === 'geo')!.v);
    expect(geo).toMatchObject({ version: '1.1.0', primary_column: 'geometry', columns: { geometry: { encoding: 'WKB' } } });
    expect(geo.columns.geometry.crs).toBeUndefined(); // absent = OGC:CRS84
    expect(geo.columns.geometry.geometry_types).toContain('MultiPolygon');
    const [w, s, e, nn] = geo.columns.geometry.bbox;
    expect(w).toBeGreaterThan(-71.2);
    expect(e).toBeLessThan(-71.0);
    expect(s).toBeGreaterThan(42.3);
    expect(nn).toBeLessThan(42.45);
    const [one] = await duck<{ t: string; wkt: string; key: string }>(`SELECT typeof(geometry) AS t, st_astext(geometry) AS wkt, parcel_key AS key FROM read_parquet('${path}') WHERE parcel_key = '127-123'`);
    expect(one.t).toContain('GEOMETRY');
    expect(one.wkt).toMatch(/^MULTIPOLYGON/);
    const [pg] = (await pool.query(`SELECT ST_AsText(geom) AS wkt FROM parcel WHERE parcel_key = '127-123' AND known @> now() AND upper_inf(valid)`)).rows;
    expect(one.wkt.replace(/\s+/g, '').slice(0, 40)).toBe(pg.wkt.replace(/\s+/g, '').slice(0, 40));
    const [file] = await filesRows(x.id);
    expect(file).toMatchObject({ name: 'parcel.parquet', rows: expected, sha256: sha256Hex(await readFile(path)) });
    expect(await readdir(join(dir, x.id))).toEqual(['parcel.parquet']);
  });

  test('parcels to JSONL: one GeoJSON feature-like object per line', async () => {
    const x = await create({ resource: 'parcel', format: 'jsonl' });
    const out = await runExtractInProcess(activities(), x.id, fast);
    const lines = (await readFile(join(dir, x.id, 'parcel.jsonl'), 'utf8')).trimEnd().split('\n');
    expect(lines).toHaveLength(x.rowEstimate);
    expect(out.rows).toBe(lines.length);
    const row = lines.map((l) => JSON.parse(l)).find((r) => r.parcel_key === '127-123');
    expect(row.geometry.type).toBe('MultiPolygon');
    expect(row.id).toMatch(/^prc_/);
    expect(typeof row.attributes).toBe('object');
    expect(typeof row.area_sq_ft).toBe('number');
    expect(row.area_m2).toBeUndefined();
    expect(row.effective_from).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect(row.known_from).toMatch(/^\d{4}-\d{2}-\d{2}T/);
  });

  test('every resource: rows written equal an independent SQL count; other times are left out', async () => {
    await seedLaw();
    const bitemporal = (table: string) => count(`SELECT count(*) AS n FROM ${table} WHERE jurisdiction_id = $1 AND known @> $2::timestamptz AND valid @> $3::date`, [jur, nowIso, today]);
    const expected: Record<string, () => Promise<number>> = {
      jurisdiction: async () => 1,
      property: () => bitemporal('property'),
      district: () => bitemporal('district'),
      district_area: () => bitemporal('district_area'),
      permission: () => bitemporal('permission'),
      control: () => bitemporal('control'),
      change_event: () => count('SELECT count(*) AS n FROM change_event WHERE jurisdiction_id = $1 AND detected_at <= $2', [jur, nowIso]),
    };
    for (const [resource, sql] of Object.entries(expected)) {
      const timeless = resource === 'jurisdiction' || resource === 'change_event';
      const x = await create({ resource, format: 'jsonl', ...(timeless ? { as_of: undefined } : {}) });
      const n = await sql();
      const out = await runExtractInProcess(activities(), x.id, fast);
      expect(out.state, `${resource}: ${out.error}`).toBe('succeeded');
      expect(out.rows, resource).toBe(n);
      const text = await readFile(join(dir, x.id, `${resource}.jsonl`), 'utf8');
      expect(text === '' ? 0 : text.trimEnd().split('\n').length, resource).toBe(n);
    }
    for (const t of ['district', 'district_area']) expect(await bitemporal(t), t).toBeGreaterThan(100);
    expect(await bitemporal('permission')).toBe(1);
    expect(await bitemporal('control')).toBe(1);
    expect(await expected.change_event()).toBe(1);

    // the law as it stood, as known then: the superseded row, not today's
    const then = await create({ resource: 'permission', format: 'jsonl', as_of: '2021-06-01', known_as_of: '2021-06-01T00:00:00Z' });
    await runExtractInProcess(activities(), then.id, fast);
    const rows = (await readFile(join(dir, then.id, 'permission.jsonl'), 'utf8')).trimEnd().split('\n').map((l) => JSON.parse(l));
    expect(rows.map((r) => [r.level, r.effective_from, r.status])).toEqual([['conditional_use', '2020-01-01', 'stated']]);
  });

  test('a filter keeps rows it cannot evaluate, marked indeterminate; field[] selects columns', async () => {
    const x = await create({ resource: 'parcel', format: 'parquet', filter: { area_sq_ft: { gte: 10_000 } }, field: ['parcel_key', 'area_sq_ft'] });
    const base = 'FROM parcel WHERE jurisdiction_id = $1 AND known @> $2::timestamptz AND valid @> $3::date';
    // square feet, as OGC and tiles serve parcel area: 10,000 sq ft is 929 m²
    const matched = await count(`SELECT count(*) AS n ${base} AND area_m2 * 10.763910417 >= 9999.5`, [jur, nowIso, today]);
    const unknown = await count(`SELECT count(*) AS n ${base} AND area_m2 IS NULL`, [jur, nowIso, today]);
    expect(unknown).toBeGreaterThan(0);
    await runExtractInProcess(activities(), x.id, fast);
    const path = join(dir, x.id, 'parcel.parquet');
    const cols = await duck<{ column_name: string }>(`DESCRIBE SELECT * FROM read_parquet('${path}')`);
    expect(cols.map((c) => c.column_name)).toEqual(['id', 'effective_from', 'parcel_key', 'area_sq_ft', 'filter_outcome']);
    const outcomes = await duck<{ o: string; n: string }>(`SELECT filter_outcome AS o, count(*)::varchar AS n FROM read_parquet('${path}') GROUP BY 1 ORDER BY 1`);
    expect(outcomes).toEqual([{ o: 'indeterminate', n: String(unknown) }, { o: 'match', n: String(matched) }]);
    const kv = await duck<{ k: string }>(`SELECT decode(key) AS k FROM parquet_kv_metadata('${path}')`);
    expect(kv.map((r) => r.k)).not.toContain('geo');
  });

  test('bad requests are refused before anything is written', async () => {
    const refused = (body: Partial<ExtractRequest>) => create({ resource: 'parcel', format: 'jsonl', ...body }).then(() => null, (e) => e);
    expect(await refused({ filter: { nope: { eq: 'x' } } })).toMatchObject({ code: 'field_unknown', field: 'filter.nope' });
    expect(await refused({ filter: { area_sq_ft: { near: 1 } } })).toMatchObject({ code: 'parameter_invalid', field: 'filter.area_sq_ft.near' });
    expect(await refused({ filter: { area_sq_ft: { gte: 'big' } } })).toMatchObject({ code: 'parameter_invalid', field: 'filter.area_sq_ft.gte' });
    // one unit everywhere: the square-metre name is gone
    expect(await refused({ filter: { area_m2: { gte: 1000 } } })).toMatchObject({ code: 'field_unknown', field: 'filter.area_m2' });
    expect(await refused({ field: ['area_m2'] })).toMatchObject({ code: 'field_unknown', field: 'field' });
    expect(await refused({ field: ['parcel_key', 'owner'] })).toMatchObject({ code: 'field_unknown', field: 'field' });
    expect(await refused({ known_as_of: 'from:2024-01-01 to:2024-02-01' })).toMatchObject({ code: 'parameter_invalid', field: 'known_as_of' });
    expect(await refused({ resource: 'change_event', as_of: '2024-01-01' })).toMatchObject({ code: 'parameter_invalid', field: 'as_of' });
    expect(await refused({ scope: { jurisdiction: ['atlantis'] } })).toMatchObject({ code: 'parameter_invalid', field: 'scope.jurisdiction' });
    expect(await refused({ resource: 'deed' })).toMatchObject({ code: 'vocabulary_value_unknown', field: 'resource' });
  });
});

describe('an interrupted extract', () => {
  const killAfter = (rows: number, times: number) => {
    let left = times;
    return {
      batchRows: 2000,
      afterBatch: (_id: string, n: number) => {
        if (n >= rows && left > 0) {
          left--;
          throw new Error(`killed after ${n} rows`);
        }
      },
    };
  };

  test('killed on every attempt: it fails cleanly (nothing listed, nothing left, credits back); run again it converges', async () => {
    const org = (await pool.query(`INSERT INTO organization (id, name, slug) VALUES ($1, 'x', $1) RETURNING id`, [newId('organization')])).rows[0].id;
    await pool.query('INSERT INTO credit_account (organization_id, balance, available) VALUES ($1, 0, 0)', [org]);
    const x = await create({ resource: 'parcel', format: 'parquet' }, org);
    const failed = await runExtractInProcess(activities(killAfter(4000, 99)), x.id, fast);
    expect(failed).toMatchObject({ state: 'failed', error: expect.stringMatching(/^killed after \d+ rows$/) });
    const row = (await pool.query('SELECT * FROM extract WHERE id = $1', [x.id])).rows[0];
    expect(row).toMatchObject({ state: 'failed', row_count: null });
    expect(row.refunded_at).not.toBeNull();
    expect(await filesRows(x.id)).toEqual([]);
    expect(await readdir(join(dir, x.id))).toEqual([]);
    const credit = (await pool.query('SELECT balance FROM credit_account WHERE organization_id = $1', [org])).rows[0].balance;
    expect(credit).toBe(x.creditEstimate);
    await activities().failExtract(x.id, 'again');
    expect((await pool.query('SELECT balance FROM credit_account WHERE organization_id = $1', [org])).rows[0].balance).toBe(x.creditEstimate);

    const again = await runExtractInProcess(activities(), x.id, fast);
    expect(again).toMatchObject({ state: 'succeeded', rows: x.rowEstimate });
    const first = await filesRows(x.id);
    expect(first).toHaveLength(1);
    // a further run rewrites the same bytes and lists the file once
    await pool.query(`UPDATE extract SET state = 'running' WHERE id = $1`, [x.id]);
    await activities().writeExtract(x.id);
    const second = await filesRows(x.id);
    expect(second).toHaveLength(1);
    expect(second[0].sha256).toBe(first[0].sha256);
    expect(await readdir(join(dir, x.id))).toEqual(['parcel.parquet']);
  });

  test('killed once: the retry starts over and the result is whole', async () => {
    const x = await create({ resource: 'parcel', format: 'jsonl' });
    const steps: string[] = [];
    const out = await runExtractInProcess(activities(killAfter(2000, 1)), x.id, { ...fast, onActivity: (name, phase) => steps.push(`${name}:${phase}`) });
    expect(out).toMatchObject({ state: 'succeeded', rows: x.rowEstimate });
    expect(steps).toContain('writeExtract:retry');
    const lines = (await readFile(join(dir, x.id, 'parcel.jsonl'), 'utf8')).trimEnd().split('\n');
    expect(lines).toHaveLength(x.rowEstimate);
    expect(new Set(lines.map((l) => JSON.parse(l).id)).size).toBe(lines.length);
  });
});
