// District codes written differently in different places fold to one key; reconciling the codes
// of the map, a list and the text names what they share and what only one names.
import { expect, test } from 'vitest';
import { codeKey, familyOf, reconcileCodes } from '../../ingest/district-codes.ts';

test('the forms of one code share a key; different codes do not', () => {
  for (const form of ['RS-1', 'RS1', 'RS 1', 'R-S-1', 'rs–1', ' RS  1 ']) expect(codeKey(form)).toBe('RS1');
  expect(codeKey('S&O')).toBe(codeKey('S & O'));
  expect(codeKey('S &O')).toBe('S&O');
  expect(codeKey('RT-3.5')).toBe('RT3.5');
  expect(codeKey('RT-3.5')).not.toBe(codeKey('RT-3'));
  expect(codeKey('PD 991')).toBe('PD991');
  expect(codeKey('RM 5')).not.toBe(codeKey('RM 5.5'));
});

test('reconciling the map, the list and the text', () => {
  const r = reconcileCodes([
    { name: 'map', codes: ['RS-1', 'RS-2', 'B1-1', 'PD 991', 'RS-1'] },
    { name: 'list', codes: ['RS1', 'RS2', 'C-1'] },
    { name: 'text', codes: ['RS 1', 'RS 2', 'B1', 'C-1'] },
  ]);
  expect(r.codes.find((c) => c.key === 'RS1')).toEqual({ key: 'RS1', code: 'RS-1', forms: { map: ['RS-1'], list: ['RS1'], text: ['RS 1'] } });
  expect(r.only).toEqual({ map: ['B1-1', 'PD 991'], list: [], text: ['B1'] });
  expect(r.ambiguous).toEqual([]);
});

test('one source writing two codes under one key is reported, not merged silently', () => {
  const r = reconcileCodes([{ name: 'map', codes: ['B1-1', 'B11'] }]);
  expect(r.ambiguous).toEqual(['B11']);
});

test('a mapped code belongs to the family the text names', () => {
  expect(familyOf('B1-3', ['B1', 'B2', 'RS-3'])).toBe('B1');
  expect(familyOf('RS-3', ['RS', 'RS 3'])).toBeNull(); // the text names RS-3 itself
  expect(familyOf('RS-3', ['RS'])).toBe('RS');
  expect(familyOf('B12', ['B1'])).toBeNull(); // not at a separator
  expect(familyOf('PD 991', ['PD'])).toBe('PD');
});
