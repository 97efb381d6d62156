// Identity over real HTTP, PostgreSQL and SMTP: sign-up with the emailed verification link,
// closed registration, sign-in refusals that do not tell accounts apart, password reset, and
// invitations (accept, revoke, roles). Mail goes out of the outbox to a real SMTP server.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { RunningServer } from '../../api/server.ts';
import { PLANS } from '../../api/plans.ts';
import { call, createTestOrg, startTestServer } from '../helpers/server.ts';
import { linkIn, startSmtp, type TestSmtp, tokenIn } from '../helpers/smtp.ts';

let smtp: TestSmtp;
let open: RunningServer; // registration open, mail delivered
let closed: RunningServer; // the default: registration closed

const unique = (name: string) => `${name}-${Math.random().toString(36).slice(2, 10)}@example.test`;
const PASSWORD = 'correct horse battery';
const signUp = (email: string, extra: Record<string, unknown> = {}) => ({
  organization_name: 'Acme Land', email, password: PASSWORD, first_name: 'Ada', last_name: 'Lovelace', ...extra,
});

async function signIn(server: RunningServer, email: string, password: string, organizationId: string) {
  return call(server, 'POST', '/session', { body: { email, password, organization_id: organizationId } });
}

/** An organization made by the CLI path (verified owner) and a session of its owner. */
async function orgWithSession(server: RunningServer) {
  const org = await createTestOrg(server, 10);
  const s = await signIn(server, org.email, org.password, org.organizationId);
  expect(s.status).toBe(200);
  return { ...org, bearer: s.body.item.access_token as string };
}

beforeAll(async () => {
  smtp = await startSmtp();
  open = await startTestServer({ REGISTRATION_OPEN: 'true', SMTP_URL: smtp.url });
  closed = await startTestServer();
});
afterAll(async () => {
  await open.close();
  await closed.close();
  await smtp.close();
});

