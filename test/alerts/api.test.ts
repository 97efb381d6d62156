// Alerts over HTTP (spec 4.9, 6.4, 8): create, list (newest first, cursors), read with an ETag,
// change and delete under If-Match; Idempotency-Key replays the first answer for 24 hours; every
// bad field is a 422 naming it; another organization's alert is 404, never 403.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { type Call, call } from '../helpers/server.ts';
import { type AlertWorld, alertWorld, createAlert, createWebhook, draft } from './context.ts';

let w: AlertWorld;
let webhookId: string;
let otherWebhookId: string;
let otherRegion: string;

const BASE = { name: 'Rezonings in Alerton', predicate: { layer: ['district_map'] } };
const post = (body: object, headers: Record<string, string> = {}, key = w.key) => call(w.server, 'POST', '/alert', { key, body, headers });
const refusal = (r: Call) => ({ status: r.status, code: r.body?.detail?.error?.code, field: r.body?.detail?.error?.field });

beforeAll(async () => {
  w = await alertWorld('alert_api');
  webhookId = (await createWebhook(w, 'http://127.0.0.1:9/hook')).id;
  otherWebhookId = (await createWebhook(w, 'http://127.0.0.1:9/other', w.otherKey)).id;
  const region = await call(w.server, 'POST', '/region', { key: w.otherKey, body: { name: 'Theirs', member: [w.jur] } });
  otherRegion = region.body.item.id;
});
afterAll(async () => {
  await w?.close();
});

describe('create, read, list', () => {
  test('created with defaults, read back with an ETag', async () => {
    const r = await post({ ...BASE, channel: [{ type: 'webhook', webhook: webhookId }, { type: 'email', to: 'planner@example.test' }] });
    expect(r.status).toBe(201);
    const a = r.body.item;
    expect(a).toMatchObject({
      object: 'alert',
      name: BASE.name,
      predicate: BASE.predicate,
      predicate_version: 1,
      trigger: ['entry'],
      channel: [{ type: 'webhook', webhook: webhookId }, { type: 'email', to: 'planner@example.test', target: 'planner@example.test' }],
      schedule: 'immediate',
      timezone: 'UTC',
      end_time: null,
      enabled: true,
      unread_count: 0,
      href: `/alert/${a.id}`,
    });
    expect(a.id).toMatch(/^alr_[0-9a-z]{20}$/);
    expect(r.headers.get('location')).toBe(`/alert/${a.id}`);
    expect(r.headers.get('etag')).toBe(`"${a.id}.1"`);
    const got = await call(w.server, 'GET', a.href, { key: w.key });
    expect(got.status).toBe(200);
    expect(got.body.item).toEqual(a);
    expect(got.headers.get('etag')).toBe(`"${a.id}.1"`);
  });

  test('every field as given: a digest in a timezone, an end time, disabled, a scope and uses', async () => {
    const body = {
      name: 'Housing in MA, weekly',
      predicate: { state: 'MA', kind: ['amendment', 'adoption'], use: ['residential.dwelling'], control_type: ['dimensional.setback_front'] },
      trigger: ['entry'],
      channel: [],
      schedule: 'weekly friday 07:30',
      timezone: 'America/Chicago',
      end_time: '2031-01-01T00:00:00Z',
      enabled: false,
    };
    const a = (await post(body)).body.item;
    expect(a).toMatchObject({ ...body, end_time: '2031-01-01T00:00:00.000Z' });
    const daily = (await post({ ...BASE, schedule: 'daily 18:00', timezone: 'europe/paris' })).body.item;
    expect(daily.schedule).toBe('daily 18:00');
    expect(daily.timezone).toBe('Europe/Paris');
    expect((await post({ ...BASE, schedule: 'immediate' })).body.item.schedule).toBe('immediate');
  });

  test('a schedule is read case-insensitively and answered lower case, as stored', async () => {
    for (const [given, answered, stored] of [
      ['  Weekly  FRIDAY 7:30 ', 'weekly friday 07:30', { kind: 'digest', every: 'week', at: '07:30', day: 'friday' }],
      ['DAILY 06:05', 'daily 06:05', { kind: 'digest', every: 'day', at: '06:05' }],
      ['Immediate', 'immediate', { kind: 'immediate' }],
    ] as const) {
      const a = (await post({ ...BASE, schedule: given })).body.item;
      expect(a.schedule).toBe(answered);
      expect((await call(w.server, 'GET', a.href, { key: w.key })).body.item.schedule).toBe(answered);
      const row = await w.server.services.pool.query('SELECT schedule FROM alert WHERE id = $1', [a.id]);
      expect(row.rows[0].schedule).toEqual(stored);
    }
  });

  test('a weekly schedule without a day is refused, naming schedule, with the grammar and what was wrong', async () => {
    const r = await post({ ...BASE, schedule: 'weekly 07:30' });
    expect(refusal(r)).toEqual({ status: 422, code: 'parameter_invalid', field: 'schedule' });
    expect(r.body.detail.error.detail).toContain('weekly needs a day (monday to sunday)');
    expect(r.body.detail.error.detail).toContain('weekly <monday..sunday> HH:MM');
    const old = await post({ ...BASE, schedule: { kind: 'digest', every: 'week', at: '06:00' } });
    expect(refusal(old)).toEqual({ status: 422, code: 'parameter_invalid', field: 'schedule' });
  });

  test('listed newest first, a page at a time; another organization sees none of them', async () => {
    const made: string[] = [];
    for (const name of ['one', 'two', 'three']) made.push((await createAlert(w, { ...BASE, name }, w.otherKey)).id);
    const first = await call(w.server, 'GET', '/alert?size=2', { key: w.otherKey });
    expect(first.status).toBe(200);
    expect(first.body.item.map((a: { id: string }) => a.id)).toEqual([made[2], made[1]]);
    const next = await call(w.server, 'GET', `/alert?size=2&cursor=${encodeURIComponent(first.body.page.next_cursor)}`, { key: w.otherKey });
    expect(next.body.item.map((a: { id: string }) => a.id)).toEqual([made[0]]);
    expect(next.body.page.next_cursor ?? null).toBeNull();
    const mine = await call(w.server, 'GET', '/alert?size=200', { key: w.key });
    expect(mine.body.item.length).toBeGreaterThan(0);
    expect(mine.body.item.some((a: { id: string }) => made.includes(a.id))).toBe(false);
  });
});

