// Reading place text into locality, state and ZIP code by structure (core/place-text.ts).
import { describe, expect, test } from 'vitest';
import { foldName, readPlaceText } from '../../core/place-text.ts';

describe('readPlaceText', () => {
  test('"City, ST ZIP" and its shorter forms', () => {
    expect(readPlaceText('Cambridge, MA 02139-4307')).toMatchObject({ locality: 'CAMBRIDGE', street: null, state: 'MA', stateApart: true, zip: '02139' });
    expect(readPlaceText('Chicago, Illinois, USA')).toMatchObject({ locality: 'CHICAGO', state: 'IL', stateApart: true, zip: null });
    expect(readPlaceText('02139')).toMatchObject({ locality: null, state: null, zip: '02139' });
    expect(readPlaceText('MA 02139')).toMatchObject({ locality: null, state: 'MA', zip: '02139' });
    expect(readPlaceText('Harvard Sq, Cambridge, MA')).toMatchObject({ locality: 'CAMBRIDGE', street: 'HARVARD SQ', state: 'MA' });
  });

  test('a state as the last word is read tentatively, keeping the whole to read again', () => {
    expect(readPlaceText('Cambridge MA')).toMatchObject({ locality: 'CAMBRIDGE', state: 'MA', stateApart: false, whole: 'CAMBRIDGE MA' });
    expect(readPlaceText('Pine Ct')).toMatchObject({ locality: 'PINE', state: 'CT', stateApart: false, whole: 'PINE CT' });
    expect(readPlaceText('Kansas City, North Dakota')).toMatchObject({ locality: 'KANSAS CITY', state: 'ND', stateApart: true });
    // one word alone is left as a locality: whether it is a place, a state or a street is the store's question
    expect(readPlaceText('MA')).toMatchObject({ locality: 'MA', state: null });
    expect(readPlaceText('New York')).toMatchObject({ locality: 'NEW YORK', state: null });
  });

  test('names fold alike however punctuated', () => {
    expect(foldName("Coeur d'Alene")).toBe('COEUR DALENE');
    expect(foldName('St. Louis--City')).toBe('ST LOUIS CITY');
  });
});
