// The change feed over real HTTP and PostgreSQL: replay from since and known_as_of is the same on
// every repetition, the event stream resumes exclusively after Last-Event-ID and delivers
// events committed while it is open, the unscoped feed is every event in seq order, the coverage
// block says what the feed reads, and one event is read by its id.
import { afterAll, beforeAll, expect, test } from 'vitest';
import type { RunningServer } from '../../api/server.ts';
import { newId, stableId } from '../../core/ids.ts';
import { writeChangeEvents } from '../../store/changes.ts';
import { upsertCoverage } from '../../store/coverage.ts';
import { withTransaction } from '../../store/db.ts';
import { eventDraft } from '../helpers/feed.ts';
import { call, createTestOrg, startTestServer } from '../helpers/server.ts';

let server: RunningServer;
let key: string;
const tag = Math.random().toString(36).slice(2, 8);
const fips = `us:cousub:25017${String(70000 + Math.floor(Math.random() * 9999))}`;
const jur = stableId('jurisdiction', fips);
// a second town, whose events interleave with the first's in seq order
const fips2 = `us:cousub:25017${String(80000 + Math.floor(Math.random() * 9999))}`;
const jur2 = stableId('jurisdiction', fips2);

async function emit(ns: number[], at: Date, j = jur) {
  await withTransaction(server.services.pool, (c) => writeChangeEvents(c, ns.map((n) => eventDraft(j, tag, n)), at));
}