describe('Idempotency-Key', () => {
  test('the same key and body replay the first answer and create nothing more; after 24 hours the key is free again', async () => {
    const key = `idem-${Date.now()}`;
    const body = { ...BASE, name: `Replayed ${key}` };
    const first = await post(body, { 'Idempotency-Key': key });
    expect(first.status).toBe(201);
    const again = await post(body, { 'Idempotency-Key': key });
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body).toEqual(first.body);
    expect(again.headers.get('etag')).toBe(first.headers.get('etag'));
    const named = async () => (await call(w.server, 'GET', '/alert?size=200', { key: w.key })).body.item.filter((a: { name: string }) => a.name === body.name);
    expect(await named()).toHaveLength(1);
    const other = await post({ ...body, name: 'something else' }, { 'Idempotency-Key': key });
    expect(refusal(other)).toEqual({ status: 422, code: 'idempotency_key_reused', field: 'Idempotency-Key' });
    // 24 hours on, the first answer is no longer kept: the same request creates again
    await w.server.services.pool.query(`UPDATE idempotency_record SET created_at = now() - interval '24 hours 1 minute' WHERE key = $1`, [key]);
    const later = await post(body, { 'Idempotency-Key': key });
    expect(later.status).toBe(201);
    expect(later.headers.get('idempotent-replayed')).toBeNull();
    expect(later.body.item.id).not.toBe(first.body.item.id);
    expect(await named()).toHaveLength(2);
  });
});

