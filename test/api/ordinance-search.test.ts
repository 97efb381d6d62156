// GET /ordinance, /ordinance/{id}, /moratorium and /law over the synthetic town (ingested v1, then
// v2 with four ordinances adopted 2026-04-14 and the battery storage moratorium 2026-10): statuses
// read on dates from the clerk's own dates, both time axes, filters, sorts, paging, includes,
// citations found verbatim in their retained text, and refusals.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { RunningServer } from '../../api/server.ts';
import { type PipelineHarness, pipelineHarness, syntheticManifests } from '../helpers/pipeline.ts';
import { call, createTestOrg, startTestServer } from '../helpers/server.ts';
import { type SyntheticSite, startSyntheticSite } from '../helpers/synthetic-site.ts';

const T1 = new Date('2026-03-05T12:00:00Z');
const T2 = new Date('2026-04-21T12:00:00Z');
const TOWN = 'jurisdiction=millbrook-ma';

let site: SyntheticSite;
let h: PipelineHarness;
let server: RunningServer;
let key: string;

const get = (path: string) => call(server, 'GET', path, { key });
const numbers = (items: Array<{ number: string }>) => items.map((i) => i.number).sort();
const byNumber = (items: Array<{ number: string }>) => new Map(items.map((i) => [i.number, i as Record<string, any>]));

beforeAll(async () => {
  site = await startSyntheticSite({ version: 1 });
  h = await pipelineHarness('ordinance_search', { manifestDir: await syntheticManifests(site.url) });
  await h.ingest(['millbrook-ma'], { now: T1 });
  site.setVersion(2);
  await h.ingest(['millbrook-ma'], { now: T2 });
  server = await startTestServer({ DATABASE_URL: h.url, RATE_LIMIT_PER_SECOND: '100000' });
  key = (await createTestOrg(server, 100_000)).apiKey;
}, 180_000);
afterAll(async () => {
  await server?.close();
  await h?.close();
  await site?.close();
});

/** Every citation object in an answer. */
function citations(node: unknown, out: Array<Record<string, any>> = []): Array<Record<string, any>> {
  if (Array.isArray(node)) for (const x of node) citations(x, out);
  else if (node && typeof node === 'object') {
    const o = node as Record<string, unknown>;
    if (typeof o.id === 'string' && o.id.startsWith('cit_') && 'quote' in o) out.push(o);
    for (const v of Object.values(o)) citations(v, out);
  }
  return out;
}

async function expectVerbatim(body: unknown) {
  const cites = citations(body);
  expect(cites.length).toBeGreaterThan(0);
  for (const c of cites) {
    const { rows } = await h.pool.query('SELECT text FROM version_text WHERE version_id = $1', [c.version]);
    expect(rows[0].text.slice(c.locator.start, c.locator.end)).toBe(c.quote);
  }
}

