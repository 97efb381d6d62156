// Identity (spec 4.1): sign-up, verification, sign-in, the person signed in, password reset.
// Invitations and membership are in invitations.ts. Every answer here is free.
import { enqueueEmail } from '../../activities/email.ts';
import type { Config } from '../../core/config.ts';
import { ApiError } from '../../core/errors.ts';
import { randomToken, requireId } from '../../core/ids.ts';
import { hashPassword, verifyPassword } from '../../core/passwords.ts';
import { type Queryable, withTransaction } from '../../store/db.ts';
import { issueEmailToken, redeemEmailToken, voidPersonTokens } from '../../store/email-tokens.ts';
import { createOrganization } from '../../store/organizations.ts';
import { findPersonByEmail, getPerson, listMemberships, markVerified, membershipRole, type Person, setPasswordHash } from '../../store/people.ts';
import { revokeSessionsOf } from '../../store/sessions.ts';
import { alreadyRegisteredMail, resetMail, verificationMail } from '../mail.ts';
import { PLANS } from '../plans.ts';
import { defineRoutes, type Answer, type JsonSchema, type Req } from '../route.ts';
import { badToken, body, checkPassword, EMAIL, NAME, openSession, PASSWORD, SESSION, STRINGS, TOKEN } from './account-schemas.ts';
import { invitationRoutes } from './invitations.ts';

const ME: JsonSchema = {
  type: 'object',
  properties: {
    user_id: { type: 'string' },
    organization_id: { type: 'string' },
    organization_name: { type: 'string' },
    email: { type: 'string' },
    role: { type: 'string' },
    first_name: { type: ['string', 'null'] },
    last_name: { type: ['string', 'null'] },
    organizations: {
      type: 'array',
      items: { type: 'object', properties: { organization_id: { type: 'string' }, name: { type: 'string' }, slug: { type: 'string' }, role: { type: 'string' } } },
    },
  },
};

/** An address that already has an account: mail its owner, create nothing. */
async function mailExisting(db: Queryable, config: Config, person: Person): Promise<void> {
  const orgs = await listMemberships(db, person.id);
  if (person.verified_at || orgs.length === 0) return enqueueEmail(db, alreadyRegisteredMail(config, person.email, orgs));
  const token = await issueEmailToken(db, { purpose: 'verify', personId: person.id });
  await enqueueEmail(db, verificationMail(config, person.email, token, { id: orgs[0].organization_id, name: orgs[0].name }));
}

async function register({ body: b, services }: Req): Promise<Answer> {
  const { config, pool } = services;
  if (!config.registrationOpen) {
    throw new ApiError('entitlement_missing', {
      detail: 'Registration is closed on this service. Invitations are the way in: ask an owner or admin of your organization to invite you (POST /invitation), then accept with POST /membership.',
    });
  }
  checkPassword(b.password);
  const email = b.email.trim();
  const name = b.organization_name.trim();
  const passwordHash = await hashPassword(b.password);
  const plan = PLANS[0];
  try {
    await withTransaction(pool, async (c) => {
      const existing = await findPersonByEmail(c, email);
      if (existing) return mailExisting(c, config, existing);
      const owner = { email, passwordHash, firstName: b.first_name.trim(), lastName: b.last_name.trim(), verified: false };
      const org = await createOrganization(c, { name, owner, credits: plan.included_credits, includedCredits: plan.included_credits });
      const token = await issueEmailToken(c, { purpose: 'verify', personId: org.personId });
      await enqueueEmail(c, verificationMail(config, email, token, { id: org.organizationId, name }));
    });
  } catch (err) {
    // the same address registered at the same moment: that request answers, this one says the same
    if ((err as { code?: string }).code !== '23505') throw err;
  }
  services.mailer.kick();
  return {
    status: 202,
    item: { status: 'verification_sent', email, detail: 'A link to confirm the address was sent to it; sign-in works once the link is redeemed. The mail names the organization id to sign in with.' },
  };
}

async function verify({ body: b, services }: Req): Promise<Answer> {
  const out = await withTransaction(services.pool, async (c) => {
    const t = await redeemEmailToken(c, b.token, 'verify');
    if (!t?.personId) return null;
    await markVerified(c, t.personId);
    const person = await getPerson(c, t.personId);
    const orgs = await listMemberships(c, t.personId);
    return { status: 'verified', email: person!.email, organization_id: orgs[0]?.organization_id ?? '' };
  });
  if (!out) throw badToken();
  return { item: out };
}

let dummyHash: Promise<string> | null = null;

