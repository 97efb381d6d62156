// GET /jurisdiction/{id}?include=body on Somerville's real ordinance, ingested through the
// pipeline: the boards and commissions its text names, each quoting verbatim the sentence of the
// section that names it (found in the retained document's text), the ones its own sections
// establish first; a jurisdiction with no code text held says so with the store's reason.
import { afterAll, beforeAll, expect, test } from 'vitest';
import type { RunningServer } from '../../api/server.ts';
import { ingestedDatabase } from '../helpers/pipeline.ts';
import { call, createTestOrg, startTestServer } from '../helpers/server.ts';

let server: RunningServer;
let key: string;
let drop: () => Promise<void>;

beforeAll(async () => {
  const db = await ingestedDatabase('somerville', ['somerville-ma']);
  drop = db.drop;
  server = await startTestServer({ DATABASE_URL: db.url, RATE_LIMIT_PER_SECOND: '100000' });
  key = (await createTestOrg(server, 1000)).apiKey;
}, 300_000);
afterAll(async () => {
  await server?.close();
  await drop?.();
});

// biome-ignore lint/suspicious/noExplicitAny: answers are checked field by field
type Body = Record<string, any>;

test('the bodies the code names, each quoting the sentence of its section verbatim', async () => {
  const r = await call(server, 'GET', '/jurisdiction/somerville-ma?include=body', { key });
  expect(r.status).toBe(200);
  expect(r.body.notice).toBeUndefined();
  const bodies: Body[] = r.body.item.body;
  expect(bodies.length).toBeGreaterThan(5);
  const db = server.services.pool;
  const { rows: ids } = await db.query(`SELECT id, slug FROM jurisdiction WHERE slug IN ('somerville-ma', 'massachusetts')`);
  const somerville = ids.find((j) => j.slug === 'somerville-ma')!.id;
  const ma = ids.find((j) => j.slug === 'massachusetts')!.id;
  for (const b of bodies) {
    // a proper name ending in (or headed by) a body noun, never a lone noun
    expect(b.name, b.name).toMatch(/^(?:\S+ )+\S+$/);
    expect(b.name).toMatch(/\b(Board|Commission|Council|Committee|Authority)\b/);
    expect(b.status).toBe('stated');
    // the quote is a sentence of the cited section, naming the body, and is found in the retained text
    const { rows } = await db.query('SELECT body FROM section WHERE jurisdiction_id = $1 AND ref = $2 AND document_id = $3 AND upper_inf(known)', [somerville, b.section.ref, b.section.document]);
    expect(rows.length, b.section.ref).toBe(1);
    expect(rows[0].body).toContain(b.quote);
    expect([b.name, ...b.also_named].some((n: string) => b.quote.toLowerCase().includes(n.toLowerCase()))).toBe(true);
    expect(b.citation.section_ref).toBe(b.section.ref);
    const text = await db.query('SELECT position($2 in text) > 0 AS found FROM version_text WHERE version_id = $1', [b.citation.version, b.quote]);
    expect(text.rows[0]?.found, b.quote).toBe(true);
    expect(b.mention_count).toBeGreaterThanOrEqual(1);
    expect(b.section_count).toBeGreaterThanOrEqual(1);
  }
  // the review boards Article 15 establishes, each cited by the establishing sentence of the section headed with its name
  const established = bodies.filter((b) => b.basis === 'established');
  expect(established.map((b) => b.name).sort()).toEqual(['Planning Board', 'Urban Design Commission', 'Zoning Board of Appeals']);
  for (const b of established) {
    expect(b.section.heading).toBe(b.name);
    expect(b.quote).toMatch(/establish/i);
    expect(b.jurisdiction).toBe(somerville);
  }
  expect(bodies.slice(0, 3)).toEqual(established);
  // a body of the city by its type word; one of the state by its name
  expect(bodies.find((b) => b.name === 'City Council')).toMatchObject({ jurisdiction: somerville, basis: 'name' });
  expect(bodies.find((b) => b.name.startsWith('Massachusetts '))).toMatchObject({ jurisdiction: ma, basis: 'name' });
  // "the Zoning Board" once is the Zoning Board of Appeals, not a body of its own
  expect(bodies.filter((b) => /^Zoning Board\b/.test(b.name)).map((b) => b.name)).toEqual(['Zoning Board of Appeals']);
  // a glossary term that is a thing (Corner Board: exterior trim) is not a body
  expect(bodies.some((b) => /corner board/i.test(b.name))).toBe(false);
});

test('a jurisdiction with no code text held: no body, and the reason from the store', async () => {
  const r = await call(server, 'GET', '/jurisdiction/middlesex-county-ma?include=body', { key });
  expect(r.status).toBe(200);
  expect(r.body.item.body).toEqual([]);
  expect(r.body.notice).toEqual([expect.objectContaining({ code: 'not_held', subject: ['body'] })]);
  expect(r.body.notice[0].detail).toMatch(/no source of the zoning_text layer is held for Middlesex County/);
});