describe('GET /ordinance', () => {
  test('on 2026-04-01 (as known now) the four ordinances adopted 2026-04-14 were introduced, with no adoption or effective date yet', async () => {
    const r = await get(`/ordinance?${TOWN}&as_of=2026-04-01`);
    expect(r.status).toBe(200);
    const o = byNumber(r.body.item);
    expect(numbers(r.body.item)).toEqual(['2019-01', '2022-04', '2023-02', '2024-06', '2026-03', '2026-07', '2026-08', '2026-09', '2026-10']);
    for (const n of ['2026-07', '2026-08', '2026-09', '2026-10']) expect(o.get(n)).toMatchObject({ status: 'introduced', introduced_on: '2026-03-10', adopted_on: null, effective_from: null });
    expect(o.get('2023-02')!.status).toBe('failed');
    expect(o.get('2019-01')).toMatchObject({ status: 'adopted', adopted_on: '2019-04-09', effective_from: '2019-05-01', kind: 'standalone' });
    expect(o.get('2026-10')).toMatchObject({ kind: 'moratorium', subject: ['battery_storage'], moratorium: [expect.stringMatching(/^mor_/)] });
    expect(r.body.as_of.resolved).toMatchObject({ from: '2026-04-01', to: '2026-04-01' });
    expect(r.body.coverage).toMatchObject({ in_scope: 1, held: 1, layer: ['ordinance'] });
    await expectVerbatim(r.body.item);
  });

  test('on 2026-04-14 they are adopted; before 2026-03-10 they are not on record; known before v2 they are unknown', async () => {
    const adopted = byNumber((await get(`/ordinance?${TOWN}&as_of=2026-04-14`)).body.item);
    expect(adopted.get('2026-08')).toMatchObject({ status: 'adopted', adopted_on: '2026-04-14', effective_from: '2026-05-15' });
    expect(numbers((await get(`/ordinance?${TOWN}&as_of=2026-03-09`)).body.item)).toEqual(['2019-01', '2022-04', '2023-02', '2024-06', '2026-03']);
    const then = await get(`/ordinance?${TOWN}&as_of=2026-04-14&known_as_of=2026-03-20`);
    expect(numbers(then.body.item)).toEqual(['2019-01', '2022-04', '2023-02', '2024-06', '2026-03']);
    expect(then.body.as_of.known_as_of).toBe('2026-03-20T23:59:59.999999Z');
  });

  test('kind, subject, status, number and adopted[] filter; an ordinance not adopted on the date is left out of adopted[], not indeterminate', async () => {
    const n = async (q: string) => numbers((await get(`/ordinance?${TOWN}&as_of=2026-05-01&${q}`)).body.item);
    expect(await n('kind=moratorium')).toEqual(['2026-10']);
    expect(await n('kind=map_amendment,standalone')).toEqual(['2019-01', '2024-06', '2026-08']);
    expect(await n('subject=solar&subject=wind')).toEqual(['2022-04', '2023-02']);
    expect(await n('status=failed')).toEqual(['2023-02']);
    expect(await n('status=proposed,introduced')).toEqual(['2026-03']);
    expect(await n('number=2026-08')).toEqual(['2026-08']);
    const since = await get(`/ordinance?${TOWN}&as_of=2026-05-01&adopted[gte]=2026-01-01`);
    expect(numbers(since.body.item)).toEqual(['2026-07', '2026-08', '2026-09', '2026-10']);
    expect(since.body.page.indeterminate).toBe(0);
    expect(since.body.item.every((i: { filter_outcome: string }) => i.filter_outcome === 'match')).toBe(true);
    expect(numbers((await get(`/ordinance?${TOWN}&as_of=2026-05-01&adopted[gte]=2022-01-01&adopted[lte]=2024-12-31`)).body.item)).toEqual(['2022-04', '2024-06']);
    // on 2026-04-01 none was adopted in 2026 yet
    expect(numbers((await get(`/ordinance?${TOWN}&as_of=2026-04-01&adopted[gte]=2026-01-01`)).body.item)).toEqual([]);
    // an interval: a status held on some day of it
    const during = await get(`/ordinance?${TOWN}&status=introduced&as_of=${encodeURIComponent('from:2026-04-01 to:2026-05-01')}`);
    expect(numbers(during.body.item)).toEqual(['2026-03', '2026-07', '2026-08', '2026-09', '2026-10']);
    expect(numbers((await get(`/ordinance?${TOWN}&status=introduced&as_of=2026-05-01`)).body.item)).toEqual(['2026-03']);
  });

  test('sorts: -adopted_on by default (undated last), adopted_on, status, jurisdiction.name; unknown sort fields are 422', async () => {
    const d = (await get(`/ordinance?${TOWN}&as_of=2026-05-01`)).body.item;
    expect(d.map((i: { adopted_on: string | null }) => i.adopted_on)).toEqual(['2026-04-14', '2026-04-14', '2026-04-14', '2026-04-14', '2024-06-11', '2022-05-10', '2019-04-09', null, null]);
    const a = (await get(`/ordinance?${TOWN}&as_of=2026-05-01&sort=adopted_on`)).body.item;
    expect(a.map((i: { number: string }) => i.number).slice(0, 3)).toEqual(['2019-01', '2022-04', '2024-06']);
    expect(a.slice(-2).map((i: { adopted_on: null }) => i.adopted_on)).toEqual([null, null]);
    const s = (await get(`/ordinance?${TOWN}&as_of=2026-05-01&sort=status,number`)).body.item;
    expect(s.map((i: { status: string }) => i.status)).toEqual(['adopted', 'adopted', 'adopted', 'adopted', 'adopted', 'adopted', 'adopted', 'failed', 'introduced']);
    expect(s.slice(0, 2).map((i: { number: string }) => i.number)).toEqual(['2019-01', '2022-04']);
    expect((await get(`/ordinance?${TOWN}&sort=jurisdiction.name,-number`)).body.item[0].number).toBe('2026-10');
    const bad = await get(`/ordinance?${TOWN}&sort=title`);
    expect(bad.status).toBe(422);
    expect(bad.body.detail.error.code).toBe('field_unknown');
  });

  test('paging: a walk of size 2 gives the same ordinances in the same order as one page, with total; a cursor keeps its sort', async () => {
    const all = await get(`/ordinance?${TOWN}&as_of=2026-05-01&total=true`);
    const walk: string[] = [];
    let next = `/ordinance?${TOWN}&as_of=2026-05-01&size=2&total=true`;
    let first = true;
    for (;;) {
      const r = await get(next);
      expect(r.status).toBe(200);
      if (first) expect(r.body.page.total).toEqual({ value: 9, relation: 'eq' });
      first = false;
      walk.push(...r.body.item.map((i: { id: string }) => i.id));
      if (!r.body.page.next_cursor) break;
      next = `/ordinance?${TOWN}&as_of=2026-05-01&size=2&cursor=${r.body.page.next_cursor}`;
    }
    expect(walk).toEqual(all.body.item.map((i: { id: string }) => i.id));
    const page = await get(`/ordinance?${TOWN}&as_of=2026-05-01&size=2`);
    const other = await get(`/ordinance?${TOWN}&as_of=2026-05-01&size=2&sort=adopted_on&cursor=${page.body.page.next_cursor}`);
    expect(other.body.detail.error.code).toBe('cursor_sort_mismatch');
    const moved = await get(`/ordinance?${TOWN}&as_of=2026-04-01&size=2&cursor=${page.body.page.next_cursor}`);
    expect(moved.status).toBe(422);
    expect(moved.body.detail.error.field).toBe('cursor');
  });

  test('include=control, notice: the R-1 front setback 2026-07 changed (25 to 20 ft from 2026-05-01), and the change events naming it', async () => {
    const r = await get(`/ordinance?${TOWN}&number=2026-07&include=control,permission,notice`);
    const o = r.body.item[0];
    expect(o.control).toHaveLength(1);
    expect(o.control[0]).toMatchObject({ district: { code: 'R-1' }, control_type: 'dimensional.setback_front', min: 20, unit: 'ft', effective_from: '2026-05-01' });
    expect(o.control[0].change.map((c: { previous: unknown; current: unknown }) => [c.previous, c.current])).toContainEqual([25, 20]);
    expect(o.control[0].citation.quote).toBe('20');
    expect(o.permission).toEqual([]);
    expect(o.notice.length).toBeGreaterThan(0);
    expect(o.notice.every((e: { ordinance: string; kind: string }) => e.ordinance === o.id && e.kind === 'amendment')).toBe(true);
    expect(o.text).toMatchObject({ held: true, instructions: 1 });
    await expectVerbatim(o);
  });

  test('an interval as_of gives each ordinance its segments', async () => {
    const r = await get(`/ordinance?${TOWN}&number=2026-07&as_of=${encodeURIComponent('from:2026-03-01 to:2026-05-01')}`);
    expect(r.body.item[0].segment).toEqual([
      { from: '2026-03-01', to: '2026-03-09', status: null },
      { from: '2026-03-10', to: '2026-04-13', status: 'introduced' },
      { from: '2026-04-14', to: '2026-05-01', status: 'adopted' },
    ]);
    expect(r.body.as_of).toMatchObject({ constant: false, segment_count: 3 });
    expect(r.body.notice.map((n: { code: string }) => n.code)).toContain('as_of_interval_spans_change');
  });
});

