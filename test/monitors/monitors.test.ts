// Monitors (/v1/monitor, /monitor/{id}/change_event) over real HTTP, PostGIS and loopback webhook
// receivers, on the synthetic town (EXPECTED.md) ingested through the pipeline: v1, then the
// organizations' lists and monitors, then v2 (a new permit on 2-5, 4-15 rezoned R-2 -> VC, the R-1
// front setback amended), then permit and case feeds the publisher extends (served by the site).
// Every event is matched in the load's own transaction, so after a load the outbox already holds
// exactly what is sent; the receivers then get exactly that. Another organization's monitor is 404
// and none of its events reach another organization.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { RunningServer } from '../../api/server.ts';
import { newId } from '../../core/ids.ts';
import { matchNewRecords } from '../../store/monitors/records.ts';
import { type PipelineHarness, pipelineHarness, syntheticManifests } from '../helpers/pipeline.ts';
import { type Receiver, startReceiver } from '../helpers/receiver.ts';
import { call, createTestOrg, startTestServer } from '../helpers/server.ts';
import { siteFile, type SyntheticSite, startSyntheticSite } from '../helpers/synthetic-site.ts';

const T1 = new Date('2026-03-05T12:00:00Z');
// the v2 change events at watched parcels (EXPECTED.md 1 and 2): layer:district:field_path
const R2 = 'district_map:R-2:district_map.R-2.area';
const VC = 'district_map:VC:district_map.VC.area';
const SETBACK = 'district:R-1:district.R-1.control.dimensional.setback_front';
const TYPES = ['permit.created', 'case.created', 'monitor.parcel.rezoned', 'monitor.rule.amended'];

let site: SyntheticSite;
let h: PipelineHarness;
let server: RunningServer;
let a: Awaited<ReturnType<typeof createTestOrg>>;
let b: Awaited<ReturnType<typeof createTestOrg>>;
let ra: Receiver;
let rb: Receiver;
/** parcel id by MAP_LOT */
const P: Record<string, string> = {};
/** item id by name (organization A's list L) */
const item: Record<string, string> = {};
let listL: string;
let list2: string;
let monL: string;
let mon2: string;
let monB: string;

const q = async (sql: string, values: unknown[] = []) => (await h.pool.query(sql, values)).rows;
const v1 = (method: string, path: string, key: string, body?: unknown) => call(server, method, `/v1${path}`, { key, body });

async function newList(key: string, name: string, sites: Array<{ name: string; parcel: string[]; filter?: object }>) {
  const l = await v1('POST', '/list', key, { name });
  expect(l.status).toBe(201);
  const ids: Record<string, string> = {};
  for (const s of sites) {
    const r = await v1('POST', `/list/${l.body.id}/item`, key, { name: s.name, parcel: s.parcel, ...(s.filter ? { filter: s.filter } : {}) });
    expect(r.status, JSON.stringify(r.body)).toBe(201);
    ids[s.name] = r.body.id;
  }
  return { id: l.body.id as string, items: ids };
}

/** What the outbox holds for an organization, as (type, subject number or district code, item name) */
async function outbox(orgId: string) {
  return q(
    `SELECT v.id, v.type, v.seq, v.payload FROM webhook_event v WHERE v.organization_id = $1 AND v.type = ANY($2) ORDER BY v.created_at, v.id`,
    [orgId, TYPES],
  );
}

const describeEvent = (type: string, data: any) => {
  const subject = data.permit?.number ?? data.case?.number ?? `${data.change_event.layer}:${data.district.code}:${data.change_event.field_path}`;
  return `${type} ${subject} @${data.item.name} ${data.parcel.map((p: any) => p.number).join('+')} ${data.monitor.id}`;
};

