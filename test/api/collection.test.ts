// Collection machinery without a database: filter and sort grammar, SQL shape, cursor signing.
import { describe, expect, test } from 'vitest';
import { checkCursor, openCursor, peekCursor, signCursor, type CursorPayload } from '../../core/query/cursor.ts';
import { compileFilter } from '../../core/query/filter.ts';
import { collectionParams } from '../../core/query/params.ts';
import { keyset } from '../../core/query/query.ts';
import { type ResourceDef, SqlBuilder } from '../../core/query/resource.ts';
import { effectiveSort, parseSort } from '../../core/query/sort.ts';
import { parseParams } from '../../api/params.ts';
import { ApiError } from '../../core/errors.ts';

const def: ResourceDef = {
  name: 'thing',
  from: 'thing t',
  id: 't.id',
  select: 't.*',
  defaultSort: 'name',
  fields: {
    name: { sql: 't.name', type: 'string', sortable: true, nullable: false },
    size: { sql: 't.size', type: 'integer', sortable: true },
    ratio: { sql: 't.ratio', type: 'number' },
    open: { sql: 't.open', type: 'boolean' },
    day: { sql: 't.day', type: 'date', sortable: true },
    seen: { sql: 't.seen', type: 'timestamp' },
    kind: { sql: 't.kind', type: 'enum', enum: ['a', 'b', 'c'] },
    tags: { sql: 't.tags', type: 'string[]' },
    use: { sql: '', type: 'permission', permission: { permits: (v) => `permits(t.id, ${v})`, forbids: (v) => `forbids(t.id, ${v})` } },
    relevance: { sql: (c) => `rank(t.name, ${c.bind(c.query, 'text')})`, type: 'number', sortable: true, filterable: false, requiresQuery: true },
  },
};

function refusal(fn: () => unknown): ApiError {
  try {
    fn();
  } catch (e) {
    if (e instanceof ApiError) return e;
    throw e;
  }
  throw new Error('expected a refusal');
}

const parse = (query: Record<string, string | string[]>) => parseParams(collectionParams(def, { includeUnknown: true }), query, {});

