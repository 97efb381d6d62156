// The authorization request (RFC 6749 4.1.1, RFC 7636 4.3) read and checked without I/O: what
// cannot be trusted as a place to redirect to (client, redirect_uri) is shown to the person;
// every other fault goes back to the client's redirect_uri as an error code (RFC 6749 4.1.2.1).
import { SCOPES } from '../../core/credentials.ts';
import type { OAuthClient } from './model.ts';

export interface AuthorizationRequest {
  clientId: string;
  redirectUri: string;
  redirectUriGiven: boolean;
  state?: string;
  /** the scopes granted if the person allows: those asked, or the client's when none are */
  scopes: string[];
  codeChallenge?: string;
  codeChallengeMethod?: 'S256';
}

export type Checked =
  | { kind: 'page'; message: string }
  | { kind: 'redirect'; redirectUri: string; state?: string; error: string; description: string }
  | { kind: 'ok'; request: AuthorizationRequest };

/** The fields the authorization request is made of (the page's form carries them back). */
export const REQUEST_FIELDS = ['response_type', 'client_id', 'redirect_uri', 'scope', 'state', 'code_challenge', 'code_challenge_method'] as const;

const LOOPBACK = new Set(['127.0.0.1', '[::1]', 'localhost']);
// RFC 7636 4.1: 43 to 128 unreserved characters (the S256 challenge is 43)
const PKCE_VALUE = /^[A-Za-z0-9._~-]{43,128}$/;
// RFC 6749 A.5: state = 1*VSCHAR
const VSCHAR = /^[\x20-\x7E]+$/;
// RFC 6749 3.3: scope-token = 1*( %x21 / %x23-5B / %x5D-7E )
const SCOPE_TOKEN = /^[\x21\x23-\x5B\x5D-\x7E]+$/;

/**
 * A redirect URI given against one registered: the same string, or for a loopback http URI any
 * port (RFC 8252 7.3: a native app such as QGIS listens on a port it picks).
 */
export function redirectUriMatches(registered: string, given: string): boolean {
  if (registered === given) return true;
  let r: URL;
  let g: URL;
  try {
    r = new URL(registered);
    g = new URL(given);
  } catch {
    return false;
  }
  if (r.protocol !== 'http:' || g.protocol !== 'http:' || !LOOPBACK.has(r.hostname) || r.hostname !== g.hostname) return false;
  return r.pathname === g.pathname && r.search === g.search && !g.hash && !g.username && !g.password;
}

/** Why a URI cannot be registered as a redirect URI (null when it can): RFC 6749 3.1.2, RFC 8252 7, RFC 9700 2.1. */
export function redirectUriProblem(uri: string): string | null {
  let u: URL;
  try {
    u = new URL(uri);
  } catch {
    return 'is not an absolute URI';
  }
  if (u.hash || uri.includes('#')) return 'must not have a fragment';
  if (u.username || u.password) return 'must not carry a user name or password';
  if (u.protocol === 'https:') return null;
  if (u.protocol === 'http:') return LOOPBACK.has(u.hostname) ? null : 'must use https, except on a loopback address (http://127.0.0.1/…)';
  // a native app's private-use scheme, named after a domain it owns (RFC 8252 7.1)
  if (/^[a-z][a-z0-9+.-]*\.[a-z0-9+.-]+:$/.test(u.protocol)) return null;
  return 'must use https, http on a loopback address, or a private-use scheme such as com.example.app:';
}

/** Scope values from their space-delimited form (RFC 6749 3.3); null when one is not a scope-token. */
export function parseScope(raw: string | undefined): string[] | null {
  if (raw === undefined) return [];
  const tokens = raw.split(' ').filter((t) => t !== '');
  return tokens.every((t) => SCOPE_TOKEN.test(t)) ? [...new Set(tokens)] : null;
}