describe('GET /ordinance/{id}', () => {
  test('the rezoning 2026-08 with what its own text instructs (R-2 to VC), cited; 404 before it was introduced', async () => {
    const list = await get(`/ordinance?${TOWN}&number=2026-08`);
    const id = list.body.item[0].id;
    const r = await get(`/ordinance/${id}?include=notice`);
    expect(r.status).toBe(200);
    expect(r.body.item).toMatchObject({ id, number: '2026-08', kind: 'map_amendment', status: 'adopted', effective_from: '2026-05-15' });
    expect(r.body.item.instruction).toEqual([expect.objectContaining({ action: 'rezone', target: 'map', from_code: 'R-2', to_code: 'VC' })]);
    expect(r.body.item.notice.map((e: { kind: string }) => e.kind)).toEqual(['map_change', 'map_change']);
    await expectVerbatim(r.body.item);
    expect(r.body.coverage.layer).toEqual(['ordinance', 'ordinance_text']);
    const early = await get(`/ordinance/${id}?as_of=2026-03-01`);
    expect(early.status).toBe(404);
    expect((await get('/ordinance/ord_0000000000000000000a')).status).toBe(404);
    expect((await get('/ordinance/sec_0000000000000000000a')).body.detail.error.code).toBe('id_malformed');
  });
});

