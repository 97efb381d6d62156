// OAuth 2 through @node-oauth/oauth2-server: the token endpoint (authorization code with PKCE,
// client credentials, refresh with rotation) and issuing codes once a person has allowed. The
// server metadata (RFC 8414) and revocation (RFC 7009), which the library does not offer, are
// in api/routes/oauth.ts.
import OAuth2Server from '@node-oauth/oauth2-server';
import AuthorizationCodeGrantType from '@node-oauth/oauth2-server/lib/grant-types/authorization-code-grant-type.js';
import type { Queryable } from '../../store/db.ts';
import { type OAuthUser, oauthModel } from './model.ts';
import type { AuthorizationRequest } from './request.ts';

export const ACCESS_TOKEN_SECONDS = 3600;
export const REFRESH_TOKEN_SECONDS = 30 * 86_400;
export const CODE_SECONDS = 120;

/**
 * RFC 6749 4.1.3: a token request whose redirect_uri differs from the authorization request's is
 * an invalid grant (the library answers invalid_request); the redirect_uri is required when the
 * authorization request named it.
 */
class CodeGrant extends AuthorizationCodeGrantType {
  override validateRedirectUri(request: OAuth2Server.Request, code: OAuth2Server.AuthorizationCode) {
    if (!code.redirectUri) return;
    if (request.body.redirect_uri !== code.redirectUri) {
      throw new OAuth2Server.InvalidGrantError('Invalid grant: redirect_uri is not the one the code was issued for');
    }
  }
}

function server(db: Queryable, authenticated: boolean) {
  return new OAuth2Server({
    model: oauthModel(db, authenticated),
    accessTokenLifetime: ACCESS_TOKEN_SECONDS,
    refreshTokenLifetime: REFRESH_TOKEN_SECONDS,
    authorizationCodeLifetime: CODE_SECONDS,
    allowEmptyState: true,
    // a public client authenticates by nothing but PKCE (or its refresh token); the model refuses
    // a confidential client that sends no secret
    requireClientAuthentication: { authorization_code: false, refresh_token: false },
    alwaysIssueNewRefreshToken: true,
    extendedGrantTypes: { authorization_code: CodeGrant as unknown as typeof OAuth2Server.AbstractGrantType },
  });
}

export interface OAuthAnswer {
  status: number;
  headers: Record<string, string>;
  body: Record<string, unknown>;
}

/** An OAuth refusal (RFC 6749 5.2); anything else (the store failing) is rethrown for the API's own 500/503. */
export function oauthRefusal(err: unknown, headers: Record<string, string> = {}): OAuthAnswer {
  if (!(err instanceof OAuth2Server.OAuthError) || err instanceof OAuth2Server.ServerError || err instanceof OAuth2Server.InvalidArgumentError) {
    throw (err as { inner?: unknown }).inner ?? err;
  }
  return { status: err.code, headers: { ...headers, 'cache-control': 'no-store', pragma: 'no-cache' }, body: { error: err.name, error_description: err.message } };
}

export function oauthError(status: number, error: string, description: string): OAuthAnswer {
  return { status, headers: { 'cache-control': 'no-store', pragma: 'no-cache' }, body: { error, error_description: description } };
}

/**
 * HTTP Basic client credentials (RFC 6749 2.3.1): each part form-urlencoded before base64, as
 * oauth4webapi sends them; null when the header is Basic but unreadable, undefined when not Basic.
 */
export function basicCredentials(authorization: string | undefined): { id: string; secret: string } | null | undefined {
  const m = /^Basic\s+(\S*)\s*$/i.exec(authorization ?? '');
  if (!m) return undefined;
  const text = Buffer.from(m[1], 'base64').toString('utf8');
  const at = text.indexOf(':');
  if (at < 1) return null;
  const decode = (s: string) => decodeURIComponent(s.replace(/\+/g, ' '));
  try {
    return { id: decode(text.slice(0, at)), secret: decode(text.slice(at + 1)) };
  } catch {
    return null;
  }
}

const BASIC_CHALLENGE = { 'www-authenticate': 'Basic realm="Landlex"' };

/** POST /oauth/token: the form's fields and the request's headers (client authentication, content type). */
export async function tokenAnswer(db: Queryable, headers: Record<string, string | string[] | undefined>, fields: Record<string, string>): Promise<OAuthAnswer> {
  const basic = basicCredentials(headers.authorization as string | undefined);
  if (basic === null) return { ...oauthError(401, 'invalid_client', 'The Authorization header is not readable HTTP Basic.'), headers: BASIC_CHALLENGE };
  if (basic && fields.client_secret !== undefined) return oauthError(400, 'invalid_request', 'Authenticate the client one way: HTTP Basic or client_secret in the form, not both.');
  // the library reads Basic credentials without the form-urlencoding RFC 6749 2.3.1 puts on them
  const plain = basic ? { ...headers, authorization: `Basic ${Buffer.from(`${basic.id}:${basic.secret}`).toString('base64')}` } : headers;
  const request = new OAuth2Server.Request({ method: 'POST', query: {}, headers: plain as Record<string, string>, body: fields });
  const response = new OAuth2Server.Response();
  try {
    await server(db, true).token(request, response);
    return { status: 200, headers: response.headers as Record<string, string>, body: response.body as Record<string, unknown> };
  } catch (err) {
    return oauthRefusal(err, response.headers as Record<string, string>);
  }
}

/** Issue a code for a checked request a person has allowed; the client's redirect URI with code and state. */
export async function issueCode(db: Queryable, r: AuthorizationRequest, personId: string): Promise<string> {
  const body: Record<string, string> = { response_type: 'code', client_id: r.clientId, redirect_uri: r.redirectUri, scope: r.scopes.join(' ') };
  if (r.state !== undefined) body.state = r.state;
  if (r.codeChallenge) Object.assign(body, { code_challenge: r.codeChallenge, code_challenge_method: r.codeChallengeMethod });
  const request = new OAuth2Server.Request({ method: 'POST', query: {}, headers: {}, body });
  const response = new OAuth2Server.Response();
  const user: OAuthUser = { personId, redirectUriGiven: r.redirectUriGiven };
  try {
    await server(db, false).authorize(request, response, { authenticateHandler: { handle: () => user } });
  } catch (err) {
    // the request was checked before: a refusal here is a defect, not the client's
    throw (err as { inner?: unknown }).inner ?? err;
  }
  return response.get('location');
}
