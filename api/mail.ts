// The texts of account mail. Each carries a link to the console page that redeems it
// (PUBLIC_BASE_URL + page + ?token=) and the token itself, for clients that call the API directly.
import type { Config } from '../core/config.ts';

export interface Mail {
  to: string;
  subject: string;
  text: string;
  purpose: string;
}

export function mailLink(config: Config, page: string, token: string): string {
  return `${config.publicBaseUrl.replace(/\/+$/, '')}${page}?token=${encodeURIComponent(token)}`;
}

const signature = '\n\n-- \nLandlex\nIf you did not expect this message, you can ignore it.\n';

export function verificationMail(config: Config, to: string, token: string, org: { id: string; name: string }): Mail {
  return {
    to,
    purpose: 'verify',
    subject: 'Confirm your email address for Landlex',
    text:
      `Confirm your address to finish creating ${org.name} on Landlex:\n\n${mailLink(config, '/verify', token)}\n\n` +
      `The link works once, for 72 hours. (API: POST /verification with {"token": "${token}"}.)\n\n` +
      `Then sign in with POST /session and organization_id ${org.id}.` +
      signature,
  };
}

export function alreadyRegisteredMail(config: Config, to: string, orgs: Array<{ organization_id: string; name: string }>): Mail {
  const list = orgs.map((o) => `  ${o.name}: ${o.organization_id}`).join('\n');
  return {
    to,
    purpose: 'already_registered',
    subject: 'You already have a Landlex account',
    text:
      `Someone asked to create a Landlex organization with this address, which already has an account.\n` +
      `Nothing was created. Sign in with POST /session to one of your organizations:\n\n${list}\n\n` +
      `If you forgot your password, ask for a new one at ${config.publicBaseUrl.replace(/\/+$/, '')}/reset-password (POST /password-reset).` +
      signature,
  };
}

export function resetMail(config: Config, to: string, token: string): Mail {
  return {
    to,
    purpose: 'reset',
    subject: 'Set a new Landlex password',
    text:
      `To choose a new password, open:\n\n${mailLink(config, '/reset-password', token)}\n\n` +
      `The link works once, for one hour. (API: PUT /password with {"token": "${token}", "password": "..."}.)\n` +
      `Setting a new password signs you out everywhere.` +
      signature,
  };
}

export function invitationMail(
  config: Config,
  to: string,
  token: string,
  i: { organizationName: string; inviter: string; role: string; expiresAt: string },
): Mail {
  return {
    to,
    purpose: 'invite',
    subject: `You are invited to ${i.organizationName} on Landlex`,
    text:
      `${i.inviter} invited you to join ${i.organizationName} on Landlex as ${i.role}.\n\n` +
      `Accept here:\n\n${mailLink(config, '/join', token)}\n\n` +
      `The link works once, until ${i.expiresAt}. (API: POST /membership with {"token": "${token}", "password": "...", ` +
      `"first_name": "...", "last_name": "..."}; if you already have an account, send its password.)` +
      signature,
  };
}
