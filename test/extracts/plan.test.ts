// The pure parts of an extract: the body's filter as the collection grammar, the price, the
// statement form COPY runs (values bound as settings, never in the text), GeoParquet names.
import { expect, test } from 'vitest';
import { creditsFor, type ExtractPlan, filterTexts, selectFields } from '../../activities/extract/plan.ts';
import { RESOURCES } from '../../activities/extract/resources.ts';
import { countQuery, rowQuery } from '../../activities/extract/sql.ts';
import { geoParquetType, settingsForm } from '../../activities/extract/stage.ts';

test('a body filter becomes filter[field][op] texts: lists joined, repeated values ORed', () => {
  expect(filterTexts({ area_sq_ft: { gte: 100, lt: 500 }, parcel_key: { in: ['1-1', '1-2'], prefix: '1-' }, apn: { eq: ['A', 'B'] }, effective_through: { is_null: true } })).toEqual([
    'filter[area_sq_ft][gte]=100',
    'filter[area_sq_ft][lt]=500',
    'filter[parcel_key][in]=1-1,1-2',
    'filter[parcel_key][prefix]=1-',
    'filter[apn][eq]=A',
    'filter[apn][eq]=B',
    'filter[effective_through][is_null]=true',
  ]);
  expect(filterTexts(undefined)).toEqual([]);
  expect(() => filterTexts({ area_sq_ft: 5 })).toThrow(expect.objectContaining({ field: 'filter.area_sq_ft' }));
  expect(() => filterTexts({ area_sq_ft: {} })).toThrow(expect.objectContaining({ field: 'filter.area_sq_ft' }));
  expect(() => filterTexts({ area_sq_ft: { eq: { x: 1 } } })).toThrow(expect.objectContaining({ field: 'filter.area_sq_ft.eq' }));
});

test('one credit per 1,000 rows, at least one', () => {
  expect([0, 1, 1000, 1001, 13_108, 1_000_000].map(creditsFor)).toEqual([1, 1, 1, 2, 14, 1000]);
});

test('fields: the fixed ones first, then those asked, once each', () => {
  expect(selectFields(RESOURCES.permission, ['level', 'id'])).toEqual(['id', 'status', 'effective_from', 'level']);
  expect(selectFields(RESOURCES.parcel, undefined)).toEqual(RESOURCES.parcel.columns.map((c) => c.name));
});

const plan: ExtractPlan = {
  resource: 'parcel',
  format: 'parquet',
  jurisdictions: ["jur_o'brien"],
  asOf: { kind: 'instant', text: 'now', dates: { "jur_o'brien": '2024-05-01' } },
  knownAsOf: '2024-05-01T00:00:00.000000Z',
  fields: ['id', 'parcel_key', 'geometry'],
  filter: ["filter[parcel_key][eq]=1'; DROP TABLE parcel; --"],
};

test('values are bound, and in the COPY form read from settings: none is pasted into the SQL', () => {
  const q = rowQuery(plan);
  expect(q.values).toContain("1'; DROP TABLE parcel; --");
  expect(q.sql).not.toContain('DROP');
  expect(q.geometry).toBe('geometry');
  expect(q.columns.map((c) => c.name)).toEqual(['id', 'parcel_key', 'geometry', 'filter_outcome']);
  const s = settingsForm(q);
  expect(s.sql).not.toMatch(/\$\d/);
  expect(s.sql).not.toContain("o'brien");
  expect(s.sql).toContain(`= ANY((SELECT current_setting('landlex.extract_1')::text[])::text[])`);
  expect(s.settings).toEqual(q.values.map((v, i) => [`landlex.extract_${i + 1}`, v]));
  expect(countQuery(plan).values).toEqual(q.values);
});

test('PostGIS geometry type names in GeoParquet spelling', () => {
  expect(['MULTIPOLYGON', 'POINT Z', 'GEOMETRYCOLLECTION', 'LINESTRINGM', 'MULTILINESTRING'].map(geoParquetType)).toEqual(['MultiPolygon', 'Point Z', 'GeometryCollection', 'LineString', 'MultiLineString']);
});