describe('filter grammar', () => {
  test('values of one parameter OR, different parameters AND, typed by field', () => {
    const p = parse({ 'filter[kind][eq]': ['a', 'b'], 'filter[size][gte]': '3', 'filter[size][lte]': '9' });
    expect(p.filter.groups).toEqual([
      { field: 'kind', op: 'eq', param: 'filter[kind][eq]', operands: ['a', 'b'] },
      { field: 'size', op: 'gte', param: 'filter[size][gte]', operands: [3] },
      { field: 'size', op: 'lte', param: 'filter[size][lte]', operands: [9] },
    ]);
    const b = new SqlBuilder();
    expect(compileFilter(def, p.filter, b)).toBe('(((t.kind) = $1::text OR (t.kind) = $2::text)) AND ((t.size) >= $3::bigint) AND ((t.size) <= $4::bigint)');
    expect(b.values).toEqual(['a', 'b', 3, 9]);
  });

  test('every operator compiles to bound SQL', () => {
    const cases: Array<[string, string, string, RegExp]> = [
      ['name', 'ne', 'x', /<> \$1::text/],
      ['size', 'in', '1,2,2', /= ANY\(\$1::bigint\[\]\)/],
      ['kind', 'nin', 'a,b', /<> ALL\(\$1::text\[\]\)/],
      ['ratio', 'lt', '0.5', /< \$1::numeric/],
      ['day', 'gt', '2024-01-01', /> \$1::date/],
      ['seen', 'between', '2024-01-01,2024-02-01T00:00:00Z', /BETWEEN \$1::timestamptz AND \$2::timestamptz/],
      ['name', 'prefix', 'Ab', /starts_with\(lower\(\(t\.name\)\), lower\(\$1::text\)\)/],
      ['name', 'contains', 'b', /strpos\(lower/],
      ['tags', 'contains', 'x', /@> ARRAY\[\$1::text\]/],
      ['tags', 'any', 'x,y', /&& \$1::text\[\]/],
      ['tags', 'all', 'x,y', /@> \$1::text\[\]/],
      ['open', 'is_null', 'true', /IS NULL/],
      ['open', 'not_null', 'true', /IS NOT NULL/],
      ['use', 'permits', 'residential.dwelling', /permits\(t\.id, \$1::text\)/],
      ['use', 'forbids', 'residential.dwelling', /forbids\(t\.id, \$1::text\)/],
    ];
    for (const [field, op, value, sql] of cases) {
      const p = parse({ [`filter[${field}][${op}]`]: value });
      expect(compileFilter(def, p.filter, new SqlBuilder()), `${field} ${op}`).toMatch(sql);
    }
    const b = new SqlBuilder();
    compileFilter(def, parse({ 'filter[size][in]': '1,2,2' }).filter, b);
    expect(b.values).toEqual([[1, 2]]);
  });

  test('an unknown field is field_unknown listing the filter fields', () => {
    const e = refusal(() => parse({ 'filter[colour][eq]': 'red' }));
    expect(e.code).toBe('field_unknown');
    expect(e.field).toBe('filter[colour][eq]');
    expect(e.detail).toContain('day, kind, name, open, ratio, seen, size, tags, use');
    expect(refusal(() => parse({ 'filter[relevance][lt]': '1' })).code).toBe('field_unknown');
  });

  test('an unknown operator, or one the field type does not take, is parameter_invalid naming it', () => {
    expect(refusal(() => parse({ 'filter[size][near]': '1' }))).toMatchObject({ code: 'parameter_invalid', field: 'filter[size][near]' });
    expect(refusal(() => parse({ 'filter[size][prefix]': '1' }))).toMatchObject({ code: 'parameter_invalid', field: 'filter[size][prefix]' });
    expect(refusal(() => parse({ 'filter[name][permits]': 'x' }))).toMatchObject({ code: 'parameter_invalid', field: 'filter[name][permits]' });
    expect(refusal(() => parse({ 'filter[size]': '1' }))).toMatchObject({ code: 'parameter_invalid', field: 'filter[size]' });
    expect(refusal(() => parse({ filter: 'size=1' }))).toMatchObject({ code: 'parameter_invalid', field: 'filter' });
  });

  test('values that do not parse for the type are refused, never an empty result', () => {
    const bad: Array<[string, string, string]> = [
      ['filter[size][eq]', '1.5', 'parameter_invalid'],
      ['filter[ratio][gt]', 'abc', 'parameter_invalid'],
      ['filter[open][eq]', 'yes', 'parameter_invalid'],
      ['filter[day][lt]', '2024-02-30', 'parameter_invalid'],
      ['filter[seen][gt]', '2024-01-01T10:00:00', 'parameter_invalid'],
      ['filter[kind][eq]', 'z', 'vocabulary_value_unknown'],
      ['filter[kind][in]', 'a,z', 'vocabulary_value_unknown'],
      ['filter[size][between]', '5', 'parameter_invalid'],
      ['filter[size][between]', '9,5', 'parameter_invalid'],
      ['filter[size][in]', '1,,2', 'parameter_invalid'],
      ['filter[open][is_null]', 'maybe', 'parameter_invalid'],
    ];
    for (const [key, value, code] of bad) expect(refusal(() => parse({ [key]: value })), key + '=' + value).toMatchObject({ code, field: key });
  });

  test('filter_indeterminate and include_unknown', () => {
    expect(parse({ filter_indeterminate: 'only' }).filter_indeterminate).toBe('only');
    expect(refusal(() => parse({ filter_indeterminate: 'some' })).code).toBe('vocabulary_value_unknown');
    expect(parse({ include_unknown: 'false' }).include_unknown).toBe(false);
  });
});

describe('sort grammar', () => {
  test('up to three fields, - reverses', () => {
    expect(parseSort(def, '-size,name')).toEqual({ keys: [{ field: 'size', desc: true }, { field: 'name', desc: false }], text: '-size,name' });
    expect(refusal(() => parseSort(def, 'name,size,day,-relevance')).code).toBe('parameter_invalid');
    expect(refusal(() => parseSort(def, 'name,name')).code).toBe('parameter_invalid');
    expect(refusal(() => parseSort(def, 'name,')).code).toBe('parameter_invalid');
  });

  test('an unknown sort field is field_unknown listing the sort fields', () => {
    const e = refusal(() => parseSort(def, 'kind'));
    expect(e).toMatchObject({ code: 'field_unknown', field: 'sort' });
    expect(e.detail).toContain('day, name, relevance, size');
  });

  test('relevance needs a query', () => {
    expect(refusal(() => effectiveSort(def, parseSort(def, 'relevance'), false)).code).toBe('sort_requires_query');
    expect(effectiveSort(def, parseSort(def, 'relevance'), true).text).toBe('relevance');
    expect(effectiveSort(def, undefined, false).text).toBe('name');
  });
});

describe('keyset predicate', () => {
  const k = (expr: string, desc: boolean, nullable: boolean) => ({ expr, desc, cast: 'text', nullable });

  test('one direction and no NULLs: a row comparison', () => {
    const b = new SqlBuilder();
    expect(keyset([k('a', true, false), k('id', true, false)], ['5', 'x'], b)).toBe('(a, id) < ($1::text, $2::text)');
  });

  test('mixed directions and NULLs: an OR chain with NULLs last', () => {
    const b = new SqlBuilder();
    expect(keyset([k('a', true, true), k('b', false, false), k('id', false, false)], ['5', 'q', 'x'], b)).toBe(
      '(((a < $1::text OR a IS NULL)) OR (a = $2::text AND (b > $3::text)) OR (a = $4::text AND b = $5::text AND (id > $6::text)))',
    );
    const n = new SqlBuilder();
    expect(keyset([k('a', false, true), k('id', false, false)], [null, 'x'], n)).toBe('((a IS NULL AND (id > $1::text)))');
  });
});

describe('cursors', () => {
  const secret = Buffer.from('s'.repeat(32));
  const payload: CursorPayload = { v: 1, r: 'thing', s: 'name', f: 'sig', k: ['Abc'], id: 't_1', t: '2024-01-01T00:00:00.000000Z', i: Math.floor(Date.now() / 1000) };
  const expect_ = { resource: 'thing', sort: 'name', filter: 'sig' };

  test('round trip', () => {
    const c = signCursor(payload, secret);
    expect(c).toMatch(/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/);
    expect(openCursor(c, secret)).toEqual(payload);
    expect(peekCursor(c)).toEqual(payload);
    expect(() => checkCursor(openCursor(c, secret), expect_)).not.toThrow();
  });

  test('tampered, foreign-signed or garbage cursors are parameter_invalid on cursor', () => {
    const c = signCursor(payload, secret);
    const [body, sig] = c.split('.');
    const altered = Buffer.from(JSON.stringify({ ...payload, k: ['Zzz'] })).toString('base64url');
    for (const bad of [`${altered}.${sig}`, signCursor(payload, Buffer.from('o'.repeat(32))), `${body}.`, 'nonsense', `${c}.x`]) {
      expect(refusal(() => openCursor(bad, secret)), bad).toMatchObject({ code: 'parameter_invalid', field: 'cursor' });
    }
  });

  test('expired, sort changed, filters changed, other list', () => {
    const old = { ...payload, i: payload.i - 24 * 3600 - 1 };
    expect(refusal(() => checkCursor(old, expect_)).code).toBe('cursor_expired');
    expect(() => checkCursor(old, { ...expect_, retentionSeconds: 48 * 3600 })).not.toThrow();
    expect(refusal(() => checkCursor(payload, { ...expect_, sort: '-name' })).code).toBe('cursor_sort_mismatch');
    expect(refusal(() => checkCursor(payload, { ...expect_, filter: 'other' }))).toMatchObject({ code: 'parameter_invalid', field: 'cursor' });
    expect(refusal(() => checkCursor(payload, { ...expect_, resource: 'other' }))).toMatchObject({ code: 'parameter_invalid', field: 'cursor' });
  });
});

test('size bounds are part of the parameters', () => {
  expect(parse({}).size).toBe(25);
  expect(parse({ size: '200' }).size).toBe(200);
  for (const s of ['0', '201', '-1', 'ten']) expect(refusal(() => parse({ size: s })).field).toBe('size');
});
