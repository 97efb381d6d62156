// The schedule grammar (api/routes/alert-schedule.ts), pure: every form read and rendered back,
// every refusal naming schedule with its code.
import { describe, expect, test } from 'vitest';
import { parseSchedule, renderSchedule } from '../../api/routes/alert-schedule.ts';
import { ApiError } from '../../core/errors.ts';

describe('parseSchedule and renderSchedule', () => {
  test.each([
    ['immediate', 'immediate'],
    [' IMMEDIATE ', 'immediate'],
    ['daily 00:00', 'daily 00:00'],
    ['Daily 7:05', 'daily 07:05'],
    ['weekly sunday 23:59', 'weekly sunday 23:59'],
    ['WEEKLY\tFriday   07:30', 'weekly friday 07:30'],
  ])('%j is answered as %j', (given, canonical) => {
    expect(renderSchedule(parseSchedule(given))).toBe(canonical);
    expect(parseSchedule(canonical)).toEqual(parseSchedule(given));
  });

  test('the stored objects', () => {
    expect(parseSchedule('immediate')).toEqual({ kind: 'immediate' });
    expect(parseSchedule('daily 18:00')).toEqual({ kind: 'digest', every: 'day', at: '18:00' });
    expect(parseSchedule('weekly monday 06:00')).toEqual({ kind: 'digest', every: 'week', day: 'monday', at: '06:00' });
    expect(renderSchedule({ kind: 'digest', every: 'week', at: '06:00' })).toBe('weekly monday 06:00');
  });

  test.each([
    ['', 'parameter_invalid', 'is empty'],
    ['hourly', 'vocabulary_value_unknown', '"hourly" is not a schedule'],
    ['weekly caturday 08:00', 'vocabulary_value_unknown', '"caturday" is not a day'],
    ['weekly 08:00', 'parameter_invalid', 'weekly needs a day'],
    ['weekly', 'parameter_invalid', 'weekly needs a day'],
    ['weekly friday', 'parameter_invalid', 'weekly needs a local time'],
    ['daily', 'parameter_invalid', 'daily needs a local time'],
    ['daily 24:00', 'parameter_invalid', '"24:00" is not a time'],
    ['daily 8', 'parameter_invalid', '"8" is not a time'],
    ['daily monday 08:00', 'parameter_invalid', 'a day applies to a weekly schedule only'],
    ['daily 08:00 09:00', 'parameter_invalid', 'daily takes one time'],
    ['immediate now', 'parameter_invalid', 'immediate takes nothing after it'],
    ['weekly friday 08:00 sharp', 'parameter_invalid', 'weekly takes a day and one time'],
  ])('%j is refused (%s)', (given, code, why) => {
    let err: unknown;
    try {
      parseSchedule(given);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ApiError);
    expect(err).toMatchObject({ code, field: 'schedule' });
    expect((err as ApiError).detail).toContain(why);
    expect((err as ApiError).detail).toContain('immediate | daily HH:MM | weekly <monday..sunday> HH:MM');
  });
});