/** A feed as published, with records added (and some changed). */
function extended(path: string, version: 1 | 2, key: 'records' | 'cases', add: object[], change: (r: any) => any = (r) => r) {
  const feed = JSON.parse(siteFile(version, path)!.bytes.toString('utf8'));
  feed[key] = [...feed[key].map(change), ...add];
  if ('record_count' in feed) feed.record_count = feed[key].length;
  return JSON.stringify(feed, null, 1);
}

function permit(no: string, lot: string, type: string, address: string) {
  const base = JSON.parse(siteFile(2, '/permits/feed.json')!.bytes.toString('utf8')).records.find((r: any) => r.permit_no === 'BP-2026-0071');
  return { ...base, permit_no: no, map_lot: lot, permit_type: type, permit_type_desc: type, site_address: address, record_url: `/permits/${no}` };
}

function caseRecord(no: string, lot: string, address: string) {
  const base = JSON.parse(siteFile(2, '/cases/feed.json')!.bytes.toString('utf8')).cases.find((r: any) => r.case_no === 'PB-2025-11');
  return { ...base, case_no: no, map_lot: lot, address, filed: '2026-05-01', hearing: null, document_url: null };
}

async function webhook(key: string, url: string) {
  const r = await call(server, 'POST', '/webhook', { key, body: { url, event_type: TYPES, retry_policy: { backoff: 'fixed', base_seconds: 1, jitter: false } } });
  expect(r.status).toBe(201);
}

/** Wait until every delivery of the organization's webhooks succeeded, then the receiver's 2xx calls' event ids. */
async function drained(orgId: string, r: Receiver) {
  const end = Date.now() + 30_000;
  for (;;) {
    const [{ n }] = await q(`SELECT count(*)::int AS n FROM webhook_delivery WHERE organization_id = $1 AND state <> 'succeeded'`, [orgId]);
    if (n === 0) break;
    if (Date.now() > end) throw new Error(`${n} deliveries still pending`);
    await new Promise((res) => setTimeout(res, 50));
  }
  return r.delivered().map((c) => c.json.id as string);
}

beforeAll(async () => {
  site = await startSyntheticSite({ version: 1 });
  h = await pipelineHarness('monitors', { manifestDir: await syntheticManifests(site.url) });
  await h.ingest(['millbrook-ma'], { now: T1 });
  server = await startTestServer({ DATABASE_URL: h.url, RATE_LIMIT_PER_SECOND: '100000' });
  a = await createTestOrg(server, 1000);
  b = await createTestOrg(server, 1000);
  for (const r of await q(`SELECT DISTINCT p.id, p.parcel_key FROM parcel p JOIN jurisdiction j ON j.id = p.jurisdiction_id WHERE j.slug = 'millbrook-ma'`)) P[r.parcel_key] = r.id;
  ra = await startReceiver();
  rb = await startReceiver();
  await webhook(a.apiKey, ra.url);
  await webhook(b.apiKey, rb.url);
}, 180_000);
afterAll(async () => {
  await server?.close();
  await ra?.close();
  await rb?.close();
  await h?.close();
  await site?.close();
});