describe('change and delete', () => {
  test('PATCH under If-Match: fields replaced, predicate_version raised only by a new predicate, end_time null clears; stale is 409', async () => {
    const made = await post({ ...BASE, end_time: '2030-01-01T00:00:00Z' });
    const a = made.body.item;
    const etag = made.headers.get('etag')!;
    const renamed = await call(w.server, 'PATCH', a.href, { key: w.key, body: { name: 'Renamed', end_time: null, enabled: false }, headers: { 'If-Match': etag } });
    expect(renamed.status).toBe(200);
    expect(renamed.body.item).toMatchObject({ name: 'Renamed', end_time: null, enabled: false, predicate: BASE.predicate, predicate_version: 1, version: 2 });
    expect(renamed.headers.get('etag')).toBe(`"${a.id}.2"`);
    const stale = await call(w.server, 'PATCH', a.href, { key: w.key, body: { name: 'Lost' }, headers: { 'If-Match': etag } });
    expect(refusal(stale)).toEqual({ status: 409, code: 'version_conflict', field: 'If-Match' });
    const repredicated = await call(w.server, 'PATCH', a.href, { key: w.key, body: { predicate: { layer: ['overlay'] }, schedule: 'Daily 8:00' }, headers: { 'If-Match': renamed.headers.get('etag')! } });
    expect(repredicated.body.item).toMatchObject({ predicate: { layer: ['overlay'] }, predicate_version: 2, schedule: 'daily 08:00', name: 'Renamed' });
    const same = await call(w.server, 'PATCH', a.href, { key: w.key, body: { predicate: { layer: ['overlay'] } } });
    expect(same.body.item.predicate_version).toBe(2);
    const bad = await call(w.server, 'PATCH', a.href, { key: w.key, body: { channel: [{ type: 'webhook', webhook: otherWebhookId }] } });
    expect(refusal(bad)).toEqual({ status: 422, code: 'parameter_invalid', field: 'channel[0].webhook' });
  });

  test('DELETE under If-Match: 409 when stale, then 204; the alert is gone', async () => {
    const made = await post(BASE);
    const a = made.body.item;
    await call(w.server, 'PATCH', a.href, { key: w.key, body: { name: 'Moved on' } });
    const stale = await call(w.server, 'DELETE', a.href, { key: w.key, headers: { 'If-Match': made.headers.get('etag')! } });
    expect(refusal(stale)).toEqual({ status: 409, code: 'version_conflict', field: 'If-Match' });
    const done = await call(w.server, 'DELETE', a.href, { key: w.key, headers: { 'If-Match': `"${a.id}.2"` } });
    expect(done.status).toBe(204);
    expect((await call(w.server, 'GET', a.href, { key: w.key })).status).toBe(404);
    expect((await call(w.server, 'DELETE', a.href, { key: w.key })).status).toBe(404);
    const listed = await call(w.server, 'GET', '/alert?size=200', { key: w.key });
    expect(listed.body.item.some((x: { id: string }) => x.id === a.id)).toBe(false);
  });

  test("another organization's alert is 404 on every operation, never 403", async () => {
    const a = await createAlert(w, BASE);
    for (const [method, path, body] of [
      ['GET', a.href, undefined],
      ['PATCH', a.href, { name: 'Taken' }],
      ['DELETE', a.href, undefined],
      ['GET', `${a.href}/match`, undefined],
      ['POST', `${a.href}/read`, {}],
    ] as const) {
      const r = await call(w.server, method, path, { key: w.otherKey, body });
      expect(refusal(r)).toEqual({ status: 404, code: 'no_such_resource', field: 'alert' });
    }
    expect((await call(w.server, 'GET', a.href, { key: w.key })).body.item.name).toBe(BASE.name);
    expect(refusal(await call(w.server, 'GET', '/alert/alr_nope', { key: w.key }))).toEqual({ status: 422, code: 'id_malformed', field: 'alert' });
  });
});

