// ordinance.adopted of /v1/zoning follows the ordinances held: the synthetic town ingested as v1,
// then v2 (test/fixtures/synthetic-town/EXPECTED.md), whose amendments 2026-07 (R-1's front
// setback, effective 2026-05-01) and 2026-08 (R-2 to VC on the map, effective 2026-05-15) were
// adopted 2026-04-14. Before v2 was known, or as of a date before they took effect, no adopting
// ordinance is known and the date is withheld with the reason.
import { afterAll, beforeAll, expect, test } from 'vitest';
import type { RunningServer } from '../../api/server.ts';
import { type PipelineHarness, pipelineHarness, syntheticManifests } from '../helpers/pipeline.ts';
import { call, createTestOrg, startTestServer } from '../helpers/server.ts';
import { type SyntheticSite, startSyntheticSite } from '../helpers/synthetic-site.ts';

let site: SyntheticSite;
let h: PipelineHarness;
let server: RunningServer;
let key: string;

beforeAll(async () => {
  site = await startSyntheticSite({ version: 1 });
  h = await pipelineHarness('zoning_adoption', { manifestDir: await syntheticManifests(site.url) });
  await h.ingest(['millbrook-ma'], { now: new Date('2026-03-05T12:00:00Z') });
  site.setVersion(2);
  await h.ingest(['millbrook-ma'], { now: new Date('2026-04-21T12:00:00Z') });
  server = await startTestServer({ DATABASE_URL: h.url, RATE_LIMIT_PER_SECOND: '100000' });
  key = (await createTestOrg(server, 10_000)).apiKey;
}, 180_000);
afterAll(async () => {
  await server?.close();
  await h?.close();
  await site?.close();
});

type Zoning = Record<string, any>;
async function legend(query: string): Promise<Record<string, Zoning>> {
  const r = await call(server, 'GET', `/v1/zoning?jurisdiction=millbrook-ma&${query}`, { key });
  expect(r.status).toBe(200);
  return Object.fromEntries(r.body.data.map((z: Zoning) => [z.code, z]));
}

test('each classification names the adopted ordinance that last changed it, with its adoption date and citation', async () => {
  const z = await legend('as_of=2026-06-01');
  expect(z['R-1'].ordinance).toMatchObject({ adopted: '2026-04-14', adopted_by: { number: '2026-07', effective: '2026-05-01' }, withheld: [] });
  expect(z['R-1'].ordinance.adopted_by.citation.passage).toContain('Front Setback in the Residence A (R-1) District');
  for (const code of ['R-2', 'VC']) expect(z[code].ordinance).toMatchObject({ adopted: '2026-04-14', adopted_by: { number: '2026-08', effective: '2026-05-15' } });
  // I-1: no ordinance held is linked to it
  expect(z['I-1'].ordinance).toMatchObject({ adopted: null, adopted_by: null });
  expect(z['I-1'].ordinance.withheld).toEqual([{ field: 'adopted', reason: expect.stringMatching(/^None of the \d+ ordinances held for Millbrook is known to have adopted or amended I-1 as in force on 2026-06-01/) }]);
});

test('the date follows valid time and knowledge time', async () => {
  // before 2026-07 took effect, R-1 in force was not yet the amended one
  const before = await legend('as_of=2026-04-30');
  expect(before['R-1'].ordinance).toMatchObject({ adopted: null, adopted_by: null });
  expect(before['VC'].ordinance.adopted).toBeNull();
  // as known before v2 was read, no amendment was linked to any district
  const known = await legend('as_of=2026-06-01&known_as_of=2026-03-20');
  for (const code of ['R-1', 'R-2', 'VC']) expect(known[code].ordinance.adopted, code).toBeNull();
});

test('use and result narrow the list before it is paged', async () => {
  const r = await call(server, 'GET', '/v1/zoning?jurisdiction=millbrook-ma&use=energy.battery_storage&result=conditional&size=1&total=true', { key });
  expect(r.body).toMatchObject({ has_more: false, total: { value: 1, relation: 'eq' } });
  expect(r.body.data.map((z: Zoning) => z.code)).toEqual(['I-1']);
  const all = await call(server, 'GET', '/v1/zoning?jurisdiction=millbrook-ma&size=1&total=true', { key });
  expect(all.body).toMatchObject({ has_more: true, total: { value: 4, relation: 'eq' } });
});
