// numberMatched counts the collection's own rows: the district facts joined for properties (a
// LEFT JOIN LATERAL of at most one row each) are read by the count only when a condition names
// them. Counting through the join cost one index probe per district area (6 s over Chicago's
// 14,843, past the statement timeout: the first page of /districts was 503).
import { expect, test } from 'vitest';
import { COLLECTIONS } from '../../ogc/collections.ts';
import { CRS84 } from '../../ogc/crs.ts';
import { extentSql } from '../../ogc/extents.ts';
import { pageStatement } from '../../ogc/items.ts';

const districts = COLLECTIONS.find((c) => c.id === 'districts')!;
const countOf = (text: string) => text.slice(text.indexOf('SELECT count(*)'));

test('the count of a page without a condition on the district facts does not join them', () => {
  const { text } = pageStatement({ collection: districts, crs: CRS84, at: { kind: 'now' }, snapshot: '2026-11-25T00:00:00Z', limit: 10, countCap: 100_000 });
  expect(text).toContain('LEFT JOIN LATERAL');
  expect(countOf(text)).not.toContain('LATERAL');
  const boxed = pageStatement({ collection: districts, crs: CRS84, at: { kind: 'now' }, snapshot: '2026-11-25T00:00:00Z', limit: 10, countCap: 100_000, bbox: { box: [-88, 41, -87, 42], crs: CRS84 } });
  expect(countOf(boxed.text)).not.toContain('LATERAL');
});

test('a filter on a property of the district facts keeps them in the count', () => {
  const { text } = pageStatement({ collection: districts, crs: CRS84, at: { kind: 'now' }, snapshot: '2026-11-25T00:00:00Z', limit: 10, countCap: 100_000, filter: { text: "code_normalized = 'RS-3'", crs: CRS84 } });
  expect(countOf(text)).toContain('LATERAL');
});

test("a collection's extent reads its rows' own geometry, not the district facts", () => {
  expect(extentSql(districts)).not.toContain('LATERAL');
});
