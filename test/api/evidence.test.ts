// Evidence on real Cambridge data: citations in three formats, the source with the passage at
// its offsets, corrections (idempotent), documents with versions, answers replayed exactly.
import { afterAll, beforeAll, expect, test } from 'vitest';
import type { RunningServer } from '../../api/server.ts';
import { call, cambridgeApi, createTestOrg } from '../helpers/server.ts';

let close = async () => {};
let server: RunningServer;
let key: string;
let citation: string;

beforeAll(async () => {
  ({ server, key, close } = await cambridgeApi(1000));
  const place = await call(server, 'GET', '/place?point=42.3629,-71.1113&include=assignment', { key });
  citation = place.body.item.assignment[0].citation.id;
}, 120_000);
afterAll(async () => {
  await close();
});

test('a citation: its quote is at its offsets in the retained source', async () => {
  const c = await call(server, 'GET', `/citation/${citation}?context_line=1`, { key });
  expect(c.status).toBe(200);
  expect(c.body.item).toMatchObject({ id: citation, quote: expect.any(String), quote_sha256: expect.stringMatching(/^[0-9a-f]{64}$/), version: expect.stringMatching(/^ver_/) });
  expect(c.body.item.context.quote).toBe(c.body.item.quote);
  expect(c.body.item.context.before.length).toBeGreaterThan(0);
  const src = await fetch(`${server.url}/citation/${citation}/source?format=text`, { headers: { 'X-API-Key': key } });
  const text = await src.text();
  const start = Number(src.headers.get('x-passage-start'));
  const end = Number(src.headers.get('x-passage-end'));
  expect(text.slice(start, end)).toBe(c.body.item.quote);
  const html = await fetch(`${server.url}/citation/${citation}/source`, { headers: { 'X-API-Key': key } });
  expect(await html.text()).toContain('<mark id="passage">');
});

test('markdown and html forms quote the passage and name the version', async () => {
  const md = await fetch(`${server.url}/citation/${citation}?format=markdown`, { headers: { 'X-API-Key': key } });
  expect(md.headers.get('content-type')).toMatch(/text\/markdown/);
  expect(await md.text()).toMatch(/^> .+\n\n— .+Version 1 \(sha256 [0-9a-f]{12}…\), retrieved /s);
  const html = await fetch(`${server.url}/citation/${citation}?format=html`, { headers: { 'X-API-Key': key } });
  expect(await html.text()).toContain('<mark>');
});

test('a correction is received, replayed for the same Idempotency-Key, and readable', async () => {
  const body = { subject: 'district name', claim: 'The code calls it something else', proposed_value: 'Business A-3' };
  const headers = { 'Idempotency-Key': `corr-${citation}` };
  const a = await call(server, 'POST', `/citation/${citation}/correction`, { key, body, headers });
  expect(a.status).toBe(201);
  expect(a.body.item).toMatchObject({ citation, state: 'received', what_would_satisfy_it: expect.any(String) });
  const b = await call(server, 'POST', `/citation/${citation}/correction`, { key, body, headers });
  expect(b.body.item.id).toBe(a.body.item.id);
  const got = await call(server, 'GET', `/citation/${citation}/correction/${a.body.item.id}`, { key });
  expect(got.body.item.id).toBe(a.body.item.id);
  const other = await createTestOrg(server, 10);
  expect((await call(server, 'GET', `/citation/${citation}/correction/${a.body.item.id}`, { key: other.apiKey })).status).toBe(404);
});

test('documents: the maps with their versions; one document by id', async () => {
  const r = await call(server, 'GET', '/document?doc_type=map&include=version', { key });
  expect(r.body.item.map((d: { title: string }) => d.title).sort()).toEqual(['Assessing parcels FY2014', 'CDD Zoning Districts', 'CDD Zoning Overlay Districts']);
  expect(r.body.item[0].version[0]).toMatchObject({ number: 1, sha256: expect.stringMatching(/^[0-9a-f]{64}$/), loaded: true });
  const one = await call(server, 'GET', `/document/${r.body.item[0].id}`, { key });
  expect(one.body.item.version).toHaveLength(1);
  expect((await call(server, 'GET', '/document/doc_00000000000000000000', { key })).status).toBe(404);
  expect((await call(server, 'GET', '/document/nonsense', { key })).body.detail.error.code).toBe('id_malformed');
});

test('an answer is replayed exactly', async () => {
  const place = await call(server, 'GET', '/place?point=42.3629,-71.1113&include=assignment,parcel', { key });
  const replay = await call(server, 'GET', `/answer/${place.body.meta.answer_id}`, { key });
  expect(replay.status).toBe(200);
  expect(replay.body).toEqual(place.body);
});
