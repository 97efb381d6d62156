// The change feed over real HTTP and PostgreSQL: replay from since and known_as_of is the same on
// every repetition, and the event stream resumes exclusively after Last-Event-ID and delivers
// events committed while it is open.
import { afterAll, beforeAll, expect, test } from 'vitest';
import type { RunningServer } from '../../api/server.ts';
import { stableId } from '../../core/ids.ts';
import { writeChangeEvents } from '../../store/changes.ts';
import { withTransaction } from '../../store/db.ts';
import { eventDraft } from '../helpers/feed.ts';
import { call, createTestOrg, startTestServer } from '../helpers/server.ts';

let server: RunningServer;
let key: string;
const tag = Math.random().toString(36).slice(2, 8);
const fips = `us:cousub:25017${String(70000 + Math.floor(Math.random() * 9999))}`;
const jur = stableId('jurisdiction', fips);

const draft = (n: number) => eventDraft(jur, tag, n);

async function emit(ns: number[], at: Date) {
  await withTransaction(server.services.pool, (c) => writeChangeEvents(c, ns.map(draft), at));
}

beforeAll(async () => {
  server = await startTestServer({ RATE_LIMIT_PER_SECOND: '100000' });
  key = (await createTestOrg(server, 1000)).apiKey;
  await server.services.pool.query(
    `INSERT INTO jurisdiction (id, slug, name, type, level, fips_state, fips_county, fips_cousub, fips_key, state_postal)
     VALUES ($1, $2, 'Feedville', 'town', 'cousub', '25', '017', $3, $4, 'MA')`,
    [jur, `feedville-${tag}`, fips.slice(-5), fips],
  );
  await emit([1, 2, 3], new Date('2026-01-10T00:00:00Z'));
  await emit([4, 5], new Date('2026-02-10T00:00:00Z'));
});
afterAll(async () => {
  await server.close();
});

const feed = (q: string) => call(server, 'GET', `/change_event?jurisdiction=${jur}&${q}`, { key });

test('since and known_as_of replay exactly the same events in seq order, every time', async () => {
  const all = await feed('since=0');
  expect(all.status).toBe(200);
  const seqs = all.body.item.map((e: { seq: number }) => e.seq);
  expect(seqs).toHaveLength(5);
  expect([...seqs].sort((a, b) => a - b)).toEqual(seqs);
  const before = await feed('since=0&known_as_of=2026-01-31');
  expect(before.body.item.map((e: { field_path: string }) => e.field_path)).toEqual([1, 2, 3].map((n) => `district.R-${n}.${tag}`));
  await emit([6], new Date());
  const again = await feed('since=0&known_as_of=2026-01-31');
  expect(again.body.item).toEqual(before.body.item);
  const after2 = await feed(`since=${seqs[1]}&known_as_of=2026-02-28`);
  expect(after2.body.item.map((e: { seq: number }) => e.seq)).toEqual(seqs.slice(2));
});

test('pages follow seq with cursors; filters by layer and kind', async () => {
  const first = await feed('since=0&size=2');
  expect(first.body.item).toHaveLength(2);
  const next = await feed(`since=0&size=2&cursor=${encodeURIComponent(first.body.page.next_cursor)}`);
  expect(next.body.item[0].seq).toBeGreaterThan(first.body.item[1].seq);
  const maps = await feed('since=0&layer=district_map');
  expect(maps.body.item.every((e: { kind: string }) => e.kind === 'map_change')).toBe(true);
});

test('since is required; one scope; an unknown layer is refused', async () => {
  expect((await call(server, 'GET', `/change_event?jurisdiction=${jur}`, { key })).body.detail.error).toMatchObject({ code: 'parameter_invalid', field: 'since' });
  expect((await call(server, 'GET', '/change_event?since=0', { key })).body.detail.error.field).toBe('jurisdiction');
  expect((await feed('since=0&layer=roads')).body.detail.error).toMatchObject({ code: 'vocabulary_value_unknown', field: 'layer' });
});

test('the stream resumes after Last-Event-ID and delivers events as they are committed', async () => {
  const all = (await feed('since=0')).body.item as Array<{ seq: number }>;
  const resumeAt = all[2].seq;
  const controller = new AbortController();
  const res = await fetch(`${server.url}/change_event?jurisdiction=${jur}&since=0`, {
    headers: { 'X-API-Key': key, Accept: 'text/event-stream', 'Last-Event-ID': String(resumeAt) },
    signal: controller.signal,
  });
  expect(res.headers.get('content-type')).toMatch(/text\/event-stream/);
  const reader = res.body!.getReader();
  let text = '';
  const readUntil = async (pred: (t: string) => boolean) => {
    while (!pred(text)) {
      const { value, done } = await reader.read();
      if (done) break;
      text += Buffer.from(value).toString('utf8');
    }
  };
  await readUntil((t) => t.includes(`id: ${all[all.length - 1].seq}\n`));
  const ids = [...text.matchAll(/^id: (\d+)$/gm)].map((m) => Number(m[1]));
  expect(ids).toEqual(all.filter((e) => e.seq > resumeAt).map((e) => e.seq));
  expect(text).toMatch(/^event: (district|district_map)$/m);
  await emit([7], new Date());
  await readUntil((t) => t.includes(`"district.R-7.${tag}"`));
  const last = [...text.matchAll(/^id: (\d+)$/gm)].map((m) => Number(m[1])).pop()!;
  expect(last).toBeGreaterThan(all[all.length - 1].seq);
  controller.abort();
});