describe('sign-up', () => {
  test('registration is closed by default: 403 entitlement_missing pointing at invitations, nothing created', async () => {
    const email = unique('closed');
    const r = await call(closed, 'POST', '/organization', { body: signUp(email) });
    expect(r.status).toBe(403);
    expect(r.body.detail.error.code).toBe('entitlement_missing');
    expect(r.body.detail.error.detail).toMatch(/closed.*invit/is);
    const { rowCount } = await closed.services.pool.query('SELECT 1 FROM person WHERE email = $1', [email]);
    expect(rowCount).toBe(0);
  });

  test('register, refused before verifying, verify from the mail, sign in, /me', async () => {
    const email = unique('founder');
    const r = await call(open, 'POST', '/organization', { body: signUp(email) });
    expect(r.status).toBe(202);
    expect(r.body.item).toMatchObject({ status: 'verification_sent', email });
    expect(Object.values(r.body.item).every((v) => typeof v === 'string')).toBe(true);

    const mail = await smtp.waitForMail(email, (m) => /confirm/i.test(m.subject));
    expect(linkIn(mail, '/verify').origin).toBe(new URL(open.url).origin);
    const token = tokenIn(mail, '/verify');
    const organizationId = /org_[0-9a-z]{20}/.exec(mail.text)![0];

    const early = await signIn(open, email, PASSWORD, organizationId);
    expect(early.status).toBe(403);
    expect(early.body.detail.error.code).toBe('verification_required');

    const v = await call(open, 'POST', '/verification', { body: { token } });
    expect(v.status).toBe(200);
    expect(v.body.item).toEqual({ status: 'verified', email, organization_id: organizationId });
    const again = await call(open, 'POST', '/verification', { body: { token } });
    expect(again.status).toBe(422);
    expect(again.body.detail.error).toMatchObject({ code: 'parameter_invalid', field: 'token' });

    const s = await signIn(open, email, PASSWORD, organizationId);
    expect(s.status).toBe(200);
    expect(s.body.item).toEqual({
      access_token: expect.stringMatching(/^lls_/), expires_in: open.services.config.sessionTtlSeconds, token_type: 'Bearer',
      user_id: expect.stringMatching(/^usr_/), organization_id: organizationId, email, role: 'owner',
    });

    const me = await call(open, 'GET', '/me', { bearer: s.body.item.access_token });
    expect(me.status).toBe(200);
    expect(me.body.item).toMatchObject({ user_id: s.body.item.user_id, organization_id: organizationId, organization_name: 'Acme Land', email, role: 'owner' });
    expect(me.body.item.organizations).toEqual([{ organization_id: organizationId, name: 'Acme Land', slug: expect.stringMatching(/^acme-land-/), role: 'owner' }]);

    const credit = await call(open, 'GET', '/credit', { bearer: s.body.item.access_token });
    expect(credit.body.item).toMatchObject({ balance: PLANS[0].included_credits, included_credits: PLANS[0].included_credits });
    expect(credit.body.item.entry).toMatchObject([{ kind: 'grant', amount: PLANS[0].included_credits }]);
  });

  test('registering again before verifying sends a new verification link; either link verifies', async () => {
    const email = unique('forgetful');
    expect((await call(open, 'POST', '/organization', { body: signUp(email) })).status).toBe(202);
    const first = await smtp.waitForMail(email);
    expect((await call(open, 'POST', '/organization', { body: signUp(email, { organization_name: 'Second try' }) })).status).toBe(202);
    const second = await smtp.waitForMail(email, (m) => tokenIn(m, '/verify') !== tokenIn(first, '/verify'));
    const v = await call(open, 'POST', '/verification', { body: { token: tokenIn(second, '/verify') } });
    expect(v.status).toBe(200);
    expect(v.body.item.organization_id).toBe(/org_[0-9a-z]{20}/.exec(first.text)![0]);
    const { rowCount } = await open.services.pool.query(`SELECT 1 FROM organization WHERE name = 'Second try'`);
    expect(rowCount).toBe(0);
  });

  test('an address that already has an account gets the same answer; its owner is told by mail; nothing is created', async () => {
    const owner = await createTestOrg(open, 0);
    const r = await call(open, 'POST', '/organization', { body: signUp(owner.email, { organization_name: 'Squatter' }) });
    const fresh = await call(open, 'POST', '/organization', { body: signUp(unique('fresh')) });
    expect(r.status).toBe(202);
    expect(Object.keys(r.body.item).sort()).toEqual(Object.keys(fresh.body.item).sort());
    expect(r.body.item.status).toBe(fresh.body.item.status);
    const mail = await smtp.waitForMail(owner.email);
    expect(mail.subject).toMatch(/already have/i);
    expect(mail.text).toContain(owner.organizationId);
    const { rowCount } = await open.services.pool.query(`SELECT 1 FROM organization WHERE name = 'Squatter'`);
    expect(rowCount).toBe(0);
  });

  test('sign-in refusals are the same for a wrong password, an unknown address and another organization', async () => {
    const a = await createTestOrg(open, 0);
    const b = await createTestOrg(open, 0);
    const answers = await Promise.all([
      signIn(open, a.email, 'wrong password!', a.organizationId),
      signIn(open, unique('nobody'), a.password, a.organizationId),
      signIn(open, a.email, a.password, b.organizationId),
    ]);
    for (const r of answers) {
      expect(r.status).toBe(401);
      expect(r.body.detail.error.code).toBe('credential_invalid');
      expect(r.body.detail.error.detail).toBe(answers[0].body.detail.error.detail);
    }
  });

  test('malformed bodies are 422 naming the field', async () => {
    const cases: Array<[string, unknown, string, string]> = [
      ['/organization', { ...signUp(unique('x')), last_name: undefined }, 'last_name', 'parameter_invalid'],
      ['/organization', signUp('not-an-address'), 'email', 'parameter_invalid'],
      ['/organization', signUp(unique('x'), { password: 'short' }), 'password', 'parameter_invalid'],
      ['/organization', signUp(unique('x'), { plan: 'gold' }), 'plan', 'parameter_invalid'],
      ['/organization', signUp(unique('x'), { first_name: '   ' }), 'first_name', 'parameter_invalid'],
      ['/session', { email: unique('x'), password: PASSWORD }, 'organization_id', 'parameter_invalid'],
      ['/session', { email: unique('x'), password: PASSWORD, organization_id: 'acme' }, 'organization_id', 'id_malformed'],
      ['/verification', {}, 'token', 'parameter_invalid'],
      ['/password-reset', { email: 42 }, 'email', 'parameter_invalid'],
      ['/membership', { token: 'x' }, 'password', 'parameter_invalid'],
    ];
    for (const [path, body, field, code] of cases) {
      const r = await call(open, 'POST', path, { body });
      expect(r.status, `${path} ${field}`).toBe(422);
      expect(r.body.detail.error, `${path} ${field}`).toMatchObject({ code, field });
    }
  });
});