describe('GET /moratorium', () => {
  test('the battery storage moratorium: proposed, adopted, in force and expired on the dates of its ordinance and period', async () => {
    const on = async (d: string) => (await get(`/moratorium?${TOWN}&as_of=${d}`)).body.item.map((i: { status: string }) => i.status);
    expect(await on('2026-03-09')).toEqual([]);
    expect(await on('2026-04-01')).toEqual(['proposed']);
    expect(await on('2026-04-14')).toEqual(['adopted']);
    expect(await on('2026-04-15')).toEqual(['in_force']);
    expect(await on('2027-04-14')).toEqual(['in_force']);
    expect(await on('2027-04-15')).toEqual(['expired']);
    const r = await get(`/moratorium?${TOWN}&as_of=2026-06-01`);
    expect(r.body.item[0]).toMatchObject({
      title: 'Temporary Moratorium on Battery Energy Storage Systems',
      use: [{ label: 'Battery energy storage system', slug: 'energy.battery_storage' }],
      area: { kind: 'jurisdiction' },
      effective_from: '2026-04-15',
      effective_through: '2027-04-14',
      adopted_on: '2026-04-14',
      ordinance: { number: '2026-10' },
      subject: ['battery_storage'],
    });
    await expectVerbatim(r.body.item);
    expect((await get(`/moratorium?${TOWN}&as_of=2026-06-01&known_as_of=2026-03-20`)).body.item).toEqual([]);
  });

  test('status and use filters; a parent use matches; a use not in the vocabulary is 422', async () => {
    const ids = async (q: string) => (await get(`/moratorium?${TOWN}&${q}`)).body.item.length;
    expect(await ids('as_of=2026-06-01&status=in_force')).toBe(1);
    expect(await ids('as_of=2026-06-01&status=expired,proposed')).toBe(0);
    expect(await ids('as_of=from:2026-01-01%20to:2026-04-20&status=in_force')).toBe(1);
    expect(await ids('as_of=from:2026-01-01%20to:2026-04-14&status=in_force')).toBe(0);
    expect(await ids('as_of=2026-06-01&use=energy.battery_storage')).toBe(1);
    expect(await ids('as_of=2026-06-01&use=energy')).toBe(1);
    expect(await ids('as_of=2026-06-01&use=residential')).toBe(0);
    const bad = await get(`/moratorium?${TOWN}&use=energy.flux_capacitor`);
    expect(bad.status).toBe(422);
    expect(bad.body.detail.error).toMatchObject({ code: 'vocabulary_value_unknown', field: 'use' });
    const seg = await get(`/moratorium?${TOWN}&as_of=${encodeURIComponent('from:2026-04-01 to:2027-12-31')}`);
    expect(seg.body.item[0].segment.map((s: { status: string }) => s.status)).toEqual(['proposed', 'adopted', 'in_force', 'expired']);
  });
});

