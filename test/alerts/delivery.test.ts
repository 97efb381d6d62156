// Alerts matched and sent (spec 6.4): change events written with writeChangeEvents are matched in
// their own transaction; an immediate alert's match reaches a real loopback receiver as
// alert.triggered (the change event as the feed serves it) and the real SMTP server as one email,
// a change that does not match sends nothing; a disabled or ended alert sends nothing; uses,
// control types and scopes select events; a digest collects its matches into one notification at
// its local time, exactly once with two senders (driven with a clock, not real hours).
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { sendDueDigests } from '../../activities/alerts/digest.ts';
import { createPool } from '../../store/db.ts';
import { type Receiver, startReceiver } from '../helpers/receiver.ts';
import { call } from '../helpers/server.ts';
import { startSmtp, type TestSmtp } from '../helpers/smtp.ts';
import { type AlertWorld, alertWorld, createAlert, createWebhook, draft } from './context.ts';

let w: AlertWorld;
let smtp: TestSmtp;
const receivers: Receiver[] = [];

async function receiver() {
  const r = await startReceiver();
  receivers.push(r);
  return r;
}
const address = (label: string) => `${label}-${Math.random().toString(36).slice(2, 8)}@example.test`;
const sql = async (text: string, values: unknown[] = []) => (await w.server.services.pool.query(text, values)).rows;
const deliveriesTo = async (webhook: string) => (await sql('SELECT count(*)::int AS n FROM webhook_delivery WHERE webhook_id = $1', [webhook]))[0].n;
const mailsQueued = async (to: string) => (await sql('SELECT count(*)::int AS n FROM email_outbox WHERE to_address = $1', [to]))[0].n;
const matchLog = async (a: { href: string }) => (await call(w.server, 'GET', `${a.href}/match?size=200`, { key: w.key })).body.item;

beforeAll(async () => {
  smtp = await startSmtp();
  w = await alertWorld('alert_delivery', { SMTP_URL: smtp.url });
});
afterAll(async () => {
  await w?.close();
  for (const r of receivers) await r.close();
  await smtp?.close();
});