beforeAll(async () => {
  server = await startTestServer({ RATE_LIMIT_PER_SECOND: '100000' });
  key = (await createTestOrg(server, 1000)).apiKey;
  await server.services.pool.query(
    `INSERT INTO jurisdiction (id, slug, name, type, level, fips_state, fips_county, fips_cousub, fips_key, state_postal)
     VALUES ($1, $2, 'Feedville', 'town', 'cousub', '25', '017', $3, $4, 'MA')`,
    [jur, `feedville-${tag}`, fips.slice(-5), fips],
  );
  await server.services.pool.query(
    `INSERT INTO jurisdiction (id, slug, name, type, level, fips_state, fips_county, fips_cousub, fips_key, state_postal)
     VALUES ($1, $2, 'Otherton', 'town', 'cousub', '25', '017', $3, $4, 'MA')`,
    [jur2, `otherton-${tag}`, fips2.slice(-5), fips2],
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

test('since is required; at most one scope; an unknown layer is refused', async () => {
  expect((await call(server, 'GET', `/change_event?jurisdiction=${jur}`, { key })).body.detail.error).toMatchObject({ code: 'parameter_invalid', field: 'since' });
  expect((await feed('since=0&state=MA')).body.detail.error).toMatchObject({ code: 'parameter_invalid', field: 'state' });
  expect((await call(server, 'GET', '/change_event?since=0&buffer=10', { key })).body.detail.error).toMatchObject({ code: 'parameter_invalid', field: 'buffer' });
  expect((await feed('since=0&layer=roads')).body.detail.error).toMatchObject({ code: 'vocabulary_value_unknown', field: 'layer' });
});

type Event = { id: string; seq: number; jurisdiction: { id: string }; field_path: string };
const all = (q: string) => call(server, 'GET', `/change_event?${q}`, { key });

test('without a scope the feed is every event of every town in seq order; a scope narrows it', async () => {
  const start = (await server.services.pool.query('SELECT max(seq)::int AS seq FROM change_event')).rows[0].seq as number;
  await emit([11], new Date('2026-03-01T00:00:00Z'), jur2);
  await emit([12], new Date('2026-03-02T00:00:00Z'), jur);
  await emit([13, 14], new Date('2026-03-03T00:00:00Z'), jur2);
  await emit([15], new Date('2026-03-04T00:00:00Z'), jur);
  const end = (await server.services.pool.query('SELECT max(seq)::int AS seq FROM change_event')).rows[0].seq as number;

  const unscoped = await all(`since=${start}&until=${end}&size=200`);
  expect(unscoped.status).toBe(200);
  const items = unscoped.body.item as Event[];
  const seqs = items.map((e) => e.seq);
  expect(seqs.every((s, i) => i === 0 || s > seqs[i - 1])).toBe(true);
  const ours = items.filter((e) => e.field_path.endsWith(`.${tag}`));
  expect(ours.map((e) => [e.jurisdiction.id, e.field_path.split('.')[1]])).toEqual([
    [jur2, 'R-11'],
    [jur, 'R-12'],
    [jur2, 'R-13'],
    [jur2, 'R-14'],
    [jur, 'R-15'],
  ]);
  // a scope narrows it to its towns, in the same order
  const one = (await all(`jurisdiction=${jur2}&since=${start}&until=${end}`)).body.item as Event[];
  expect(one.map((e) => e.id)).toEqual(items.filter((e) => e.jurisdiction.id === jur2).map((e) => e.id));
  const both = (await all(`jurisdiction=${jur}&jurisdiction=${jur2}&since=${start}&until=${end}`)).body.item as Event[];
  expect(both.map((e) => e.id)).toEqual(items.filter((e) => e.jurisdiction.id === jur || e.jurisdiction.id === jur2).map((e) => e.id));

  // paged by cursor, the unscoped feed gives the same events as one page, and a cursor of a scoped walk does not fit it
  const walked: Event[] = [];
  let cursor: string | null = null;
  do {
    const r = await all(`since=${start}&until=${end}&size=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
    walked.push(...r.body.item);
    cursor = r.body.page.next_cursor;
  } while (cursor);
  expect(walked.map((e) => e.id)).toEqual(items.map((e) => e.id));
  const scopedCursor = (await all(`jurisdiction=${jur2}&since=${start}&until=${end}&size=1`)).body.page.next_cursor;
  expect((await all(`since=${start}&until=${end}&size=1&cursor=${encodeURIComponent(scopedCursor)}`)).body.detail.error).toMatchObject({ code: 'parameter_invalid', field: 'cursor' });

  // since is a watermark on the unscoped feed too, and known_as_of replays it
  const after = (await all(`since=${ours[1].seq}&until=${end}`)).body.item as Event[];
  expect(after.filter((e) => e.field_path.endsWith(`.${tag}`)).map((e) => e.id)).toEqual(ours.slice(2).map((e) => e.id));
  const known = (await all(`since=${start}&until=${end}&known_as_of=2026-03-02T12:00:00Z`)).body.item as Event[];
  expect(known.filter((e) => e.field_path.endsWith(`.${tag}`)).map((e) => e.id)).toEqual(ours.slice(0, 2).map((e) => e.id));
  expect(unscoped.body.meta.answer_through).toBe(seqs[seqs.length - 1]);

  // the stream without a scope carries the same events, and ends at until
  const res = await fetch(`${server.url}/change_event?since=${start}&until=${end}`, { headers: { 'X-API-Key': key, Accept: 'text/event-stream' } });
  const text = await res.text();
  expect([...text.matchAll(/^id: (\d+)$/gm)].map((m) => Number(m[1]))).toEqual(seqs);
});

test('the coverage block names the scope and layers read and, per town, what is held of each and how fresh', async () => {
  const put = (layer: string, tier: 'full' | 'partial', retrieved: string, changed: string, retained: string) =>
    upsertCoverage(server.services.pool, { jurisdictionId: jur, layer, held: true, tier, sourceKey: `test-${layer}`, retrievedAt: new Date(retrieved), changedAt: new Date(changed), earliestRetained: retained });
  await put('district_list', 'full', '2026-05-02T00:00:00Z', '2026-04-01T00:00:00Z', '2020-01-01');
  await put('zoning_text', 'partial', '2026-05-01T00:00:00Z', '2026-04-15T00:00:00Z', '2021-06-01');
  await put('district_map', 'full', '2026-05-03T00:00:00Z', '2026-03-01T00:00:00Z', '2022-01-01');
  // held for a layer the feed does not read: no bearing on the block
  await put('parcel', 'full', '2026-05-04T00:00:00Z', '2026-05-04T00:00:00Z', '2022-01-01');

  const scoped = (await feed(`since=0&jurisdiction=${jur2}`)).body.coverage;
  expect(scoped.scope).toEqual({ kind: 'jurisdiction', label: `${jur},${jur2}` });
  expect(scoped.layer).toEqual(['authority', 'district', 'district_map', 'overlay']);
  expect(scoped.jurisdiction).toHaveLength(1);
  const town = scoped.jurisdiction[0];
  expect(town).toMatchObject({ id: jur, name: 'Feedville', href: `/coverage?jurisdiction=${jur}` });
  expect(town.layer.district).toEqual({
    held: true,
    tier: 'partial',
    last_retrieved_at: '2026-05-01T00:00:00.000Z',
    last_changed_at: '2026-04-15T00:00:00.000Z',
    earliest_retained: '2021-06-01',
    source_layer: ['district_list', 'zoning_text'],
  });
  expect(town.layer.district_map).toMatchObject({ held: true, tier: 'full', last_retrieved_at: '2026-05-03T00:00:00.000Z', source_layer: ['district_map'] });
  expect(town.layer.overlay).toMatchObject({ held: false, tier: 'none', reason: expect.stringMatching(/overlay/) });
  expect(town.layer.authority).toMatchObject({ held: false, tier: 'none' });
  expect(scoped.not_held).toEqual({ count: 1, jurisdiction: [jur2] });

  // the layers read follow the layer filter: with overlay alone, nothing of this town is held
  const overlay = (await feed('since=0&layer=overlay')).body.coverage;
  expect(overlay.layer).toEqual(['overlay']);
  expect(overlay.jurisdiction).toEqual([]);
  expect(overlay.not_held.jurisdiction).toEqual([jur]);

  // unscoped: every town held, and every town with nothing held
  const everything = (await all('since=0&size=1')).body.coverage;
  expect(everything.scope).toEqual({ kind: 'all' });
  expect(everything.jurisdiction.map((j: { id: string }) => j.id)).toContain(jur);
  expect(everything.not_held.jurisdiction).toContain(jur2);
  expect(everything.not_held.jurisdiction).not.toContain(jur);
  expect(everything.not_held.count).toBe(everything.not_held.jurisdiction.length);
});

test('one event by its id; a well-formed id that names none is 404; a malformed one is 422', async () => {
  const first = ((await feed('since=0&size=1')).body.item as Event[])[0];
  const one = await call(server, 'GET', `/change_event/${first.id}`, { key });
  expect(one.status).toBe(200);
  expect(one.body.item).toEqual(first);
  const unknown = newId('change_event');
  const missing = await call(server, 'GET', `/change_event/${unknown}`, { key });
  expect([missing.status, missing.body.detail.error.code]).toEqual([404, 'no_such_resource']);
  expect(missing.body.detail.error.detail).toContain(unknown);
  for (const bad of ['chg_!!', 'jur_q4c9gxs9ef9sd7zj9c40', 'nothing']) {
    const r = await call(server, 'GET', `/change_event/${encodeURIComponent(bad)}`, { key });
    expect([r.status, r.body.detail.error.code, r.body.detail.error.field], bad).toEqual([422, 'id_malformed', 'change_event']);
  }
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
