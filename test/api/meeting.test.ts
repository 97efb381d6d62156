// GET /meeting over the synthetic town (EXPECTED.md, "Meetings"): the meeting feed loaded through
// the pipeline, agendas and decisions as printed, the cases and ordinances they name linked to the
// records held, filters, paging, citations verbatim, and coverage naming the jurisdictions in scope
// whose meetings are not held.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { RunningServer } from '../../api/server.ts';
import { type PipelineHarness, pipelineHarness, syntheticManifests } from '../helpers/pipeline.ts';
import { call, createTestOrg, startTestServer } from '../helpers/server.ts';
import { type SyntheticSite, siteFile, startSyntheticSite } from '../helpers/synthetic-site.ts';

let site: SyntheticSite;
let h: PipelineHarness;
let server: RunningServer;
let key: string;

const get = (path: string) => call(server, 'GET', path, { key });
const keys = (items: Array<{ key: string }>) => items.map((i) => i.key);
const J = 'jurisdiction=millbrook-ma';

beforeAll(async () => {
  site = await startSyntheticSite({ version: 1 });
  h = await pipelineHarness('meetings', { manifestDir: await syntheticManifests(site.url) });
  const [out] = await h.ingest(['millbrook-ma'], { now: new Date('2026-03-05T12:00:00Z') });
  expect(out.sources.find((s) => s.source === 'meetings')).toMatchObject({ state: 'loaded', counts: { meetings: 7, rejected: 0 }, issues: [] });
  server = await startTestServer({ DATABASE_URL: h.url, RATE_LIMIT_PER_SECOND: '100000' });
  key = (await createTestOrg(server, 100_000)).apiKey;
}, 180_000);
afterAll(async () => {
  await server?.close();
  await h?.close();
  await site?.close();
});

describe('GET /meeting', () => {
  test('the seven meetings, latest first, each cited to its feed record verbatim', async () => {
    const r = await get(`/meeting?${J}&total=true`);
    expect(r.status).toBe(200);
    const { rows } = await h.pool.query(`SELECT meeting_key FROM meeting WHERE upper_inf(known) ORDER BY meets_on DESC, id DESC`);
    expect(keys(r.body.item)).toEqual(rows.map((x) => x.meeting_key));
    expect(r.body.page.total).toEqual({ value: 7, relation: 'eq' });
    const feed = siteFile(1, '/meetings/feed.json')!.bytes.toString('utf8');
    for (const m of r.body.item) {
      expect(feed).toContain(m.citation.quote);
      expect(JSON.parse(m.citation.quote).meeting_id).toBe(m.key);
      const t = await h.pool.query('SELECT text FROM version_text WHERE version_id = $1', [m.citation.version]);
      expect(t.rows[0].text.slice(m.citation.locator.start, m.citation.locator.end)).toBe(m.citation.quote);
    }
    expect(r.body.coverage).toMatchObject({ layer: ['meeting'], in_scope: 1, held: 1 });
  });

  test('the ZBA decision on ZBA-2025-04: granted 3-0, linked to the case held; an ordinance adopted by the council linked too', async () => {
    const r = await get(`/meeting?${J}&case=ZBA-2025-04&sort=date`);
    expect(keys(r.body.item)).toEqual(['ZBA-2025-05-13', 'ZBA-2025-05-20']);
    const [hearing, decided] = r.body.item;
    expect(hearing.decision[0]).toMatchObject({ outcome: { code: 'HEARING_CLOSED' }, vote: null });
    const cas = (await get(`/case?${J}&number=ZBA-2025-04`)).body.item[0];
    expect(decided).toMatchObject({
      body: { name: 'Zoning Board of Appeals', type: 'zoning_board' },
      date: '2025-05-20',
      time: '19:30',
      timezone: 'America/New_York',
      status: 'held',
      location: 'Town Hall, Room 2',
      agenda: [{ item: '1', case: { number: 'ZBA-2025-04', id: cas.id, href: `/v1/case/${cas.id}` }, ordinance: null }],
      decision: [{ outcome: { code: 'GRANTED', description: 'Granted with conditions' }, vote: { yes: 3, no: 0, abstain: 0, absent: 0 }, case: { id: cas.id } }],
      document: { minutes_url: `${site.url}/meetings/ZBA-2025-05-20/minutes.pdf` },
    });
    // the case's own decision date is the meeting's
    expect(cas.decision.decided_on).toBe(decided.date);
    const council = (await get(`/meeting?${J}&ordinance=2024-06`)).body.item[0];
    const { rows } = await h.pool.query(`SELECT id FROM ordinance WHERE number = '2024-06' LIMIT 1`);
    expect(council.decision[0]).toMatchObject({ outcome: { code: 'ADOPTED' }, vote: { yes: 7, no: 2 }, ordinance: { number: '2024-06', id: rows[0].id, href: `/ordinance/${rows[0].id}` } });
  });

  test('body, status, dates and the decided filter narrow the list', async () => {
    expect(keys((await get(`/meeting?${J}&body=planning_board&sort=date`)).body.item)).toEqual(['PB-2026-01-27', 'PB-2026-02-24']);
    expect(keys((await get(`/meeting?${J}&status=scheduled&sort=date`)).body.item)).toEqual(['TC-2026-02-10', 'PB-2026-02-24']);
    expect(keys((await get(`/meeting?${J}&date[gte]=2025-06-01&date[lte]=2026-01-31&sort=date`)).body.item)).toEqual(['ZBA-2025-12-02', 'PB-2026-01-27']);
    const undecided = await get(`/meeting?${J}&filter[decided][eq]=false`);
    expect(keys(undecided.body.item)).toEqual(['PB-2026-02-24', 'TC-2026-02-10']);
    expect(undecided.body.item.every((m: { decision: unknown[]; filter_outcome: string }) => m.decision.length === 0 && m.filter_outcome === 'match')).toBe(true);
  });

  test('pages of three walk every meeting once', async () => {
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const r = await get(`/meeting?${J}&size=3${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
      seen.push(...keys(r.body.item));
      cursor = r.body.page.next_cursor;
    } while (cursor);
    expect(seen).toEqual(keys((await get(`/meeting?${J}&size=200`)).body.item));
    expect(new Set(seen).size).toBe(7);
  });

  test('coverage names where no meeting is held: the state and the county in scope, and a state scope of none', async () => {
    const r = await get('/meeting?state=MA&size=200');
    expect(r.body.item).toHaveLength(7);
    expect(r.body.coverage).toMatchObject({ in_scope: 3, held: 1, not_held: { count: 2 } });
    expect(r.body.layer.map((l: { jurisdiction: { slug: string }; layer: string; held: boolean }) => [l.jurisdiction.slug, l.layer, l.held]).sort()).toEqual([
      ['massachusetts', 'meeting', false],
      ['middlesex-county-ma', 'meeting', false],
    ]);
    const none = await get('/meeting?jurisdiction=middlesex-county-ma');
    expect(none.status).toBe(200);
    expect(none.body.item).toEqual([]);
    expect(none.body.layer[0].reason).toMatch(/no public source of the meeting layer of Middlesex County is held/);
    const bad = await get(`/meeting?${J}&body=school_committee`);
    expect([bad.status, bad.body.detail.error.code, bad.body.detail.error.field]).toEqual([422, 'vocabulary_value_unknown', 'body']);
  });
});