describe('immediate', () => {
  test('a matching change event is sent to the webhook as alert.triggered and mailed; one that does not match sends nothing', async () => {
    const r = await receiver();
    const hook = await createWebhook(w, r.url);
    const to = address('planner');
    const a = await createAlert(w, { name: 'Alerton amendments', predicate: { jurisdiction: ['alerton-ma'], layer: ['district'], kind: ['amendment'] }, channel: [{ type: 'webhook', webhook: hook.id }, { type: 'email', to }] });
    const hit = draft(w.jur);
    const misses = [draft(w.jur, { kind: 'map_change', layer: 'district_map' }), draft(w.ctJur)];
    const [hitId] = await w.emit([hit, ...misses]);
    // written with the change events: one delivery, one mail, nothing for the others
    expect(await deliveriesTo(hook.id)).toBe(1);
    expect(await mailsQueued(to)).toBe(1);
    await r.until((calls) => r.delivered().length === 1 && calls.length === 1);
    const body = r.delivered()[0].json;
    const feed = await call(w.server, 'GET', `/change_event/${hitId}`, { key: w.key });
    expect(body).toMatchObject({ type: 'alert.triggered', seq: feed.body.item.seq, data: { alert: { id: a.id, name: a.name, href: a.href }, kind: 'immediate' } });
    expect(body.data.change_event).toEqual(feed.body.item);
    const mail = await smtp.waitForMail(to);
    expect(mail.subject).toBe('Landlex alert "Alerton amendments": 1 change in the law');
    expect(mail.text).toContain(hit.fieldPath);
    expect(mail.text).toContain(`/change_event/${hitId}`);
    for (const m of misses) expect(mail.text).not.toContain(m.fieldPath);

    const got = await call(w.server, 'GET', a.href, { key: w.key });
    expect(got.body.item).toMatchObject({ unread_count: 1, match_count: 1 });
    // the delivery's outcome is recorded a moment after the receiver answers
    let log = await matchLog(a);
    for (let i = 0; i < 200 && log[0].notification.webhook[0]?.state !== 'succeeded'; i++) {
      await new Promise((res) => setTimeout(res, 25));
      log = await matchLog(a);
    }
    expect(log).toHaveLength(1);
    expect(log[0]).toMatchObject({ object: 'alert_match', seq: feed.body.item.seq, state: 'sent', predicate_version: 1, change_event: feed.body.item, notification: { kind: 'immediate', match_count: 1, period_end: null } });
    expect(log[0].notification.webhook).toEqual([expect.objectContaining({ webhook: hook.id, state: 'succeeded', attempt_count: 1, event: body.id })]);
    expect(log[0].notification.email).toEqual([expect.objectContaining({ to })]);
    // reading the log (a GET) marks nothing read; POST read does
    expect((await call(w.server, 'GET', a.href, { key: w.key })).body.item.unread_count).toBe(1);
    const read = await call(w.server, 'POST', `${a.href}/read`, { key: w.key, body: { through: log[0].id } });
    expect(read.body.item).toMatchObject({ id: a.id, unread_count: 0, match_count: 1 });
  });

  test('several matches in one load: an event each to the webhook, in seq order, and one mail listing them', async () => {
    const r = await receiver();
    const hook = await createWebhook(w, r.url);
    const to = address('batch');
    const a = await createAlert(w, { name: 'Everything in CT', predicate: { state: 'CT' }, channel: [{ type: 'webhook', webhook: hook.id }, { type: 'email', to }] });
    const drafts = [draft(w.ctJur), draft(w.ctJur, { kind: 'repeal' }), draft(w.jur)];
    const ids = await w.emit(drafts);
    await r.until(() => r.delivered().length === 2);
    expect(r.delivered().map((c) => c.json.data.change_event.id)).toEqual(ids.slice(0, 2));
    const mail = await smtp.waitForMail(to);
    expect(mail.subject).toBe('Landlex alert "Everything in CT": 2 changes in the law');
    expect(mail.text).toContain(drafts[0].fieldPath);
    expect(mail.text).toContain(drafts[1].fieldPath);
    expect(mail.text).not.toContain(drafts[2].fieldPath);
    expect(await mailsQueued(to)).toBe(1);
    expect((await matchLog(a)).map((m: { change_event: { id: string } }) => m.change_event.id)).toEqual([ids[1], ids[0]]);
  });

  test('a disabled alert and an ended one match and send nothing; enabled again, it sends what comes next', async () => {
    const r = await receiver();
    const hook = await createWebhook(w, r.url);
    const to = address('quiet');
    const channel = [{ type: 'webhook', webhook: hook.id }, { type: 'email', to }];
    const off = await createAlert(w, { name: 'Off', predicate: { jurisdiction: [w.jur] }, channel, enabled: false });
    const ended = await createAlert(w, { name: 'Ended', predicate: { jurisdiction: [w.jur] }, channel, end_time: new Date(Date.now() - 60_000).toISOString() });
    await w.emit([draft(w.jur), draft(w.jur)]);
    expect(await sql('SELECT count(*)::int AS n FROM alert_match WHERE alert_id = ANY($1)', [[off.id, ended.id]])).toEqual([{ n: 0 }]);
    expect(await deliveriesTo(hook.id)).toBe(0);
    expect(await mailsQueued(to)).toBe(0);
    expect(await matchLog(off)).toEqual([]);
    await call(w.server, 'PATCH', off.href, { key: w.key, body: { enabled: true } });
    const [next] = await w.emit([draft(w.jur)]);
    await r.until(() => r.delivered().length === 1);
    expect(r.delivered()[0].json.data).toMatchObject({ alert: { id: off.id }, change_event: { id: next } });
    expect(await deliveriesTo(hook.id)).toBe(1);
    expect(await mailsQueued(to)).toBe(1);
  });

  test('only events after the alert was created match, each once: a load writing an old event again matches nothing', async () => {
    const old = draft(w.jur);
    await w.emit([old]);
    const a = await createAlert(w, { name: 'From now on', predicate: { jurisdiction: [w.jur] } });
    const fresh = draft(w.jur);
    await w.emit([old, fresh]);
    await w.emit([fresh]);
    const log = await matchLog(a);
    expect(log.map((m: { change_event: { field_path: string } }) => m.change_event.field_path)).toEqual([fresh.fieldPath]);
  });
});

describe('what a predicate selects', () => {
  test('uses (a slug and its narrower uses; permissions and moratoriums), control types, a region, a county', async () => {
    const region = (await call(w.server, 'POST', '/region', { key: w.key, body: { name: `CT only ${Date.now()}`, member: [w.ctJur] } })).body.item;
    const housing = await createAlert(w, { name: 'Housing', predicate: { use: ['residential.dwelling'] } });
    const setbacks = await createAlert(w, { name: 'Setbacks', predicate: { control_type: ['dimensional.setback_front'], kind: ['amendment'] } });
    const inRegion = await createAlert(w, { name: 'Region', predicate: { region: region.id } });
    const inCounty = await createAlert(w, { name: 'County', predicate: { county: '25017' } });
    const single = draft(w.jur, { subject: { type: 'permission', id: 'pmn_x', district: 'R-1', use: 'residential.dwelling.single_family' }, previous: 'conditional_use', current: 'by_right' });
    const retail = draft(w.jur, { subject: { type: 'permission', id: 'pmn_y', district: 'B-1', use: 'commercial.retail' } });
    const moratorium = draft(w.ctJur, { kind: 'adoption', subject: { type: 'moratorium', id: 'mor_x', title: 'Pause' }, previous: null, current: { title: 'Pause', uses: ['residential.dwelling.multifamily'] } });
    const front = draft(w.ctJur, { subject: { type: 'control', id: 'ctl_x', district: 'R-1', control_type: 'dimensional.setback_front', building_type: null }, previous: 20, current: 25 });
    const rear = draft(w.jur, { subject: { type: 'control', id: 'ctl_y', district: 'R-1', control_type: 'dimensional.setback_rear', building_type: null } });
    await w.emit([single, retail, moratorium, front, rear]);
    const paths = async (a: { href: string }) => (await matchLog(a)).map((m: { change_event: { field_path: string } }) => m.change_event.field_path).sort();
    expect(await paths(housing)).toEqual([single.fieldPath, moratorium.fieldPath].sort());
    expect(await paths(setbacks)).toEqual([front.fieldPath]);
    expect(await paths(inRegion)).toEqual([moratorium.fieldPath, front.fieldPath].sort());
    expect(await paths(inCounty)).toEqual([single.fieldPath, retail.fieldPath, rear.fieldPath].sort());
  });
});