describe('credentials', () => {
  test('no credential is credential_missing; a garbage bearer or a Basic header is credential_invalid', async () => {
    const none = await call(open, 'GET', '/me');
    expect(none.status).toBe(401);
    expect(none.body.detail.error.code).toBe('credential_missing');
    const garbage = await call(open, 'GET', '/me', { bearer: 'lls_not-a-session' });
    expect(garbage.status).toBe(401);
    expect(garbage.body.detail.error.code).toBe('credential_invalid');
    const basic = await call(open, 'GET', '/me', { headers: { Authorization: 'Basic dXNlcjpwYXNz' } });
    expect(basic.status).toBe(401);
    expect(basic.body.detail.error.code).toBe('credential_invalid');
  });

  test('an expired session is credential_expired', async () => {
    const o = await orgWithSession(open);
    await open.services.pool.query(`UPDATE session SET expires_at = now() - interval '1 second' WHERE person_id = (SELECT id FROM person WHERE email = $1)`, [o.email]);
    const r = await call(open, 'GET', '/me', { bearer: o.bearer });
    expect(r.status).toBe(401);
    expect(r.body.detail.error.code).toBe('credential_expired');
  });
});

describe('password reset', () => {
  test('same answer for an unknown address, mail only for a known one, old sessions end, the token works once', async () => {
    const o = await orgWithSession(open);
    const second = (await signIn(open, o.email, o.password, o.organizationId)).body.item.access_token;
    const stranger = unique('stranger');

    const known = await call(open, 'POST', '/password-reset', { body: { email: o.email } });
    const unknown = await call(open, 'POST', '/password-reset', { body: { email: stranger } });
    expect(known.status).toBe(200);
    expect(unknown.status).toBe(200);
    expect({ ...unknown.body.item, email: null }).toEqual({ ...known.body.item, email: null });
    const outbox = await open.services.pool.query('SELECT to_address FROM email_outbox WHERE to_address IN ($1, $2)', [o.email, stranger]);
    expect(outbox.rows.map((r) => r.to_address)).toEqual([o.email]);

    const mail = await smtp.waitForMail(o.email, (m) => /new .*password/i.test(m.subject));
    const token = tokenIn(mail, '/reset-password');
    const weak = await call(open, 'PUT', '/password', { body: { token, password: 'short' } });
    expect(weak.body.detail.error).toMatchObject({ code: 'parameter_invalid', field: 'password' });

    const newPassword = 'a brand new passphrase';
    const r = await call(open, 'PUT', '/password', { body: { token, password: newPassword } });
    expect(r.status).toBe(200);
    expect(r.body.item.status).toBe('password_changed');
    for (const bearer of [o.bearer, second]) {
      const me = await call(open, 'GET', '/me', { bearer });
      expect(me.status).toBe(401);
      expect(me.body.detail.error.code).toBe('credential_invalid');
    }
    expect((await signIn(open, o.email, o.password, o.organizationId)).status).toBe(401);
    expect((await signIn(open, o.email, newPassword, o.organizationId)).status).toBe(200);

    const reuse = await call(open, 'PUT', '/password', { body: { token, password: 'yet another passphrase' } });
    expect(reuse.status).toBe(422);
    expect(reuse.body.detail.error).toMatchObject({ code: 'parameter_invalid', field: 'token' });
    expect(smtp.mailsTo(stranger)).toEqual([]);
  });
});

