// GET /law and /section over Somerville's real zoning ordinance: a phrase that occurs, ranked, its
// passages cited verbatim (and kept, so /citation/{id} answers them); a regular expression; an
// invalid pattern and a catastrophic one refused as 422 naming q; sections by ref and words.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { RunningServer } from '../../api/server.ts';
import { createPool, type Pool } from '../../store/db.ts';
import { ingestedDatabase } from '../helpers/pipeline.ts';
import { call, createTestOrg, startTestServer } from '../helpers/server.ts';

const CITY = 'jurisdiction=somerville-ma';

let db: { url: string; drop: () => Promise<void> };
let pool: Pool;
let server: RunningServer;
let key: string;

const get = (path: string) => call(server, 'GET', path, { key });

beforeAll(async () => {
  db = await ingestedDatabase('somerville', ['somerville-ma']);
  pool = createPool(db.url, { max: 2 });
  server = await startTestServer({ DATABASE_URL: db.url, RATE_LIMIT_PER_SECOND: '100000' });
  key = (await createTestOrg(server, 100_000)).apiKey;
}, 600_000);
afterAll(async () => {
  await server?.close();
  await pool?.end();
  await db?.drop();
});

type Hit = { id: string; kind: string; ref: string; snippet: string; match: Array<{ start: number; end: number }>; rank: number; citation: Record<string, any> };

/** The citation's quote is the retained version's text at its offsets, and /citation/{id} serves it. */
async function expectCited(c: Record<string, any>) {
  const { rows } = await pool.query('SELECT text FROM version_text WHERE version_id = $1', [c.version]);
  expect(rows[0].text.slice(c.locator.start, c.locator.end)).toBe(c.quote);
  const lines = rows[0].text.slice(0, c.locator.start).split('\n').length;
  expect(c.locator.line).toBe(lines);
  const served = await get(`/citation/${c.id}`);
  expect(served.status).toBe(200);
  expect(served.body.item).toMatchObject({ id: c.id, quote: c.quote, version: c.version });
}

describe('words and phrases', () => {
  test('"site plan approval" is found as a phrase, ranked, each hit citing the matched passage of its body', async () => {
    const r = await get(`/law?${CITY}&q=${encodeURIComponent('"site plan approval"')}&size=20&total=true`);
    expect(r.status).toBe(200);
    const hits: Hit[] = r.body.item;
    expect(hits.length).toBe(20);
    expect(r.body.page.total.value).toBeGreaterThan(20);
    const ranks = hits.map((h) => h.rank);
    expect([...ranks].sort((a, b) => b - a)).toEqual(ranks);
    for (const h of hits) {
      expect(h.kind).toBe('section');
      // the three words stand together in the passage cited (the phrase, not the words anywhere)
      expect(h.citation.quote).toMatch(/site\s+plan\s+approvals?/i);
      expect(h.snippet).toBe(h.citation.quote);
      const words = h.match.map((m) => h.snippet.slice(m.start, m.end).toLowerCase());
      expect(words).toEqual(expect.arrayContaining(['site', 'plan']));
      await expectCited(h.citation);
    }
    // a section found in its body is cited by the passage, not by its heading (only a heading that matches is cited itself)
    const heads = await pool.query('SELECT s.id, s.heading, c.quote FROM section s JOIN citation c ON c.id = s.citation_id WHERE s.id = ANY($1)', [hits.map((h) => h.id)]);
    const inBody = hits.filter((h) => !/site plan approval/i.test(heads.rows.find((x) => x.id === h.id)?.heading ?? ''));
    expect(inBody.length).toBeGreaterThan(10);
    for (const h of inBody) {
      expect(h.citation.quote).not.toBe(heads.rows.find((x) => x.id === h.id)?.quote);
      expect(h.citation.locator.passage).toBe('body');
    }
    expect(r.body.coverage).toMatchObject({ in_scope: 1, held: 1 });
    expect(r.body.coverage.jurisdiction[0].layer.ordinance).toMatchObject({ held: false });
  });

  test('words without a phrase match more sections than the phrase; paging walks the ranked order', async () => {
    const phrase = await get(`/law?${CITY}&q=${encodeURIComponent('"bed & breakfast"')}&size=200`);
    const words = await get(`/law?${CITY}&q=${encodeURIComponent('breakfast bed')}&size=200`);
    expect(words.body.item.length).toBeGreaterThanOrEqual(phrase.body.item.length);
    expect(phrase.body.item.length).toBeGreaterThan(3);
    const walk: string[] = [];
    let next = `/law?${CITY}&q=parking&size=7`;
    for (let i = 0; i < 4; i++) {
      const r = await get(next);
      walk.push(...r.body.item.map((h: Hit) => h.id));
      next = `/law?${CITY}&q=parking&size=7&cursor=${r.body.page.next_cursor}`;
    }
    const one = await get(`/law?${CITY}&q=parking&size=28`);
    expect(walk).toEqual(one.body.item.map((h: Hit) => h.id));
  });

  test('a query of stop words only, sort=relevance without q, and mode=regex without q are 422', async () => {
    expect((await get(`/law?${CITY}&q=the%20of`)).body.detail.error).toMatchObject({ code: 'parameter_invalid', field: 'q' });
    expect((await get(`/law?${CITY}&sort=relevance`)).body.detail.error.code).toBe('sort_requires_query');
    expect((await get(`/law?${CITY}&mode=regex&q=parking&sort=relevance`)).body.detail.error.code).toBe('sort_requires_query');
    expect((await get(`/law?${CITY}&mode=regex`)).body.detail.error).toMatchObject({ code: 'parameter_invalid', field: 'q' });
    expect((await get(`/law?${CITY}&kind=chapter`)).body.detail.error.code).toBe('vocabulary_value_unknown');
    expect((await get(`/law?${CITY}&use=not.a.use`)).body.detail.error).toMatchObject({ code: 'vocabulary_value_unknown', field: 'use' });
  });
});

