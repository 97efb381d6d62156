// The reader of the bodies a code names (ingest/ordinance/bodies.ts), on sections written the
// ways codes print them: names after "the", complements, possessives, a page's lines running on,
// a jurisdiction's name or type before a name, and sentences around abbreviations.
import { expect, test } from 'vitest';
import { namedBodies, sentenceAt } from '../../ingest/ordinance/bodies.ts';

const s = (ref: string, heading: string | null, body: string) => ({ ref, heading, body });
const TOWN = { id: 'jur_town', name: 'Alder', type: 'town' };
const STATE = { id: 'jur_state', name: 'Vermont', type: 'state' };

test('established, headed and named bodies, each cited by its sentence', () => {
  const found = namedBodies(
    [
      s('1.1', 'Purpose', 'The Select Board may amend this bylaw. Appeals go to the Zoning Board of Appeals; see M.G.L. c. 40A.'),
      s('9.1', 'Zoning Board of Appeals', '1. a. Establishment i. The Zoning board of appeals is established under M.G.L. Chapter 40A, Section 12. ii. The Select Board appoints its members.'),
      s('9.2', 'Conservation Commission', 'a. The Conservation Commission reviews wetland permits.'),
      s('9.3', 'Other', 'Permits of the Vermont Natural Resources Board apply. The Board shall meet. The board of health is consulted.'),
    ],
    [TOWN, STATE],
  );
  const by = new Map(found.map((b) => [b.name, b]));
  expect(found.map((b) => b.name)).toEqual(['Zoning Board of Appeals', 'Conservation Commission', 'Vermont Natural Resources Board', 'Select Board']);
  expect(by.get('Zoning Board of Appeals')).toMatchObject({ basis: 'established', jurisdiction: TOWN.id, mention_count: 2, section_count: 2, quote: 'The Zoning board of appeals is established under M.G.L. Chapter 40A, Section 12.' });
  expect(by.get('Zoning Board of Appeals')!.section.ref).toBe('9.1');
  expect(by.get('Conservation Commission')).toMatchObject({ basis: 'section', jurisdiction: TOWN.id, quote: 'The Conservation Commission reviews wetland permits.' });
  expect(by.get('Vermont Natural Resources Board')).toMatchObject({ basis: 'name', jurisdiction: STATE.id });
  // named, but nothing in the text says whose
  expect(by.get('Select Board')).toMatchObject({ basis: null, jurisdiction: null, mention_count: 2, quote: 'The Select Board may amend this bylaw.' });
});

test('one body under several printings; names given with another, or with a date, are not names', () => {
  const found = namedBodies(
    [
      s('1', null, 'Heard by the Planning Board. Approved by the Planning Board. Sent to the Alder Planning Board and the Planning Board of Appeals Review.'),
      s('2', null, 'Adopted by the Town Council on March 3, 2020, and by the Mayor and Town Council. Heard by the Town Council. The Historic District Commission’s rules and the Historic District Commission apply; so do the Veteran’s Council findings.'),
      s('3', null, 'Filed with the Board of Appeals and with the Zoning Board of Appeals. Then the Zoning Board of Appeals and Planning Board meet.'),
    ],
    [TOWN],
  );
  const names = found.map((b) => b.name).sort();
  expect(names).toEqual(['Historic District Commission', 'Planning Board', 'Town Council', 'Veteran’s Council', 'Zoning Board of Appeals']);
  const by = new Map(found.map((b) => [b.name, b]));
  expect(by.get('Planning Board')!.also_named).toEqual(['Alder Planning Board']);
  expect(by.get('Planning Board')!.jurisdiction).toBe(TOWN.id);
  expect(by.get('Town Council')).toMatchObject({ also_named: [], jurisdiction: TOWN.id, basis: 'name' });
  expect(by.get('Zoning Board of Appeals')!.also_named).toEqual(['Board of Appeals']);
  expect(by.get('Historic District Commission')!.mention_count).toBe(2);
});

test("a page's lines run on: a name across a line break, and the sentence quoted whole", () => {
  const body = 'Establishment – References in this Ordinance to the Planning\nBoard shall mean the agency of the\nCity established under M.G.L. c. 41.\nSigns\nThe Planning Board shall act.';
  const [b] = namedBodies([s('II.7', 'Signs and Boards', body)]);
  expect(b).toMatchObject({ name: 'Planning Board', mention_count: 2, quote: 'Establishment – References in this Ordinance to the Planning\nBoard shall mean the agency of the\nCity established under M.G.L. c. 41.' });
  expect(body).toContain(b.quote);
});

test('the sentence around a mention: list markers dropped, abbreviations kept, long ones cut at words', () => {
  const text = '1. a. Membership i. The Mayor appoints the members, per Sec. 7-220 and M.G.L. Ch. 41. ii. Next.';
  expect(sentenceAt(text, text.indexOf('Mayor'), 5)).toBe('The Mayor appoints the members, per Sec. 7-220 and M.G.L. Ch. 41.');
  const long = `${'word '.repeat(200)}the Board of Health ${'more '.repeat(200)}end.`;
  const q = sentenceAt(long, long.indexOf('Board'), 15);
  expect(long).toContain(q);
  expect(q).toContain('the Board of Health');
  expect(q.length).toBeLessThan(420);
  expect(q).toMatch(/^\S.*\S$/s);
});

test('initials inside a name', () => {
  const [b] = namedBodies([s('1', null, 'Playgrounds follow the U.S. Consumer Product Safety Commission handbook.')]);
  expect(b).toMatchObject({ name: 'U.S. Consumer Product Safety Commission', quote: 'Playgrounds follow the U.S. Consumer Product Safety Commission handbook.' });
});