describe('reading matches', () => {
  const unread = async (a: { href: string }, key = w.key) => (await call(w.server, 'GET', a.href, { key })).body.item.unread_count;
  const log = async (a: { href: string }) => (await call(w.server, 'GET', `${a.href}/match?size=200`, { key: w.key })).body.item as Array<{ id: number }>;
  const read = (a: { href: string }, body?: object, key = w.key) => call(w.server, 'POST', `${a.href}/read`, { key, body });

  test('GET of the match log changes nothing; POST read marks read through a match, then through the newest', async () => {
    const a = await createAlert(w, { name: 'Read me', predicate: { jurisdiction: [w.ctJur] } });
    await w.emit([draft(w.ctJur), draft(w.ctJur), draft(w.ctJur)]);
    expect(await unread(a)).toBe(3);
    const first = await log(a);
    expect(first).toHaveLength(3);
    expect(first[0].id).toBeGreaterThan(first[1].id);
    // reading the log (twice, a page at a time too) leaves every match unread
    await log(a);
    await call(w.server, 'GET', `${a.href}/match?size=1`, { key: w.key });
    expect(await unread(a)).toBe(3);
    const etag = (await call(w.server, 'GET', a.href, { key: w.key })).headers.get('etag');

    // through the middle match: it and the older one are read, the newest is not
    const some = await read(a, { through: first[1].id });
    expect(some.status).toBe(200);
    expect(some.body.item).toMatchObject({ id: a.id, object: 'alert', unread_count: 1, match_count: 3 });
    expect(some.headers.get('etag')).toBe(etag);
    expect(await unread(a)).toBe(1);
    // an older through never unmarks
    expect((await read(a, { through: first[2].id })).body.item.unread_count).toBe(1);
    // a match arriving later stays unread when read through the newest seen
    await w.emit([draft(w.ctJur)]);
    expect(await unread(a)).toBe(2);
    expect((await read(a, { through: first[0].id })).body.item.unread_count).toBe(1);
    // no body: through the newest match
    const all = await read(a);
    expect(all.status).toBe(200);
    expect(all.body.item.unread_count).toBe(0);
    expect(await unread(a)).toBe(0);
    expect((await read(a, {})).body.item.unread_count).toBe(0);
  });

  test('an alert with no matches reads as none unread; a through of another alert or of none is 422 naming through', async () => {
    const empty = await createAlert(w, { name: 'Nothing yet', predicate: { layer: ['authority'], jurisdiction: [w.jur] } });
    const none = await read(empty);
    expect(none.status).toBe(200);
    expect(none.body.item.unread_count).toBe(0);
    const busy = await createAlert(w, { name: 'Busy', predicate: { jurisdiction: [w.ctJur] } });
    await w.emit([draft(w.ctJur)]);
    const [m] = await log(busy);
    expect(refusal(await read(empty, { through: m.id }))).toEqual({ status: 422, code: 'parameter_invalid', field: 'through' });
    expect(refusal(await read(busy, { through: m.id + 1_000_000 }))).toEqual({ status: 422, code: 'parameter_invalid', field: 'through' });
    expect(refusal(await read(busy, { through: 'newest' }))).toEqual({ status: 422, code: 'parameter_invalid', field: 'through' });
    expect(refusal(await read(busy, { since: 1 }))).toEqual({ status: 422, code: 'parameter_invalid', field: 'since' });
    expect(await unread(busy)).toBe(1);
  });

  test("another organization's alert is 404 and stays unread", async () => {
    const a = await createAlert(w, { name: 'Not theirs', predicate: { jurisdiction: [w.ctJur] } });
    await w.emit([draft(w.ctJur)]);
    const [m] = await log(a);
    expect(refusal(await read(a, { through: m.id }, w.otherKey))).toEqual({ status: 404, code: 'no_such_resource', field: 'alert' });
    expect(refusal(await read(a, undefined, w.otherKey))).toEqual({ status: 404, code: 'no_such_resource', field: 'alert' });
    expect(await unread(a)).toBe(1);
  });
});