describe('GET /law over the town', () => {
  test('words find the moratorium, its ordinance and the sections naming battery storage, each cited verbatim', async () => {
    const r = await get(`/law?${TOWN}&q=battery%20storage&as_of=2026-06-01`);
    expect(r.status).toBe(200);
    const kinds = r.body.item.map((i: { kind: string }) => i.kind);
    expect(kinds).toEqual(expect.arrayContaining(['moratorium', 'ordinance', 'section']));
    expect(r.body.item.find((i: { kind: string }) => i.kind === 'moratorium')).toMatchObject({ status: 'in_force', effective_from: '2026-04-15' });
    for (const i of r.body.item) {
      expect(i.snippet.length).toBeGreaterThan(0);
      expect(i.match.length).toBeGreaterThan(0);
      expect(i.match.map((m: { start: number; end: number }) => i.snippet.slice(m.start, m.end).toLowerCase())).toEqual(expect.arrayContaining([expect.stringMatching(/^(battery|storage)$/)]));
    }
    const ranks = r.body.item.map((i: { rank: number }) => i.rank);
    expect([...ranks].sort((a, b) => b - a)).toEqual(ranks);
    await expectVerbatim(r.body.item);
  });

  test('Section 6.2 is in force through 2026-05-31 and expired from 2026-06-01, repealed by 2026-09', async () => {
    const q = `/law?${TOWN}&q=hydronic%20heaters&kind=section`;
    const may = await get(`${q}&as_of=2026-05-31`);
    expect(may.body.item.find((i: { ref: string }) => i.ref === '6.2')).toMatchObject({ status: 'in_force', effective_through: '2026-05-31' });
    const june = await get(`${q}&as_of=2026-06-01`);
    expect(june.body.item.find((i: { ref: string }) => i.ref === '6.2')).toBeUndefined();
    const expired = await get(`${q}&as_of=2026-06-01&status=expired`);
    const repealed = await get(`/ordinance?${TOWN}&number=2026-09`);
    expect(expired.body.item).toEqual([expect.objectContaining({ ref: '6.2', status: 'expired', ordinance: repealed.body.item[0].id })]);
    const law = await get(`/law/${expired.body.item[0].id}?as_of=2026-05-01`);
    expect(law.body.item).toMatchObject({ object: 'section', ref: '6.2', status: 'in_force' });
    expect(law.body.item.body).toMatch(/^No outdoor wood-fired hydronic heater/);
    expect(law.body.item.body_citation.quote).toBe(law.body.item.body);
    await expectVerbatim(law.body.item);
    expect((await get(`/citation/${law.body.item.body_citation.id}`)).body.item.quote).toBe(law.body.item.body);
    expect((await get(`/law/${expired.body.item[0].id}?as_of=2026-06-01`)).status).toBe(404);
  });

  test('subject, use and adopted cannot be evaluated on sections: indeterminate, counted, left out with include_unknown=false', async () => {
    const r = await get(`/law?${TOWN}&q=solar&subject=solar&as_of=2026-06-01`);
    const out = r.body.item.map((i: { kind: string; filter_outcome: string }) => [i.kind, i.filter_outcome]);
    expect(out).toContainEqual(['ordinance', 'match']);
    expect(out.filter((x: string[]) => x[0] === 'section').every((x: string[]) => x[1] === 'indeterminate')).toBe(true);
    expect(r.body.page.indeterminate).toBe(out.filter((x: string[]) => x[1] === 'indeterminate').length);
    expect(r.body.page.indeterminate).toBeGreaterThan(0);
    const only = await get(`/law?${TOWN}&q=solar&subject=solar&as_of=2026-06-01&include_unknown=false`);
    expect(only.body.item.map((i: { kind: string }) => i.kind)).toEqual(['ordinance']);
    const paused = await get(`/law?${TOWN}&use=energy.battery_storage&include_unknown=false&as_of=2026-06-01`);
    expect(paused.body.item.map((i: { kind: string }) => i.kind)).toEqual(['moratorium']);
  });

  test('/law/{id} answers ordinances and moratoriums; a malformed id is 422', async () => {
    const m = (await get(`/moratorium?${TOWN}`)).body.item[0];
    const r = await get(`/law/${m.id}?as_of=2026-04-14`);
    expect(r.body.item).toMatchObject({ object: 'moratorium', id: m.id, status: 'adopted' });
    const o = await get(`/law/${m.ordinance.id}?as_of=2026-04-01`);
    expect(o.body.item).toMatchObject({ object: 'ordinance', status: 'introduced', number: '2026-10' });
    expect((await get('/law/dst_0000000000000000000a')).body.detail.error.code).toBe('id_malformed');
  });
});

