// Time parameter grammar (spec 4.0.2) and the as_of block (spec 2.2).
import { describe, expect, test } from 'vitest';
import { ApiError } from '../../core/errors.ts';
import { type TimeInstant, type TimeValue, intervalNotice, parseTimeText, resolveAsOf, resolveKnownAsOf, resolveTimes, startOfDay, timeBlock } from '../../core/time.ts';

const NY = 'America/New_York';
const now = new Date('2024-07-10T02:30:00Z'); // 2024-07-09 22:30 in New York
const at = (v: TimeValue) => v as TimeInstant;

function refusal(fn: () => unknown): ApiError {
  try {
    fn();
  } catch (e) {
    if (e instanceof ApiError) return e;
    throw e;
  }
  throw new Error('expected a refusal');
}

describe('grammar', () => {
  test('a date', () => {
    expect(parseTimeText('2024-05-01', 'as_of')).toEqual({ form: 'date', date: '2024-05-01', text: '2024-05-01' });
  });

  test('a date-time with offset, Z or a +offset decoded to a space', () => {
    expect(parseTimeText('2024-05-01T10:00:00-04:00', 'as_of')).toMatchObject({ form: 'instant', instant: '2024-05-01T14:00:00.000000Z' });
    expect(parseTimeText('2024-05-01T10:00Z', 'as_of')).toMatchObject({ form: 'instant', instant: '2024-05-01T10:00:00.000000Z' });
    expect(parseTimeText('2024-05-01T10:00:00.123456 02:00', 'as_of')).toMatchObject({ form: 'instant', instant: '2024-05-01T08:00:00.123456Z' });
  });

  test('a date-time without offset is refused naming the field', () => {
    const e = refusal(() => parseTimeText('2024-05-01T10:00:00', 'known_as_of'));
    expect(e.code).toBe('parameter_invalid');
    expect(e.field).toBe('known_as_of');
    expect(e.detail).toMatch(/offset/);
  });

  test('an interval, inclusive, from not after to', () => {
    expect(parseTimeText('from:2024-01-01  to:2024-03-31', 'as_of')).toEqual({ form: 'range', from: '2024-01-01', to: '2024-03-31', text: 'from:2024-01-01 to:2024-03-31' });
    expect(parseTimeText('from:2024-01-01 to:2024-01-01', 'as_of')).toMatchObject({ form: 'range' });
    expect(refusal(() => parseTimeText('from:2024-02-01 to:2024-01-01', 'as_of')).field).toBe('as_of');
    expect(refusal(() => parseTimeText('from:2024-02-30 to:2024-03-01', 'as_of')).code).toBe('parameter_invalid');
  });

  test('last n days, n from 1 to 36500', () => {
    expect(parseTimeText('last 7 days', 'as_of')).toEqual({ form: 'last', days: 7, text: 'last 7 days' });
    expect(parseTimeText('LAST 1 day', 'as_of')).toMatchObject({ days: 1 });
    expect(refusal(() => parseTimeText('last 0 days', 'as_of')).code).toBe('parameter_invalid');
    expect(refusal(() => parseTimeText('last 36501 days', 'as_of')).code).toBe('parameter_invalid');
    expect(parseTimeText('last 36500 days', 'as_of')).toMatchObject({ days: 36500 });
  });

  test.each(['yesterday', '2024-13-01', '2024-02-30', '2024-05-01T25:00:00Z', '2024-05-01T10:00:00+19:00', '', '05/01/2024'])('%j is refused', (raw) => {
    const e = refusal(() => parseTimeText(raw, 'as_of'));
    expect(e.code).toBe('parameter_invalid');
    expect(e.field).toBe('as_of');
  });
});