describe('every bad field is a 422 naming it', () => {
  const cases: Array<[string, object, string, string]> = [
    ['no name', { predicate: {} }, 'parameter_invalid', 'name'],
    ['a blank name', { ...BASE, name: '   ' }, 'parameter_invalid', 'name'],
    ['no predicate', { name: 'x' }, 'parameter_invalid', 'predicate'],
    ['an unknown layer', { ...BASE, predicate: { layer: ['district', 'roads'] } }, 'vocabulary_value_unknown', 'predicate.layer[1]'],
    ['an unknown kind', { ...BASE, predicate: { kind: ['rumour'] } }, 'vocabulary_value_unknown', 'predicate.kind[0]'],
    ['a jurisdiction not held', { ...BASE, predicate: { jurisdiction: ['alerton-ma', 'atlantis'] } }, 'parameter_invalid', 'predicate.jurisdiction[1]'],
    ['a state that is none', { ...BASE, predicate: { state: 'ZZ' } }, 'vocabulary_value_unknown', 'predicate.state'],
    ['a county that is no FIPS', { ...BASE, predicate: { county: 'Middlesex' } }, 'parameter_invalid', 'predicate.county'],
    ['two scopes', { ...BASE, predicate: { state: 'MA', county: '25017' } }, 'parameter_invalid', 'predicate.county'],
    ['a region of another organization', { ...BASE, predicate: { region: 'REGION' } }, 'parameter_invalid', 'predicate.region'],
    ['a malformed region', { ...BASE, predicate: { region: 'rgn_?' } }, 'id_malformed', 'predicate.region'],
    ['a geometry (not a predicate field)', { ...BASE, predicate: { geometry: 'POINT(0 0)' } }, 'parameter_invalid', 'predicate.geometry'],
    ['an unknown use', { ...BASE, predicate: { use: ['residential.dwelling', 'residential.castle'] } }, 'vocabulary_value_unknown', 'predicate.use[1]'],
    ['a control type of no form', { ...BASE, predicate: { control_type: ['Front Setback'] } }, 'parameter_invalid', 'predicate.control_type[0]'],
    ['an unknown trigger', { ...BASE, trigger: ['exit'] }, 'vocabulary_value_unknown', 'trigger[0]'],
    ['an unknown channel type', { ...BASE, channel: [{ type: 'sms', to: '555' }] }, 'vocabulary_value_unknown', 'channel[0].type'],
    ["another organization's webhook", { ...BASE, channel: [{ type: 'email', to: 'a@example.test' }, { type: 'webhook', webhook: 'OTHER' }] }, 'parameter_invalid', 'channel[1].webhook'],
    ['a malformed webhook id', { ...BASE, channel: [{ type: 'webhook', webhook: 'hook-1' }] }, 'id_malformed', 'channel[0].webhook'],
    ['a webhook channel without its webhook', { ...BASE, channel: [{ type: 'webhook' }] }, 'parameter_invalid', 'channel[0].webhook'],
    ['a webhook channel with an address', { ...BASE, channel: [{ type: 'webhook', webhook: 'MINE', to: 'a@example.test' }] }, 'parameter_invalid', 'channel[0].to'],
    ['an email channel without an address', { ...BASE, channel: [{ type: 'email' }] }, 'parameter_invalid', 'channel[0].to'],
    ['an address that is none', { ...BASE, channel: [{ type: 'email', to: 'planner at town hall' }] }, 'parameter_invalid', 'channel[0].to'],
    ['the same channel twice', { ...BASE, channel: [{ type: 'email', to: 'a@example.test' }, { type: 'email', to: 'A@example.test' }] }, 'parameter_invalid', 'channel[1]'],
    ['an unknown channel field', { ...BASE, channel: [{ type: 'email', to: 'a@example.test', cc: 'b@example.test' }] }, 'parameter_invalid', 'channel[0].cc'],
    ['an unknown schedule', { ...BASE, schedule: 'hourly' }, 'vocabulary_value_unknown', 'schedule'],
    ['a schedule object', { ...BASE, schedule: { kind: 'immediate' } }, 'parameter_invalid', 'schedule'],
    ['an empty schedule', { ...BASE, schedule: '  ' }, 'parameter_invalid', 'schedule'],
    ['a daily schedule without a time', { ...BASE, schedule: 'daily' }, 'parameter_invalid', 'schedule'],
    ['a weekly schedule without a time', { ...BASE, schedule: 'weekly friday' }, 'parameter_invalid', 'schedule'],
    ['a weekly schedule without a day', { ...BASE, schedule: 'weekly 08:00' }, 'parameter_invalid', 'schedule'],
    ['a time that is none', { ...BASE, schedule: 'daily 25:00' }, 'parameter_invalid', 'schedule'],
    ['a weekday on a daily schedule', { ...BASE, schedule: 'daily friday 08:00' }, 'parameter_invalid', 'schedule'],
    ['an unknown weekday', { ...BASE, schedule: 'weekly caturday 08:00' }, 'vocabulary_value_unknown', 'schedule'],
    ['a time on an immediate schedule', { ...BASE, schedule: 'immediate 08:00' }, 'parameter_invalid', 'schedule'],
    ['words after the time', { ...BASE, schedule: 'weekly friday 08:00 sharp' }, 'parameter_invalid', 'schedule'],
    ['a timezone that is none', { ...BASE, timezone: 'Mars/Olympus_Mons' }, 'parameter_invalid', 'timezone'],
    ['an end time that is none', { ...BASE, end_time: 'next tuesday' }, 'parameter_invalid', 'end_time'],
    ['enabled not a boolean', { ...BASE, enabled: 'yes' }, 'parameter_invalid', 'enabled'],
    ['an unknown field', { ...BASE, colour: 'red' }, 'parameter_invalid', 'colour'],
  ];
  test.each(cases)('%s', async (_why, body, code, field) => {
    const text = JSON.stringify(body).replace('"REGION"', JSON.stringify(otherRegion)).replace('"OTHER"', JSON.stringify(otherWebhookId)).replace('"MINE"', JSON.stringify(webhookId));
    const before = (await w.server.services.pool.query('SELECT count(*)::int AS n FROM alert')).rows[0].n;
    const r = await post(JSON.parse(text));
    expect(refusal(r)).toEqual({ status: 422, code, field });
    expect((await w.server.services.pool.query('SELECT count(*)::int AS n FROM alert')).rows[0].n).toBe(before);
  });
});