describe('every status alone, on a date and over an interval, is answered', () => {
  test.each([
    ['/law', ['adopted', 'proposed', 'in_force', 'expired']],
    ['/moratorium', ['adopted', 'proposed', 'in_force', 'expired']],
    ['/ordinance', ['proposed', 'introduced', 'adopted', 'failed']],
  ])('%s', async (path, statuses) => {
    for (const status of statuses) {
      for (const asOf of ['2026-06-01', encodeURIComponent('from:2026-01-01 to:2027-12-31')]) {
        const r = await get(`${path}?${TOWN}&status=${status}&as_of=${asOf}`);
        expect([status, asOf, r.status]).toEqual([status, asOf, 200]);
      }
    }
  });
});

describe('scopes', () => {
  test('two scopes at once are 422; a scope holding nothing is 200 with an empty page and coverage saying why', async () => {
    const two = await get(`/ordinance?${TOWN}&state=MA`);
    expect(two.status).toBe(422);
    expect(two.body.detail.error.code).toBe('parameter_invalid');
    const none = await get('/ordinance?state=WY');
    expect(none.status).toBe(200);
    expect(none.body.item).toEqual([]);
    expect(none.body.coverage).toMatchObject({ in_scope: 0, held: 0 });
    const parents = await get('/moratorium?jurisdiction=massachusetts&jurisdiction=middlesex-county-ma');
    expect(parents.status).toBe(200);
    expect(parents.body.item).toEqual([]);
    expect(parents.body.coverage).toMatchObject({ in_scope: 2, held: 0, not_held: { count: 2 } });
    expect(parents.body.layer).toHaveLength(2);
    expect(parents.body.layer[0]).toMatchObject({ layer: 'ordinance', held: false, reason: expect.stringMatching(/no public source of the ordinance layer/) });
    const state = await get('/law?state=MA&q=moratorium');
    expect(state.body.item.length).toBeGreaterThan(0);
    expect(state.body.coverage).toMatchObject({ in_scope: 3, held: 1 });
    expect(state.body.layer.map((l: { jurisdiction: { slug: string } }) => l.jurisdiction.slug).sort()).toEqual(['massachusetts', 'massachusetts', 'middlesex-county-ma', 'middlesex-county-ma']);
  });
});