describe('digest', () => {
  /** HH:MM in a timezone of an instant. */
  const hhmm = (at: Date, timeZone: string) => new Intl.DateTimeFormat('en-GB', { timeZone, hour: '2-digit', minute: '2-digit', hourCycle: 'h23' }).format(at);

  test('matches wait, then one notification at the local time sends them all, once, whichever of two senders runs', async () => {
    const r = await receiver();
    const hook = await createWebhook(w, r.url);
    const to = address('digest');
    const tz = 'Asia/Tokyo';
    // its time of day was two hours ago: the period that just ended holds none of what follows
    const now = new Date();
    const at = hhmm(new Date(now.getTime() - 2 * 3600_000), tz);
    const a = await createAlert(w, { name: 'Daily Alerton', predicate: { jurisdiction: [w.jur] }, channel: [{ type: 'webhook', webhook: hook.id }, { type: 'email', to }], schedule: `daily ${at}`, timezone: tz });
    const ids = [...(await w.emit([draft(w.jur), draft(w.jur)])), ...(await w.emit([draft(w.jur)]))];
    expect(await deliveriesTo(hook.id)).toBe(0);
    expect(await mailsQueued(to)).toBe(0);
    expect((await matchLog(a)).map((m: { state: string }) => m.state)).toEqual(['waiting', 'waiting', 'waiting']);
    expect(await sendDueDigests(w.server.services.pool, new Date())).toBe(0);

    // tomorrow, a minute past its time: two senders (two pools, as two processes) at once
    const due = new Date(Math.floor((now.getTime() - 2 * 3600_000) / 60_000) * 60_000 + 24 * 3600_000);
    const clock = new Date(due.getTime() + 60_000);
    const other = createPool(w.server.services.config.databaseUrl, { max: 2 });
    try {
      const sent = await Promise.all([sendDueDigests(w.server.services.pool, clock), sendDueDigests(other, clock)]);
      expect(sent[0] + sent[1]).toBe(1);
    } finally {
      await other.end();
    }
    expect(await sendDueDigests(w.server.services.pool, clock)).toBe(0);
    expect(await deliveriesTo(hook.id)).toBe(1);
    expect(await mailsQueued(to)).toBe(1);

    await r.until(() => r.delivered().length === 1);
    const data = r.delivered()[0].json.data;
    expect(data).toMatchObject({ alert: { id: a.id }, kind: 'digest', digest: { period_end: due.toISOString(), every: 'day', at, timezone: tz, match_count: 3, truncated: false } });
    expect(data.digest.change_event.map((e: { id: string }) => e.id)).toEqual(ids);
    const mail = await smtp.waitForMail(to);
    expect(mail.subject).toBe('Landlex alert "Daily Alerton": daily digest, 3 changes');
    const log = await matchLog(a);
    expect(log.map((m: { state: string }) => m.state)).toEqual(['sent', 'sent', 'sent']);
    expect(log[0].notification).toMatchObject({ kind: 'digest', period_end: due.toISOString(), match_count: 3 });

    // a match after that waits for the next period, not the one already sent
    const [late] = await w.emit([draft(w.jur)]);
    expect(await sendDueDigests(w.server.services.pool, clock)).toBe(0);
    expect((await matchLog(a))[0]).toMatchObject({ state: 'waiting', change_event: { id: late } });
    const dayAfter = new Date(clock.getTime() + 24 * 3600_000);
    expect(await sendDueDigests(w.server.services.pool, dayAfter)).toBe(1);
    await r.until(() => r.delivered().length === 2);
    expect(r.delivered()[1].json.data.digest).toMatchObject({ period_end: new Date(due.getTime() + 24 * 3600_000).toISOString(), match_count: 1 });
  });

  test('a disabled digest alert sends nothing when its time comes', async () => {
    const to = address('paused');
    const a = await createAlert(w, { name: 'Paused digest', predicate: { jurisdiction: [w.jur] }, channel: [{ type: 'email', to }], schedule: 'weekly sunday 00:00' });
    await w.emit([draft(w.jur)]);
    await call(w.server, 'PATCH', a.href, { key: w.key, body: { enabled: false } });
    await sendDueDigests(w.server.services.pool, new Date(Date.now() + 8 * 24 * 3600_000));
    expect(await sql('SELECT count(*)::int AS n FROM alert_notification WHERE alert_id = $1', [a.id])).toEqual([{ n: 0 }]);
    expect(await mailsQueued(to)).toBe(0);
    expect((await matchLog(a)).map((m: { state: string }) => m.state)).toEqual(['waiting']);
  });
});
