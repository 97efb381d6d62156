// Invitations and membership (spec 4.1, 3.1): owners and admins invite by email; the emailed
// token makes the invitee a member and signs them in. Revoking stops the link at once.
import { enqueueEmail } from '../../activities/email.ts';
import { ApiError, invalid, notFound } from '../../core/errors.ts';
import { requireId } from '../../core/ids.ts';
import { hashPassword, verifyPassword } from '../../core/passwords.ts';
import { withTransaction } from '../../store/db.ts';
import { issueEmailToken, redeemEmailToken, TOKEN_HOURS } from '../../store/email-tokens.ts';
import { createInvitation, type Invitation, listInvitations, lockInvitation, markAccepted, revokeInvitation } from '../../store/invitations.ts';
import { addMembership, createPerson, findPersonByEmail, getPerson, isMemberByEmail, markVerified, membershipRole } from '../../store/people.ts';
import { accountOf } from '../../store/usage.ts';
import { invitationMail } from '../mail.ts';
import { defineRoutes, type Answer, type JsonSchema, type Req } from '../route.ts';
import { badToken, body, checkPassword, EMAIL, NAME, openSession, PASSWORD, SESSION, TOKEN } from './account-schemas.ts';

const INVITATION: JsonSchema = {
  type: 'object',
  required: ['id', 'email', 'role', 'status', 'expires_at', 'created_at'],
  properties: {
    id: { type: 'string' },
    email: { type: 'string' },
    role: { type: 'string', enum: ['admin', 'member'] },
    status: { type: 'string', enum: ['pending', 'accepted', 'revoked', 'expired'] },
    expires_at: { type: 'string', format: 'date-time' },
    created_at: { type: 'string', format: 'date-time' },
  },
};

const iso = (t: string | Date) => new Date(t).toISOString();
const invitationItem = (i: Invitation) => ({ id: i.id, email: i.email, role: i.role, status: i.status, expires_at: iso(i.expires_at), created_at: iso(i.created_at) });

async function list({ actor, services }: Req): Promise<Answer> {
  const rows = await listInvitations(services.pool, actor!.organizationId);
  return { item: rows.map(invitationItem), page: { size: rows.length, next_cursor: null } };
}

async function invite({ actor, body: b, services }: Req): Promise<Answer> {
  const { pool, config } = services;
  const email = b.email.trim();
  const org = await accountOf(pool, actor!.organizationId);
  if (await isMemberByEmail(pool, actor!.organizationId, email)) {
    throw invalid('email', `${email} is already a member of ${org.name}.`);
  }
  const inv = await withTransaction(pool, async (c) => {
    const row = await createInvitation(c, { organizationId: actor!.organizationId, email, role: b.role ?? 'member', invitedBy: actor!.personId!, hours: TOKEN_HOURS.invite });
    const token = await issueEmailToken(c, { purpose: 'invite', invitationId: row.id, hours: TOKEN_HOURS.invite });
    await enqueueEmail(c, invitationMail(config, email, token, { organizationName: org.name, inviter: actor!.email!, role: row.role, expiresAt: iso(row.expires_at) }));
    return row;
  });
  services.mailer.kick();
  return { status: 201, item: invitationItem(inv) };
}

async function revoke({ actor, params, services }: Req): Promise<Answer> {
  const id = requireId('invitation', params.invitation_id, 'invitation_id');
  const was = await withTransaction(services.pool, (c) => revokeInvitation(c, actor!.organizationId, id));
  if (was === null) throw notFound('invitation', id);
  if (was === 'accepted') throw invalid('invitation_id', 'This invitation was already accepted; the person is a member.');
  return { status: 204 };
}

/** Redeem an invitation: a new person (verified by the redemption) or an existing one (their password). */
async function join({ body: b, services }: Req): Promise<Answer> {
  checkPassword(b.password);
  const passwordHash = await hashPassword(b.password);
  const session = await withTransaction(services.pool, async (c) => {
    const t = await redeemEmailToken(c, b.token, 'invite');
    const inv = t?.invitationId ? await lockInvitation(c, t.invitationId) : null;
    if (inv?.status !== 'pending') throw badToken();
    let person = await findPersonByEmail(c, inv.email);
    if (person) {
      if (!(await verifyPassword(b.password, person.password_hash))) {
        throw new ApiError('credential_invalid', { field: 'password', detail: `${inv.email} already has an account: send its password to join.` });
      }
      await markVerified(c, person.id);
    } else {
      if (!b.first_name || !b.last_name) throw invalid(b.first_name ? 'last_name' : 'first_name', 'is required to create an account');
      const id = await createPerson(c, { email: inv.email, passwordHash, firstName: b.first_name.trim(), lastName: b.last_name.trim(), verified: true });
      person = (await getPerson(c, id))!;
    }
    await addMembership(c, person.id, inv.organization_id, inv.role);
    await markAccepted(c, inv.id);
    const role = (await membershipRole(c, person.id, inv.organization_id))!;
    return openSession(c, services.config, person, inv.organization_id, role);
  });
  return { status: 201, item: session };
}

const common = { tag: 'Account', form: 'plain' as const };
const ADMINS: Array<'owner' | 'admin'> = ['owner', 'admin'];

export const invitationRoutes = defineRoutes([
  {
    ...common, id: 'listInvitations', method: 'GET', path: '/invitation', credential: 'bearer', roles: ADMINS, collection: true,
    summary: "The organization's invitations, newest first", response: INVITATION, handler: list,
  },
  {
    ...common, id: 'createInvitation', method: 'POST', path: '/invitation', credential: 'bearer', roles: ADMINS, status: 201, idempotent: true,
    summary: 'Invite a person by email (owners and admins); a link is emailed',
    body: body(['email'], { email: EMAIL, role: { type: 'string', enum: ['admin', 'member'], default: 'member' } }),
    response: INVITATION, handler: invite,
  },
  {
    ...common, id: 'deleteInvitation', method: 'DELETE', path: '/invitation/{invitation_id}', credential: 'bearer', roles: ADMINS, status: 204,
    summary: 'Revoke an invitation; its link stops working at once',
    params: [{ name: 'invitation_id', in: 'path', type: 'string', required: true, description: 'inv_ id' }], handler: revoke,
  },
  {
    ...common, id: 'createMembership', method: 'POST', path: '/membership', credential: 'public', status: 201,
    summary: 'Accept an invitation with its emailed token: become a member and sign in',
    body: body(['token', 'password'], { token: TOKEN, password: PASSWORD, first_name: NAME, last_name: NAME }),
    response: SESSION, handler: join,
  },
]);