describe('invitations', () => {
  test('invite, mail, accept: the invitee is a member and signed in; the token works once', async () => {
    const o = await orgWithSession(open);
    const email = unique('invitee');
    const inv = await call(open, 'POST', '/invitation', { bearer: o.bearer, body: { email, role: 'member' } });
    expect(inv.status).toBe(201);
    expect(inv.body.item).toEqual({ id: expect.stringMatching(/^inv_/), email, role: 'member', status: 'pending', expires_at: expect.any(String), created_at: expect.any(String) });
    const days = (Date.parse(inv.body.item.expires_at) - Date.now()) / 86_400_000;
    expect(days).toBeGreaterThan(6.9);
    expect(days).toBeLessThanOrEqual(7);

    const token = tokenIn(await smtp.waitForMail(email, (m) => /invited/i.test(m.subject)), '/join');
    const joined = await call(open, 'POST', '/membership', { body: { token, password: PASSWORD, first_name: 'Grace', last_name: 'Hopper' } });
    expect(joined.status).toBe(201);
    expect(joined.body.item).toMatchObject({ access_token: expect.stringMatching(/^lls_/), token_type: 'Bearer', organization_id: o.organizationId, email, role: 'member' });
    const me = await call(open, 'GET', '/me', { bearer: joined.body.item.access_token });
    expect(me.body.item).toMatchObject({ email, role: 'member', organization_id: o.organizationId, first_name: 'Grace' });
    // redeeming the link verified the address: a plain sign-in works
    expect((await signIn(open, email, PASSWORD, o.organizationId)).status).toBe(200);

    const reuse = await call(open, 'POST', '/membership', { body: { token, password: PASSWORD, first_name: 'G', last_name: 'H' } });
    expect(reuse.status).toBe(422);
    expect(reuse.body.detail.error.field).toBe('token');

    const list = await call(open, 'GET', '/invitation', { bearer: o.bearer });
    expect(list.body.item.find((i: { id: string }) => i.id === inv.body.item.id).status).toBe('accepted');

    const member = joined.body.item.access_token;
    const refused = await call(open, 'POST', '/invitation', { bearer: member, body: { email: unique('other') } });
    expect(refused.status).toBe(403);
    expect(refused.body.detail.error.code).toBe('scope_missing');
    expect((await call(open, 'GET', '/invitation', { bearer: member })).status).toBe(403);
    const again = await call(open, 'POST', '/invitation', { bearer: o.bearer, body: { email } });
    expect(again.body.detail.error).toMatchObject({ code: 'parameter_invalid', field: 'email' });
  });

  test('revoking stops the link at once; revoking again is 204; newest first; another organization gets 404', async () => {
    const o = await orgWithSession(open);
    const other = await orgWithSession(open);
    const email = unique('revoked');
    const first = await call(open, 'POST', '/invitation', { bearer: o.bearer, body: { email: unique('first'), role: 'admin' } });
    const inv = await call(open, 'POST', '/invitation', { bearer: o.bearer, body: { email } });
    expect(inv.body.item.role).toBe('member');
    const token = tokenIn(await smtp.waitForMail(email), '/join');

    expect((await call(open, 'DELETE', `/invitation/${inv.body.item.id}`, { bearer: other.bearer })).status).toBe(404);
    const bad = await call(open, 'DELETE', '/invitation/key_0123456789abcdefghjk', { bearer: o.bearer });
    expect(bad.body.detail.error).toMatchObject({ code: 'id_malformed', field: 'invitation_id' });

    expect((await call(open, 'DELETE', `/invitation/${inv.body.item.id}`, { bearer: o.bearer })).status).toBe(204);
    const r = await call(open, 'POST', '/membership', { body: { token, password: PASSWORD, first_name: 'A', last_name: 'B' } });
    expect(r.status).toBe(422);
    expect(r.body.detail.error).toMatchObject({ code: 'parameter_invalid', field: 'token' });
    expect((await call(open, 'DELETE', `/invitation/${inv.body.item.id}`, { bearer: o.bearer })).status).toBe(204);

    const list = await call(open, 'GET', '/invitation', { bearer: o.bearer });
    expect(list.body.item.map((i: { id: string; status: string }) => [i.id, i.status])).toEqual([
      [inv.body.item.id, 'revoked'],
      [first.body.item.id, 'pending'],
    ]);
    expect((await call(open, 'GET', '/invitation', { bearer: other.bearer })).body.item).toEqual([]);
  });

  test('an Idempotency-Key replays the invitation instead of sending a second one', async () => {
    const o = await orgWithSession(open);
    const email = unique('once');
    const send = () => call(open, 'POST', '/invitation', { bearer: o.bearer, body: { email }, headers: { 'Idempotency-Key': `invite-${email}` } });
    const a = await send();
    const b = await send();
    expect(b.status).toBe(201);
    expect(b.body.item).toEqual(a.body.item);
    const { rows } = await open.services.pool.query('SELECT count(*)::int AS n FROM invitation WHERE email = $1', [email]);
    expect(rows[0].n).toBe(1);
  });

  test('a person who already has an account joins with their password; a wrong one leaves the link usable', async () => {
    const a = await orgWithSession(open);
    const b = await orgWithSession(open);
    await call(open, 'POST', '/invitation', { bearer: b.bearer, body: { email: a.email, role: 'admin' } });
    const token = tokenIn(await smtp.waitForMail(a.email, (m) => /invited/i.test(m.subject)), '/join');

    const wrong = await call(open, 'POST', '/membership', { body: { token, password: 'not their password' } });
    expect(wrong.status).toBe(401);
    expect(wrong.body.detail.error.code).toBe('credential_invalid');
    const ok = await call(open, 'POST', '/membership', { body: { token, password: a.password } });
    expect(ok.status).toBe(201);
    expect(ok.body.item).toMatchObject({ organization_id: b.organizationId, role: 'admin', email: a.email });
    const me = await call(open, 'GET', '/me', { bearer: ok.body.item.access_token });
    expect(me.body.item.organizations.map((x: { organization_id: string; role: string }) => [x.organization_id, x.role])).toEqual([
      [a.organizationId, 'owner'],
      [b.organizationId, 'admin'],
    ]);
  });

  test('an API key is refused on the person-only routes', async () => {
    const o = await createTestOrg(open, 0);
    const r = await call(open, 'GET', '/invitation', { key: o.apiKey });
    expect(r.status).toBe(403);
    expect(r.body.detail.error.code).toBe('person_required');
  });
});