export function checkAuthorizationRequest(fields: Record<string, string>, repeated: string[], client: OAuthClient | null): Checked {
  if (repeated.includes('client_id')) return { kind: 'page', message: 'The request names client_id more than once.' };
  if (!fields.client_id) return { kind: 'page', message: 'The request names no client (client_id).' };
  if (!client) return { kind: 'page', message: 'The request names no client Landlex knows (client_id); it may have been deleted.' };
  if (client.redirectUris.length === 0) return { kind: 'page', message: `${client.name} is registered for client credentials only; it cannot ask a person to sign in.` };
  if (repeated.includes('redirect_uri')) return { kind: 'page', message: 'The request names redirect_uri more than once.' };
  const given = fields.redirect_uri;
  if (given === undefined && client.redirectUris.length > 1) return { kind: 'page', message: `${client.name} has several redirect URIs registered; the request must name one (redirect_uri).` };
  if (given !== undefined && !client.redirectUris.some((r) => redirectUriMatches(r, given))) {
    return { kind: 'page', message: `The redirect URI is not one registered for ${client.name}.` };
  }
  const redirectUri = given ?? client.redirectUris[0];
  const badState = fields.state !== undefined && !VSCHAR.test(fields.state);
  const state = repeated.includes('state') || badState ? undefined : fields.state;
  const refuse = (error: string, description: string): Checked => ({ kind: 'redirect', redirectUri, state, error, description });

  if (repeated.length > 0) return refuse('invalid_request', `Each parameter may be sent once: ${repeated.join(', ')} was sent more than once.`);
  if (badState) return refuse('invalid_request', 'state must be printable ASCII (RFC 6749 A.5).');
  if (!fields.response_type) return refuse('invalid_request', 'response_type is missing.');
  if (fields.response_type !== 'code') return refuse('unsupported_response_type', 'Only response_type=code is supported.');
  const challenge = fields.code_challenge;
  const method = fields.code_challenge_method;
  if (method !== undefined && method !== 'S256') return refuse('invalid_request', 'code_challenge_method must be S256 (plain is not supported).');
  if (challenge === undefined && method !== undefined) return refuse('invalid_request', 'code_challenge_method was sent without code_challenge.');
  if (challenge !== undefined) {
    if (method === undefined) return refuse('invalid_request', 'code_challenge_method is missing; it would mean plain, which is not supported: send S256.');
    if (!PKCE_VALUE.test(challenge)) return refuse('invalid_request', 'code_challenge must be 43 to 128 characters of A-Z, a-z, 0-9, "-", ".", "_", "~".');
  } else if (!client.confidential) {
    return refuse('invalid_request', `${client.name} is a public client: PKCE is required (code_challenge with code_challenge_method=S256).`);
  }
  const asked = parseScope(fields.scope);
  if (asked === null) return refuse('invalid_scope', 'scope is not a space-delimited list of scope values.');
  const unknown = asked.filter((s) => !(SCOPES as readonly string[]).includes(s) || !client.scopes.includes(s));
  if (unknown.length > 0) return refuse('invalid_scope', `Not a scope ${client.name} may ask for: ${unknown.join(', ')}. It may ask for: ${client.scopes.join(' ')}.`);
  return {
    kind: 'ok',
    request: {
      clientId: client.id,
      redirectUri,
      redirectUriGiven: given !== undefined,
      state,
      scopes: asked.length > 0 ? asked : [...client.scopes],
      ...(challenge !== undefined ? { codeChallenge: challenge, codeChallengeMethod: 'S256' as const } : {}),
    },
  };
}

/** The client's redirect URI with the answer's parameters added (its own query kept), and iss (RFC 9207). */
export function redirectWith(redirectUri: string, params: Record<string, string | undefined>, issuer: string): string {
  const url = new URL(redirectUri);
  for (const [k, v] of Object.entries(params)) if (v !== undefined) url.searchParams.append(k, v);
  url.searchParams.append('iss', issuer);
  return url.href;
}
