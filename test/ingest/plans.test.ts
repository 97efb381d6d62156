// The plans a zoning code names, read from section texts alone (ingest/ordinance/plans.ts).
import { describe, expect, test } from 'vitest';
import { plansNamed, type SectionText } from '../../ingest/ordinance/plans.ts';

const s = (ref: string, heading: string | null, body: string): SectionText => ({ ref, heading, body, citation_id: `cit_${ref}` });

describe('plans named by a code', () => {
  test('a master plan the code must be consistent with, adopted by the Planning Board on a stated date', () => {
    const plans = plansNamed([
      s('1.2', 'Purpose', '1. a. To implement the Master Plan of the Town of Exampleton. b. To protect open space.'),
      s('1.3', 'Consistency', 'All amendments to this Ordinance shall be consistent with the Town Master Plan, adopted by the Planning Board on March 3, 2015.'),
      s('4.1', 'Site Plan Review', 'Development shall be in accordance with the approved Site Plan. Each Master Plan Special Permit is in accordance with the Master Plan Standards.'),
    ]);
    // the town's own master plan counts; a development's (Master Plan Special Permit, Standards) does not
    expect(plans.map((p) => p.name)).toEqual(['Master Plan', 'Town Master Plan']);
    const p = plans[1];
    expect(p.consistency).toEqual([{ section_ref: '1.3', citation_id: 'cit_1.3', text: 'All amendments to this Ordinance shall be consistent with the Town Master Plan, adopted by the Planning Board on March 3, 2015.' }]);
    expect(p.adopted).toMatchObject({ date: 'March 3, 2015', passage: { section_ref: '1.3' } });
    expect(p.adopted_by.map((b) => b.body)).toEqual(['Planning Board']);
  });

  test('a comprehensive plan in lower case, a coined name, and an alias', () => {
    const plans = plansNamed([
      s('1', null, 'To implement the objectives of the comprehensive plan of the City.'),
      s('2', null, 'To implement recommendations of CityVision for housing.'),
      s('3', null, 'To implement the Harbor District Plan (HD Plan). Buildings must show consistency with the HD Plan.'),
      s('9', 'Definitions', 'Harbor District Plan\n\nThe following documents constitute the Harbor District Plan: the 2004 study.'),
    ]);
    expect(plans.map((p) => p.name).sort()).toEqual(['CityVision', 'Comprehensive Plan', 'Harbor District Plan']);
    const hd = plans.find((p) => p.name === 'Harbor District Plan')!;
    expect(hd.alias).toEqual(['HD Plan']);
    expect(hd.mention.map((m) => m.text)).toEqual([
      'To implement the Harbor District Plan (HD Plan).',
      'Buildings must show consistency with the HD Plan.',
      'The following documents constitute the Harbor District Plan: the 2004 study.',
    ]);
    expect(hd.definition.map((m) => m.section_ref)).toEqual(['9']);
    expect(hd.consistency.map((m) => m.text)).toEqual(['Buildings must show consistency with the HD Plan.']);
    // no passage states an adoption date: none is given
    expect(hd.adopted).toBeNull();
    expect(plans.find((p) => p.name === 'Comprehensive Plan')!.consistency).toEqual([]);
  });

  test('a code naming only procedural plans names no plan', () => {
    expect(plansNamed([s('5', 'Mobility', 'The applicant must submit a Mobility Management Plan in accordance with § 11.3. A Site Plan is required.')])).toEqual([]);
  });
});

test('an indefinite plan ("pursuant to a Revitalization Plan") and a list item ("Implementation Plan for the Future") name none', () => {
  expect(plansNamed([s('7', null, 'A Land Disposition Agreement pursuant to a Revitalization Plan.\nA Vision and Implementation Plan for the Future, dated October 2000;')])).toEqual([]);
});