describe('resolution', () => {
  test('as_of defaults to now in the jurisdiction timezone', () => {
    expect(resolveAsOf(undefined, NY, now)).toEqual({ kind: 'instant', date: '2024-07-09', instant: '2024-07-10T02:30:00.000000Z', text: 'now', basis: 'default' });
    expect(at(resolveAsOf(undefined, 'UTC', now)).date).toBe('2024-07-10');
  });

  test('a date starts at local midnight, across DST', () => {
    expect(at(resolveAsOf(parseTimeText('2024-05-01', 'as_of'), NY, now)).instant).toBe('2024-05-01T04:00:00.000000Z');
    expect(at(resolveAsOf(parseTimeText('2024-01-15', 'as_of'), NY, now)).instant).toBe('2024-01-15T05:00:00.000000Z');
    expect(startOfDay('2024-03-10', NY).toISOString()).toBe('2024-03-10T05:00:00.000Z');
    expect(startOfDay('2024-03-11', NY).toISOString()).toBe('2024-03-11T04:00:00.000Z');
  });

  test('a date-time takes its local date', () => {
    const v = resolveAsOf(parseTimeText('2024-05-01T02:00:00Z', 'as_of'), NY, now);
    expect(v).toMatchObject({ kind: 'instant', date: '2024-04-30', instant: '2024-05-01T02:00:00.000000Z', basis: 'requested' });
  });

  test('an interval carries its half-open instants in the timezone', () => {
    const v = resolveAsOf(parseTimeText('from:2024-01-01 to:2024-01-31', 'as_of'), NY, now);
    expect(v).toEqual({ kind: 'interval', from: '2024-01-01', to: '2024-01-31', start: '2024-01-01T05:00:00.000000Z', end: '2024-02-01T05:00:00.000000Z', text: 'from:2024-01-01 to:2024-01-31', basis: 'requested' });
  });

  test('last n days ends today, local', () => {
    expect(resolveAsOf(parseTimeText('last 7 days', 'as_of'), NY, now)).toMatchObject({ from: '2024-07-03', to: '2024-07-09' });
    expect(resolveAsOf(parseTimeText('last 1 day', 'as_of'), 'UTC', now)).toMatchObject({ from: '2024-07-10', to: '2024-07-10' });
  });

  test('known_as_of: now UTC; a date is the end of that UTC day; never after now', () => {
    expect(resolveKnownAsOf(undefined, now)).toMatchObject({ instant: '2024-07-10T02:30:00.000000Z', basis: 'default' });
    expect(resolveKnownAsOf(parseTimeText('2024-05-01', 'known_as_of'), now)).toMatchObject({ date: '2024-05-01', instant: '2024-05-01T23:59:59.999999Z' });
    expect(at(resolveKnownAsOf(parseTimeText('2024-07-10', 'known_as_of'), now)).instant).toBe('2024-07-10T02:30:00.000000Z');
    expect(at(resolveKnownAsOf(parseTimeText('2030-01-01T00:00:00Z', 'known_as_of'), now)).instant).toBe('2024-07-10T02:30:00.000000Z');
    expect(resolveKnownAsOf(parseTimeText('last 2 days', 'known_as_of'), now)).toMatchObject({ from: '2024-07-09', to: '2024-07-10', end: '2024-07-10T02:30:00.000000Z' });
  });
});

describe('the as_of block', () => {
  test('defaults', () => {
    const t = resolveTimes({}, NY, now);
    expect(timeBlock({ ...t, timezone: NY })).toEqual({
      resolved: { from: '2024-07-09', to: '2024-07-09', at: '2024-07-10T02:30:00.000000Z' },
      timezone: NY,
      basis: 'default',
      known_as_of: '2024-07-10T02:30:00.000000Z',
      known_as_of_basis: 'default',
      requested: null,
      earliest_retained: {},
      constant: true,
      segment_count: 1,
    });
  });

  test('an interval asked, with segments and retention', () => {
    const t = resolveTimes({ as_of: parseTimeText('from:2024-01-01 to:2024-06-30', 'as_of'), known_as_of: parseTimeText('2024-07-01', 'known_as_of') }, NY, now);
    const block = timeBlock({ ...t, timezone: NY, segmentCount: 3, earliestRetained: { district: '2019-03-01' } });
    expect(block).toMatchObject({
      resolved: { from: '2024-01-01', to: '2024-06-30' },
      basis: 'requested',
      requested: 'from:2024-01-01 to:2024-06-30',
      known_as_of: '2024-07-01T23:59:59.999999Z',
      known_as_of_basis: 'requested',
      earliest_retained: { district: '2019-03-01' },
      constant: false,
      segment_count: 3,
    });
    expect(intervalNotice(3, ['district'])).toMatchObject({ code: 'as_of_interval_spans_change', severity: 'info', count: 3 });
    expect(intervalNotice(1)).toBeNull();
  });
});
