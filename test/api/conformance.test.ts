// Conformance: the judgement rule by rule (pure), and the routes over real Cambridge data, where
// no code text is held and so every check is indeterminate, never guessed.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { assess, convert } from '../../api/place/conformance.ts';
import type { RunningServer } from '../../api/server.ts';
import { call, cambridgeApi } from '../helpers/server.ts';

const cite = { id: 'cit_x', quote: 'q' };
const rule = {
  share: [
    {
      district: { code: 'R-1' },
      control: [
        { control_type: 'dimensional.setback_front', building_type: null, value: { min: 25, max: null, unit: 'ft' }, value_text: '25 ft', status: 'stated', citation: cite, district: 'R-1' },
        { control_type: 'dimensional.height', building_type: null, value: { min: null, max: 35, unit: 'ft' }, value_text: '35 ft', status: 'stated', citation: cite, district: 'R-1' },
        { control_type: 'dimensional.coverage', building_type: null, value: { min: null, max: null, unit: null }, value_text: 'Per Principal Building', status: 'stated', citation: cite, district: 'R-1' },
      ],
      permission: [
        { use: { slug: 'residential.dwelling.single_family' }, level: 'by_right', symbol: 'P', citation: cite },
        { use: { slug: 'commercial.retail' }, level: 'conditional_use', symbol: 'SP', citation: cite },
        { use: { slug: 'industrial' }, level: 'prohibited', symbol: 'N', citation: cite },
      ],
    },
  ],
  unlisted_uses: { result: 'prohibited', citation: cite },
  moratorium: [{ title: 'Battery storage', uses: ['utility.battery_storage'], effective_through: '2027-01-01', citation: cite }],
};

describe('judgement', () => {
  test('units convert only between the same measure', () => {
    expect(convert(10, 'm', 'ft')).toBeCloseTo(32.808, 2);
    expect(convert(1, 'acres', 'sq_ft')).toBe(43_560);
    expect(convert(3, 'stories', 'ft')).toBeNull();
  });

  test('uses: by right, with a process, prohibited, unlisted (the code’s rule), paused by a moratorium', () => {
    const r = assess(rule, { uses: ['residential.dwelling.single_family', 'commercial.retail.grocery', 'industrial', 'agriculture.kennel', 'utility.battery_storage'], buildingType: null, dimensions: {} });
    expect(r.check.map((c) => c.outcome)).toEqual(['allowed', 'allowed_with_process', 'not_allowed', 'not_allowed', 'not_allowed']);
    expect(r.check[3].reason).toMatch(/unlisted/);
    expect(r.check[4].reason).toMatch(/moratorium/);
    expect(r.outcome).toBe('not_allowed');
  });

  test('dimensions: complies, violates, indeterminate when no number or other units', () => {
    const r = assess(rule, {
      uses: [],
      buildingType: null,
      dimensions: { 'dimensional.setback_front': { value: 8, unit: 'm' }, 'dimensional.height': { value: 40, unit: 'ft' }, 'dimensional.coverage': { value: 30, unit: 'percent' }, 'dimensional.lot_area': { value: 5000, unit: 'sq_ft' } },
    });
    expect(r.check.map((c) => [c.control_type, c.outcome])).toEqual([
      ['dimensional.setback_front', 'complies'],
      ['dimensional.height', 'violates'],
      ['dimensional.coverage', 'indeterminate'],
      ['dimensional.lot_area', 'indeterminate'],
    ]);
    expect(r.outcome).toBe('not_allowed');
    expect(assess(rule, { uses: ['residential.dwelling.single_family'], buildingType: null, dimensions: { 'dimensional.height': { value: 30, unit: 'ft' } } }).outcome).toBe('allowed');
  });
});

describe('routes', () => {
  let close = async () => {};
  let server: RunningServer;
  let key: string;
  beforeAll(async () => {
    ({ server, key, close } = await cambridgeApi(100));
  }, 120_000);
  afterAll(async () => {
    await close();
  });

  test('without the code text, a proposal is indeterminate and says why', async () => {
    const r = await call(server, 'GET', '/conformance?point=42.3629,-71.1113&proposed[dimensional.setback_front]=10ft', { key });
    expect(r.status).toBe(200);
    expect(r.body.item.outcome).toBe('indeterminate');
    expect(r.body.item.check[0]).toMatchObject({ kind: 'dimension', outcome: 'indeterminate', reason: expect.stringMatching(/no control/) });
    expect(r.body.item.not_consulted.map((n: { layer: string }) => n.layer)).toContain('zoning_text');
    const post = await call(server, 'POST', '/place/proposal', { key, body: { location: { point: '42.3629,-71.1113' }, dimension: { 'dimensional.setback_front': { value: 10, unit: 'ft' } } } });
    expect(post.body.item.outcome).toBe('indeterminate');
    const bad = await call(server, 'GET', '/conformance?point=42.3629,-71.1113&proposed[dimensional.height]=tall', { key });
    expect(bad.body.detail.error).toMatchObject({ code: 'parameter_invalid', field: 'proposed[dimensional.height]' });
  });
});
