import { describe, expect, test } from 'vitest';
import { addressKeys, fullAddress, normalizeAddress, normalizeStreet } from '../../../core/address.ts';

describe('address normalization for matching', () => {
  test.each([
    ['221 Monsignor O\'Brien Highway', '221 MONSIGNOR OBRIEN HWY'],
    ['221 MONSIGNOR OBRIEN HWY', '221 MONSIGNOR OBRIEN HWY'],
    ['12 Main Street', '12 MAIN ST'],
    ['12 Main St.', '12 MAIN ST'],
    ['4 Canal Park', '4 CANAL PARK'],
    ['4 CANAL PK', '4 CANAL PARK'],
    ['77 Massachusetts Avenue', '77 MASSACHUSETTS AVE'],
    ['9 Bellis Circle', '9 BELLIS CIR'],
    ['12 North Main St', '12 N MAIN ST'],
    ['5 West St', '5 WEST ST'],
    ['10 Broadway', '10 BROADWAY'],
    ['3 Saint James Ave', '3 ST JAMES AVE'],
    ['100 First Street', '100 1ST ST'],
    ['12A Elm Terrace', '12A ELM TER'],
    // Cambridge's roll writes a lettered number with a hyphen: one number, not a range
    ['126-C OXFORD ST', '126C OXFORD ST'],
    ['126C Oxford Street, Cambridge, MA', '126C OXFORD ST'],
  ])('%s → %s', (raw, key) => {
    expect(normalizeAddress(raw).normalized).toBe(key);
  });

  test('ranges name each number; keys expand same-parity ranges of up to 20', () => {
    expect(normalizeAddress('4-6 Kirkland Pl')).toMatchObject({ numbers: ['4', '6'], street: 'KIRKLAND PL', keys: ['4 KIRKLAND PL', '6 KIRKLAND PL'] });
    expect(addressKeys('187-197 MONSIGNOR OBRIEN HWY')).toHaveLength(6);
    expect(addressKeys('14-16 1/2 MAGNOLIA AVE')).toEqual(['14 MAGNOLIA AVE', '16 1/2 MAGNOLIA AVE']);
    expect(addressKeys('1-99 MAIN ST')).toEqual(['1 MAIN ST', '99 MAIN ST']);
  });

  test('unit designators are split off', () => {
    expect(normalizeAddress('4 CANAL PK #C1')).toMatchObject({ normalized: '4 CANAL PARK', unit: 'C1' });
    expect(normalizeAddress('111  CLIFTON ST  #1')).toMatchObject({ normalized: '111 CLIFTON ST', unit: '1' });
    expect(normalizeAddress('12 Main Street, Apt 4B, Cambridge MA 02139')).toMatchObject({ normalized: '12 MAIN ST', unit: '4B' });
    expect(normalizeAddress('77 MASSACHUSETTS AVE STE 100').unit).toBe('100');
    expect(normalizeAddress('3 Saint James Ave Unit 2').unit).toBe('2');
    expect(normalizeAddress('4-6 Kirkland Pl', '4').unit).toBe('4');
  });

  test('street names alone', () => {
    expect(normalizeStreet('Massachusetts Avenue')).toBe('MASSACHUSETTS AVE');
    expect(normalizeStreet('Main Street North')).toBe('MAIN ST N');
    expect(normalizeStreet('North Street')).toBe('NORTH ST');
  });

  test('full form keeps the printed spelling', () => {
    expect(fullAddress('4-6 Kirkland Pl', { unit: '4', locality: 'Cambridge', region: 'MA', postal_code: '02138' })).toEqual({
      raw: '4-6 Kirkland Pl #4, Cambridge MA 02138',
      recipient: null,
      street_line_1: '4-6 Kirkland Pl',
      street_line_2: null,
      street_number: '4-6',
      street_name: 'Kirkland Pl',
      unit: '4',
      locality: 'Cambridge',
      region: 'MA',
      postal_code: '02138',
      point: null,
    });
    expect(fullAddress('4 CANAL PK #C1')).toMatchObject({ street_line_1: '4 CANAL PK', unit: 'C1', street_name: 'CANAL PK' });
    expect(fullAddress('PO BOX 118')).toMatchObject({ street_line_1: 'PO BOX 118', street_number: null });
  });
});
