import { describe, expect, test } from 'vitest';
import { compose, type Stated } from '../../store/place/compose.ts';

const said = (code: string, kind: 'base' | 'overlay', level: string, status = 'stated', rank: number | null = null): Stated => ({
  district_id: `d_${code}`,
  district_code: code,
  kind,
  precedence_rank: rank,
  value: { level, status },
  same: level,
});

describe('composing a cell across the districts at a place', () => {
  test('an overlay that states the cell supersedes the base', () => {
    const [c] = compose(new Map([['use', [said('RS-3', 'base', 'by_right'), said('OV', 'overlay', 'prohibited')]]]));
    expect(c.binding?.district_code).toBe('OV');
    expect(c.losing.map((l) => l.statement.district_code)).toEqual(['RS-3']);
  });

  test('a silent cell (withheld) never supersedes a stated one', () => {
    const [c] = compose(new Map([['use', [said('RS-3', 'base', 'by_right'), said('OV', 'overlay', 'unknown', 'withheld')]]]));
    expect(c.binding?.district_code).toBe('RS-3');
    expect(c.status).toBe('stated');
    const [two] = compose(new Map([['use', [said('A', 'base', 'unknown', 'withheld'), said('A', 'base', 'conditional_use')]]]));
    expect(two.binding?.value.level).toBe('conditional_use');
    expect(two.status).toBe('stated');
  });

  test('a cell every district leaves silent is answered silent, not dropped', () => {
    const [c] = compose(new Map([['use', [said('RS-3', 'base', 'unknown', 'withheld')]]]));
    expect(c.binding?.value).toEqual({ level: 'unknown', status: 'withheld' });
  });

  test('two overlays that disagree with no precedence leave the cell conflicting', () => {
    const [c] = compose(new Map([['use', [said('A', 'overlay', 'by_right'), said('B', 'overlay', 'prohibited')]]]));
    expect(c.binding).toBeNull();
    expect(c.status).toBe('conflicting');
  });
});