describe('regular expressions', () => {
  test('a pattern finds its passages, each quoted verbatim and containing the match', async () => {
    const pattern = 'front setback encroachment \\(max\\)';
    const r = await get(`/law?${CITY}&mode=regex&q=${encodeURIComponent(pattern)}&size=50`);
    expect(r.status).toBe(200);
    const hits: Hit[] = r.body.item;
    expect(hits.length).toBeGreaterThan(3);
    const re = new RegExp(pattern, 'i');
    for (const h of hits) {
      expect(h.citation.quote).toMatch(re);
      const m = h.match[0];
      expect(h.snippet.slice(m.start, m.end)).toMatch(new RegExp(`^${pattern}$`, 'i'));
      await expectCited(h.citation);
    }
    expect(hits.every((h) => h.rank === undefined)).toBe(true);
  });

  test('a pattern PostgreSQL cannot compile is 422 naming q', async () => {
    const r = await get(`/law?${CITY}&mode=regex&q=${encodeURIComponent('setback (front')}`);
    expect(r.status).toBe(422);
    expect(r.body.detail.error).toMatchObject({ code: 'parameter_invalid', field: 'q' });
    expect(r.body.detail.error.detail).toMatch(/parentheses/);
  });

  test('a catastrophic pattern stops at the time limit: 422 naming q, within the limit', async () => {
    const started = Date.now();
    const r = await get(`/law?${CITY}&mode=regex&q=${encodeURIComponent('(.*)*\\1z')}`);
    const took = Date.now() - started;
    expect(r.status).toBe(422);
    expect(r.body.detail.error).toMatchObject({ code: 'parameter_invalid', field: 'q' });
    expect(r.body.detail.error.detail).toMatch(/time limit/);
    expect(took).toBeGreaterThanOrEqual(1900);
    expect(took).toBeLessThan(4500);
    // the service answers normally afterwards
    expect((await get(`/law?${CITY}&q=parking&size=1`)).status).toBe(200);
  });
});

describe('GET /section', () => {
  test('ref gives a section and those under it, in the code order; words rank sections with passages', async () => {
    const r = await get(`/section?${CITY}&ref=9.2&size=200`);
    expect(r.status).toBe(200);
    const refs: string[] = r.body.item.map((s: { ref: string }) => s.ref);
    expect(refs[0]).toBe('9.2');
    expect(refs.length).toBeGreaterThan(5);
    expect(refs.every((x) => x === '9.2' || x.startsWith('9.2.'))).toBe(true);
    const { rows } = await pool.query(`SELECT ref FROM section WHERE ref = '9.2' OR ref LIKE '9.2.%' ORDER BY ordinal`);
    expect(refs).toEqual(rows.map((x) => x.ref));
    const q = await get(`/section?${CITY}&q=${encodeURIComponent('"bed & breakfast"')}&include=body&size=5`);
    for (const s of q.body.item) {
      expect(s.body).toContain(s.citation.quote);
      await expectCited(s.citation);
    }
    const one = await get(`/law/${q.body.item[0].id}`);
    expect(one.body.item).toMatchObject({ object: 'section', id: q.body.item[0].id, status: 'in_force' });
    expect(one.body.item.body_citation.quote).toBe(one.body.item.body);
    await expectCited(one.body.item.body_citation);
  });

  test('a scope holding no code text is 200 with an empty page and coverage saying why', async () => {
    const r = await get('/section?jurisdiction=massachusetts');
    expect(r.status).toBe(200);
    expect(r.body.item).toEqual([]);
    expect(r.body.layer).toEqual([expect.objectContaining({ layer: 'zoning_text', held: false, reason: expect.stringMatching(/no public source/) })]);
    const two = await get('/section?jurisdiction=somerville-ma&county=25017');
    expect(two.status).toBe(422);
  });
});