describe('monitors', () => {
  test('create (201), the same list again (200, unchanged), read, list newest first; 422 naming list; another organization is 404', async () => {
    const l = await newList(a.apiKey, 'Watched', [
      { name: 'adu', parcel: [P['2-5']] },
      { name: 'rezoned', parcel: [P['4-15']] },
      { name: 'neighbor', parcel: [P['4-11']] },
      { name: 'late', parcel: [P['2-4']] },
      { name: 'typed', parcel: [P['1-8']], filter: { kind: ['permit'], type: ['elec-res'] } },
      { name: 'caseonly', parcel: [P['6-1']], filter: { kind: 'case' } },
    ]);
    listL = l.id;
    Object.assign(item, l.items);
    const made = await v1('POST', '/monitor', a.apiKey, { list: listL });
    expect(made.status).toBe(201);
    expect(made.body).toMatchObject({ object: 'monitor', id: expect.stringMatching(/^mon_/), list: listL, active: true, href: `/v1/monitor/${made.body.id}` });
    monL = made.body.id;
    const again = await v1('POST', '/monitor', a.apiKey, { list: listL, active: false });
    expect([again.status, again.body]).toEqual([200, made.body]);
    expect((await v1('GET', `/monitor/${monL}`, a.apiKey)).body).toEqual(made.body);

    list2 = (await newList(a.apiKey, 'Paused', [{ name: 'adu2', parcel: [P['2-5']] }])).id;
    const paused = await v1('POST', '/monitor', a.apiKey, { list: list2, active: false });
    expect([paused.status, paused.body.active]).toEqual([201, false]);
    mon2 = paused.body.id;
    const all = await v1('GET', '/monitor', a.apiKey);
    expect(all.body).toMatchObject({ object: 'list', has_more: false });
    expect(all.body.data.map((m: any) => m.id)).toEqual([mon2, monL]);

    const listB = (await newList(b.apiKey, 'B sites', [{ name: 'b-adu', parcel: [P['2-5']] }, { name: 'b-rezoned', parcel: [P['4-15']] }])).id;
    monB = (await v1('POST', '/monitor', b.apiKey, { list: listB })).body.id;

    const refusal = (r: any) => [r.status, r.body.code, r.body.errors?.[0]?.field ?? r.body.field];
    // a body naming no list of the caller's is a parameter not accepted (spec 1.2.3: 404 is for path ids)
    expect(refusal(await v1('POST', '/monitor', b.apiKey, { list: listL }))).toEqual([422, 'parameter_invalid', 'list']);
    expect(refusal(await v1('POST', '/monitor', a.apiKey, { list: newId('list') }))).toEqual([422, 'parameter_invalid', 'list']);
    expect(refusal(await v1('POST', '/monitor', a.apiKey, { list: 'nope' }))).toEqual([422, 'id_malformed', 'list']);
    expect(refusal(await v1('POST', '/monitor', a.apiKey, {}))[0]).toBe(422);
    for (const [m, p] of [['GET', `/v1/monitor/${monL}`], ['PATCH', `/v1/monitor/${monL}`], ['DELETE', `/v1/monitor/${monL}`], ['GET', `/monitor/${monL}/change_event`]]) {
      const r = await call(server, m, p, { key: b.apiKey, body: m === 'PATCH' ? { active: false } : undefined });
      expect([m, p, r.status], JSON.stringify(r.body)).toEqual([m, p, 404]);
    }
    expect((await v1('GET', '/monitor', b.apiKey)).body.data.map((m: any) => m.id)).toEqual([monB]);
    expect((await v1('GET', `/monitor/${monL}`, a.apiKey)).body.active).toBe(true);
  });

  test('v2: the new permit on a watched parcel, the rezoning of 4-15 and the R-1 amendment (two change events) arrive; nothing for the neighbor, the paused monitor or another organization', async () => {
    site.setVersion(2);
    await h.ingest(['millbrook-ma']);
    const held = await outbox(a.organizationId);
    const seen = held.map((e) => describeEvent(e.type, e.payload)).sort();
    expect(seen).toEqual(
      [
        `permit.created BP-2026-0071 @adu 2-5 ${monL}`,
        `monitor.parcel.rezoned ${R2} @rezoned 4-15 ${monL}`,
        `monitor.parcel.rezoned ${VC} @rezoned 4-15 ${monL}`,
        `monitor.rule.amended ${SETBACK}.min_value @adu 2-5 ${monL}`,
        `monitor.rule.amended ${SETBACK}.value_text @adu 2-5 ${monL}`,
        `monitor.rule.amended ${SETBACK}.min_value @late 2-4 ${monL}`,
        `monitor.rule.amended ${SETBACK}.value_text @late 2-4 ${monL}`,
      ].sort(),
    );
    // the law's events carry the change event and its seq, as the feed holds it
    for (const e of held.filter((x) => x.type !== 'permit.created')) {
      const [ce] = await q('SELECT seq, layer, kind, effective_date::text AS day FROM change_event WHERE id = $1', [e.payload.change_event.id]);
      expect(Number(e.seq)).toBe(Number(ce.seq));
      expect(e.payload.change_event).toMatchObject({ seq: Number(ce.seq), layer: ce.layer, kind: ce.kind, effective_date: ce.day });
    }
    const rezoned = held.find((e) => e.type === 'monitor.parcel.rezoned')!.payload;
    expect(rezoned.change_event).toMatchObject({ kind: 'map_change', effective_date: '2026-05-15' });
    const amended = held.find((e) => e.type === 'monitor.rule.amended')!.payload;
    expect(amended.change_event).toMatchObject({ kind: 'amendment', layer: 'district', subject: { type: 'control', district: 'R-1' }, effective_date: '2026-05-01' });
    // the permit as the record is served, by id and href
    const p = held.find((e) => e.type === 'permit.created')!.payload;
    expect(p.permit).toMatchObject({ object: 'permit', number: 'BP-2026-0071', type: { code: 'BLDG-RES-ADU' }, href: `/v1/permit/${p.permit.id}` });
    expect((await call(server, 'GET', p.permit.href, { key: a.apiKey })).body).toMatchObject({ id: p.permit.id, number: 'BP-2026-0071' });
    expect(p).toMatchObject({ monitor: { id: monL }, list: { id: listL }, item: { id: item.adu, name: 'adu' }, parcel: [{ id: P['2-5'], number: '2-5' }] });

    // organization B: its own monitor's events only (the permit on 2-5, 4-15's rezoning; its sites were added after nothing)
    const other = (await outbox(b.organizationId)).map((e) => describeEvent(e.type, e.payload)).sort();
    expect(other).toEqual(
      [
        `permit.created BP-2026-0071 @b-adu 2-5 ${monB}`,
        `monitor.parcel.rezoned ${R2} @b-rezoned 4-15 ${monB}`,
        `monitor.parcel.rezoned ${VC} @b-rezoned 4-15 ${monB}`,
        `monitor.rule.amended ${SETBACK}.min_value @b-adu 2-5 ${monB}`,
        `monitor.rule.amended ${SETBACK}.value_text @b-adu 2-5 ${monB}`,
      ].sort(),
    );

    // the receivers get exactly what the outbox held, signed, each event once, with the event's seq
    expect((await drained(a.organizationId, ra)).sort()).toEqual(held.map((e) => e.id).sort());
    expect((await drained(b.organizationId, rb)).sort()).toEqual((await outbox(b.organizationId)).map((e) => e.id).sort());
    for (const c of [...ra.delivered(), ...rb.delivered()]) expect(c.headers['webhook-signature']).toMatch(/^v1,/);
    const rz = ra.delivered().find((c) => c.json.type === 'monitor.parcel.rezoned')!.json;
    expect(rz.seq).toBe(rz.data.change_event.seq);
    expect(ra.delivered().some((c) => JSON.stringify(c.json).includes(monB))).toBe(false);
    expect(rb.delivered().some((c) => JSON.stringify(c.json).includes(monL) || JSON.stringify(c.json).includes(mon2))).toBe(false);
  }, 180_000);

  test('the matches listed newest first, paged, each naming the event it produced; kind filters', async () => {
    const all: any[] = [];
    let cursor: string | null = null;
    do {
      const r: any = await call(server, 'GET', `/monitor/${monL}/change_event?size=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`, { key: a.apiKey });
      expect(r.status).toBe(200);
      expect(r.body.object).toBe('list');
      all.push(...r.body.data);
      cursor = r.body.next_cursor;
    } while (cursor);
    const held = await outbox(a.organizationId);
    expect(all.map((m) => m.event).sort()).toEqual(held.map((e) => e.id).sort());
    const times = all.map((m) => Date.parse(m.matched_at));
    expect(times).toEqual([...times].sort((x, y) => y - x));
    const permitMatch = all.find((m) => m.kind === 'permit');
    expect(permitMatch).toMatchObject({ type: 'permit.created', record: { object: 'permit', number: 'BP-2026-0071' }, change_event: null, seq: null, item: { id: item.adu }, parcel: [{ id: P['2-5'] }] });
    const law = all.filter((m) => m.kind === 'law');
    expect(law).toHaveLength(6);
    for (const m of law) {
      expect(m.record).toBeNull();
      expect(m.seq).toBe(m.change_event.seq);
      expect(m.change_event.href).toBe(`/change_event/${m.change_event.id}`);
    }
    const onlyLaw = await call(server, 'GET', `/monitor/${monL}/change_event?kind=law&size=200`, { key: a.apiKey });
    expect(onlyLaw.body.data.map((m: any) => m.event).sort()).toEqual(law.map((m) => m.event).sort());
  });

  test('feeds extended: new records on watched parcels arrive (the filter applied); a re-read or changed record, an unwatched parcel and the filtered-out records do not', async () => {
    // the paused monitor resumes before this load
    const resumed = await v1('PATCH', `/monitor/${mon2}`, a.apiKey, { active: true });
    expect([resumed.status, resumed.body.active]).toEqual([200, true]);
    const before = new Set((await outbox(a.organizationId)).map((e) => e.id));
    site.serve(
      '/permits/feed.json',
      extended(
        '/permits/feed.json',
        2,
        'records',
        [
          permit('BP-2026-0300', '2-4', 'BLDG-RES-ADD', '113 Main St'), // late: added after BP-2025-0102 was loaded, gets this one
          permit('BP-2026-0301', '7-1', 'BLDG-COM-ALT', '300 Main St'), // nobody watches 7-1
          permit('BP-2026-0302', '1-8', 'BLDG-RES-ADD', '20 Orchard Ln'), // typed: not an ELEC-RES permit
          permit('EL-2026-0303', '1-8', 'ELEC-RES', '20 Orchard Ln'), // typed: passes (codes compared in any case)
          permit('BP-2026-0304', '6-1', 'SIGN', '301 Main St'), // caseonly: not a case
          permit('BP-2026-0308', '2-5', 'BLDG-RES-ALT', '104 Main St'), // adu, and the resumed monitor's adu2
        ],
        // BP-2025-0102 (2-4) changes status: a record read again is not new
        (r) => (r.permit_no === 'BP-2025-0102' ? { ...r, status: 'CLOSED', status_desc: 'Closed' } : r),
      ),
    );
    site.serve('/cases/feed.json', extended('/cases/feed.json', 2, 'cases', [caseRecord('PB-2026-02', '6-1', '301 Main St')]));
    await h.ingest(['millbrook-ma']);
    const fresh = (await outbox(a.organizationId)).filter((e) => !before.has(e.id));
    expect(fresh.map((e) => describeEvent(e.type, e.payload)).sort()).toEqual(
      [
        `permit.created BP-2026-0300 @late 2-4 ${monL}`,
        `permit.created EL-2026-0303 @typed 1-8 ${monL}`,
        `permit.created BP-2026-0308 @adu 2-5 ${monL}`,
        `permit.created BP-2026-0308 @adu2 2-5 ${mon2}`,
        `case.created PB-2026-02 @caseonly 6-1 ${monL}`,
      ].sort(),
    );
    const c = fresh.find((e) => e.type === 'case.created')!.payload;
    expect(c.case).toMatchObject({ object: 'case', number: 'PB-2026-02', href: `/v1/case/${c.case.id}` });
    const [changed] = await q(`SELECT count(*)::int AS n FROM land_record WHERE number = 'BP-2025-0102'`);
    expect(changed.n).toBeGreaterThan(1); // it was read again, changed, and still not sent
    expect((await drained(a.organizationId, ra)).sort()).toEqual((await outbox(a.organizationId)).map((e) => e.id).sort());
    expect(ra.delivered().find((x) => x.json.type === 'case.created')!.json.data.case.number).toBe('PB-2026-02');
  }, 180_000);

  test('a parcel added after a record was loaded does not get that record, but gets the next', async () => {
    const added = await v1('POST', `/list/${listL}/item`, a.apiKey, { name: 'later', parcel: [P['7-1']] });
    expect(added.status).toBe(201);
    const [{ id: old }] = await q(`SELECT DISTINCT id FROM land_record WHERE number = 'BP-2026-0301'`);
    // matching the earlier record again, as of when it was loaded, finds no site watching 7-1 then
    const [{ loaded }] = await q('SELECT min(lower(known)) AS loaded FROM land_record WHERE id = $1', [old]);
    expect(await matchNewRecords(h.pool, [old], loaded)).toBe(0);
    const before = new Set((await outbox(a.organizationId)).map((e) => e.id));
    site.serve(
      '/permits/feed.json',
      extended('/permits/feed.json', 2, 'records', [
        permit('BP-2026-0300', '2-4', 'BLDG-RES-ADD', '113 Main St'),
        permit('BP-2026-0301', '7-1', 'BLDG-COM-ALT', '300 Main St'),
        permit('BP-2026-0302', '1-8', 'BLDG-RES-ADD', '20 Orchard Ln'),
        permit('EL-2026-0303', '1-8', 'ELEC-RES', '20 Orchard Ln'),
        permit('BP-2026-0304', '6-1', 'SIGN', '301 Main St'),
        permit('BP-2026-0308', '2-5', 'BLDG-RES-ALT', '104 Main St'),
        permit('BP-2026-0309', '7-1', 'BLDG-COM-ALT', '300 Main St'),
      ]),
    );
    await h.ingest(['millbrook-ma']);
    const fresh = (await outbox(a.organizationId)).filter((e) => !before.has(e.id));
    expect(fresh.map((e) => describeEvent(e.type, e.payload))).toEqual([`permit.created BP-2026-0309 @later 7-1 ${monL}`]);
    await drained(a.organizationId, ra);
    expect(ra.delivered().filter((x) => x.json.data.permit?.number === 'BP-2026-0301')).toHaveLength(0);
  }, 180_000);

  test('stop: 204, then 404; the list can be monitored anew; a deleted list takes its monitor; organization B received none of A', async () => {
    expect((await v1('DELETE', `/monitor/${mon2}`, a.apiKey)).status).toBe(204);
    expect((await v1('GET', `/monitor/${mon2}`, a.apiKey)).status).toBe(404);
    expect((await v1('PATCH', `/monitor/${mon2}`, a.apiKey, { active: true })).status).toBe(404);
    expect((await v1('DELETE', `/monitor/${mon2}`, a.apiKey)).status).toBe(404);
    const anew = await v1('POST', '/monitor', a.apiKey, { list: list2 });
    expect(anew.status).toBe(201);
    expect(anew.body.id).not.toBe(mon2);
    // deleting a list takes its monitor with it
    expect((await v1('DELETE', `/list/${list2}`, a.apiKey)).status).toBe(204);
    expect((await v1('GET', `/monitor/${anew.body.id}`, a.apiKey)).status).toBe(404);
    const orgs = await q(`SELECT DISTINCT d.organization_id FROM webhook_delivery d JOIN webhook_event v ON v.id = d.event_id WHERE v.payload->'monitor'->>'id' = ANY($1)`, [[monL, mon2]]);
    expect(orgs.map((r) => r.organization_id)).toEqual([a.organizationId]);
    expect(rb.delivered().every((c) => c.json.data.monitor.id === monB)).toBe(true);
  });
});
