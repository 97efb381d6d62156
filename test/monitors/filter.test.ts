// A list item's filter as monitors read it (store/monitors/filter.ts): kind, type and status;
// codes compared in any case; a key not defined, or a value of the wrong shape, constrains nothing
// and is named by filterProblems.
import { expect, test } from 'vitest';
import { filterProblems, lawPasses, readFilter, recordPasses } from '../../store/monitors/filter.ts';

const permit = { kind: 'permit', type: 'BLDG-RES-ADD', status: 'ISSUED' };
const application = { kind: 'application', type: 'BLDG-COM-NEW', status: 'UNDER REVIEW' };
const kase = { kind: 'case', type: 'VAR', status: 'DECIDED' };

test('no filter, or an empty one, passes everything', () => {
  for (const f of [null, undefined, {}]) {
    const r = readFilter(f);
    expect([permit, application, kase].every((x) => recordPasses(r, x))).toBe(true);
    expect(lawPasses(r)).toBe(true);
    expect(filterProblems(f)).toEqual([]);
  }
});

test('kind: permit covers applications; law is a kind of its own; one string is one value', () => {
  const permits = readFilter({ kind: ['permit'] });
  expect([recordPasses(permits, permit), recordPasses(permits, application), recordPasses(permits, kase), lawPasses(permits)]).toEqual([true, true, false, false]);
  const cases = readFilter({ kind: 'case' });
  expect([recordPasses(cases, permit), recordPasses(cases, kase), lawPasses(cases)]).toEqual([false, true, false]);
  expect(lawPasses(readFilter({ kind: ['law', 'case'] }))).toBe(true);
});

test('type and status: the codes as the feed prints them, in any case; records without one do not pass', () => {
  const f = readFilter({ type: ['bldg-res-add', 'VAR'], status: [' issued ', 'decided'] });
  expect([recordPasses(f, permit), recordPasses(f, kase), recordPasses(f, application)]).toEqual([true, true, false]);
  expect(recordPasses(f, { kind: 'permit', type: null, status: 'ISSUED' })).toBe(false);
  // type and status say nothing about the law
  expect(lawPasses(f)).toBe(true);
});

test('an unknown key or a malformed value constrains nothing, and is named', () => {
  const raw = { kinds: ['case'], type: 5, status: ['ISSUED'], kind: ['permits'] };
  expect(filterProblems(raw).map((p) => p.key).sort()).toEqual(['kind', 'kinds', 'type']);
  const f = readFilter(raw);
  expect(f.kind).toBeNull();
  expect(f.type).toBeNull();
  expect(recordPasses(f, permit)).toBe(true);
  expect(recordPasses(f, kase)).toBe(false);
  expect(filterProblems([1])).toEqual([{ key: '', detail: 'a filter is an object' }]);
});
