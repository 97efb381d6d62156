// Where no permit or case feed is held anywhere (the real Cambridge load, with its state and
// county): one record by id is 501 not_available, not 404 (no record could be read, so none can be
// said to be missing); the /v1 search forms are 501; the unversioned searches answer an empty page
// whose coverage says why.
import { afterAll, beforeAll, expect, test } from 'vitest';
import type { RunningServer } from '../../api/server.ts';
import { stableId } from '../../core/ids.ts';
import { ingestedDatabase } from '../helpers/pipeline.ts';
import { call, createTestOrg, startTestServer } from '../helpers/server.ts';

let db: { url: string; drop: () => Promise<void> };
let server: RunningServer;
let key: string;
const get = (path: string) => call(server, 'GET', path, { key });

beforeAll(async () => {
  db = await ingestedDatabase('cambridge', ['cambridge-ma']);
  server = await startTestServer({ DATABASE_URL: db.url, RATE_LIMIT_PER_SECOND: '100000' });
  key = (await createTestOrg(server, 1000)).apiKey;
}, 600_000);
afterAll(async () => {
  await server?.close();
  await db?.drop();
});

test('no feed of the kind held: one record is 501, the /v1 search forms are 501', async () => {
  const { rows } = await server.services.pool.query(`SELECT count(*)::int AS n FROM coverage WHERE layer IN ('permit', 'case') AND held`);
  expect(rows[0].n).toBe(0);
  for (const kind of ['permit', 'application', 'case'] as const) {
    const one = await get(`/v1/${kind}/${stableId(kind, 'cambridge', 'X-1')}`);
    expect([one.status, one.body.code], kind).toEqual([501, 'not_available']);
    const list = await get(`/v1/${kind}?jurisdiction=cambridge-ma`);
    expect([list.status, list.body.code], kind).toEqual([501, 'not_available']);
    expect(list.body.detail).toMatch(/cambridge-ma/);
  }
  const malformed = await get('/v1/case/cas_!');
  expect([malformed.status, malformed.body.code]).toEqual([422, 'id_malformed']);
});

test('the unversioned searches: 200, an empty page, and layer[] naming why for each jurisdiction', async () => {
  for (const [path, layer] of [['/permit', 'permit'], ['/case', 'case']]) {
    const r = await get(`${path}?state=MA&total=true`);
    expect(r.status).toBe(200);
    expect(r.body.item).toEqual([]);
    expect(r.body.coverage).toMatchObject({ in_scope: 3, held: 0, not_held: { count: 3 } });
    expect(r.body.layer.map((l: { jurisdiction: { slug: string }; layer: string }) => [l.jurisdiction.slug, l.layer]).sort()).toEqual([
      ['cambridge-ma', layer],
      ['massachusetts', layer],
      ['middlesex-county-ma', layer],
    ]);
  }
});