async function signIn({ body: b, services }: Req): Promise<Answer> {
  const { pool, config } = services;
  const organizationId = requireId('organization', b.organization_id, 'organization_id');
  const person = await findPersonByEmail(pool, b.email.trim());
  // an unknown address costs the same scrypt as a known one
  dummyHash ??= hashPassword(randomToken());
  const ok = await verifyPassword(b.password, person?.password_hash ?? (await dummyHash));
  const role = person && ok ? await membershipRole(pool, person.id, organizationId) : null;
  if (!person || !role) {
    throw new ApiError('credential_invalid', { detail: 'The email address, password and organization do not match an account.' });
  }
  if (!person.verified_at) {
    throw new ApiError('verification_required', { field: 'email', detail: 'Confirm your email address first: redeem the link we sent (POST /verification), then sign in. While registration is open, registering again sends a new link.' });
  }
  return { item: await openSession(pool, config, person, organizationId, role) };
}

async function me({ actor, services }: Req): Promise<Answer> {
  const person = (await getPerson(services.pool, actor!.personId!))!;
  const orgs = await listMemberships(services.pool, person.id);
  const current = orgs.find((o) => o.organization_id === actor!.organizationId)!;
  return {
    item: {
      user_id: person.id,
      organization_id: current.organization_id,
      organization_name: current.name,
      email: person.email,
      role: current.role,
      first_name: person.first_name,
      last_name: person.last_name,
      organizations: orgs,
    },
  };
}

async function requestReset({ body: b, services }: Req): Promise<Answer> {
  const email = b.email.trim();
  await withTransaction(services.pool, async (c) => {
    const person = await findPersonByEmail(c, email);
    if (!person) return;
    const token = await issueEmailToken(c, { purpose: 'reset', personId: person.id });
    await enqueueEmail(c, resetMail(services.config, person.email, token));
  });
  services.mailer.kick();
  return { item: { status: 'reset_requested', email, detail: 'If an account uses this address, a link to set a new password was sent to it. It works once, for one hour.' } };
}

async function setPassword({ body: b, services }: Req): Promise<Answer> {
  checkPassword(b.password);
  const passwordHash = await hashPassword(b.password);
  const done = await withTransaction(services.pool, async (c) => {
    const t = await redeemEmailToken(c, b.token, 'reset');
    if (!t?.personId) return false;
    await setPasswordHash(c, t.personId, passwordHash);
    await markVerified(c, t.personId);
    await voidPersonTokens(c, t.personId, 'reset');
    await revokeSessionsOf(c, t.personId);
    return true;
  });
  if (!done) throw badToken();
  return { item: { status: 'password_changed', detail: 'Every session of this account was ended; sign in with the new password.' } };
}

const common = { tag: 'Account', form: 'plain' as const };

export const accountRoutes = defineRoutes([
  {
    ...common, id: 'createOrganization', method: 'POST', path: '/organization', credential: 'public', status: 202, refuses: ['entitlement_missing'],
    summary: 'Register an organization and its first person (when registration is open); a verification link is emailed',
    body: body(['organization_name', 'email', 'password', 'first_name', 'last_name'], { organization_name: { ...NAME, maxLength: 200 }, email: EMAIL, password: PASSWORD, first_name: NAME, last_name: NAME }),
    response: STRINGS, handler: register,
  },
  {
    ...common, id: 'createVerification', method: 'POST', path: '/verification', credential: 'public',
    summary: 'Redeem the emailed verification link', body: body(['token'], { token: TOKEN }), response: STRINGS, handler: verify,
  },
  {
    ...common, id: 'createSession', method: 'POST', path: '/session', credential: 'public', refuses: ['verification_required'],
    summary: 'Sign in to one organization: a console session (Bearer)',
    body: body(['email', 'password', 'organization_id'], { email: EMAIL, password: { type: 'string', minLength: 1, maxLength: 200 }, organization_id: { type: 'string', maxLength: 100 } }),
    response: SESSION, handler: signIn,
  },
  { ...common, id: 'getMe', method: 'GET', path: '/me', credential: 'bearer', summary: 'The person signed in and their organizations', response: ME, handler: me },
  {
    ...common, id: 'createPasswordReset', method: 'POST', path: '/password-reset', credential: 'public',
    summary: 'Email a link to set a new password; the same answer whether or not the account exists',
    body: body(['email'], { email: EMAIL }), response: STRINGS, handler: requestReset,
  },
  {
    ...common, id: 'setPassword', method: 'PUT', path: '/password', credential: 'public',
    summary: 'Set a new password with the emailed token; ends every session of the account',
    body: body(['token', 'password'], { token: TOKEN, password: PASSWORD }), response: STRINGS, handler: setPassword,
  },
  ...invitationRoutes,
]);
