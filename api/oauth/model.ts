// The storage model @node-oauth/oauth2-server asks for, over PostgreSQL (store/oauth.ts).
// Clients are an organization's; a user is a person of that organization, or none (client
// credentials); every token carries the grant it came from, so a replayed code or refresh
// token revokes the tokens of its grant.
import type OAuth2Server from '@node-oauth/oauth2-server';
import { OAUTH_CODE_PREFIX, OAUTH_REFRESH_PREFIX, OAUTH_TOKEN_PREFIX, SCOPES } from '../../core/credentials.ts';
import { newId, randomToken, sha256Hex } from '../../core/ids.ts';
import type { Queryable } from '../../store/db.ts';
import * as store from '../../store/oauth.ts';
import { redirectUriMatches } from './request.ts';

type Client = OAuth2Server.Client;
type User = OAuth2Server.User;

/** Who a code or token is for: a person of the client's organization, or the organization itself. */
export interface OAuthUser extends User {
  personId: string | null;
  /** the authorization the tokens belong to (set once known) */
  grantId?: string;
  /** the authorization request named its redirect_uri (so the token request must repeat it) */
  redirectUriGiven?: boolean;
}

export interface OAuthClient extends Client {
  organizationId: string;
  name: string;
  confidential: boolean;
  scopes: string[];
  redirectUris: string[];
}

export function asClient(c: store.ClientRecord): OAuthClient {
  const grants = [...(c.redirect_uris.length ? ['authorization_code', 'refresh_token'] : []), ...(c.confidential ? ['client_credentials'] : [])];
  return { id: c.id, organizationId: c.organization_id, name: c.name, confidential: c.confidential, scopes: c.scopes, redirectUris: c.redirect_uris, grants };
}

/** Same length, compared in constant time (both are hex digests). */
function sameHash(a: string, b: string): boolean {
  let diff = a.length ^ b.length;
  for (let i = 0; i < Math.min(a.length, b.length); i++) diff |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return diff === 0;
}

/**
 * `authenticated`: the token endpoint, where a confidential client must prove itself with its
 * secret and a public client has none to give; the authorization endpoint only looks clients up.
 */
export function oauthModel(db: Queryable, authenticated: boolean) {
  return {
    async getClient(clientId: string, secret: string | null | undefined): Promise<OAuthClient | null> {
      const c = await store.findClient(db, clientId);
      if (!c) return null;
      if (authenticated) {
        if (c.secret_hash === null ? secret != null : secret == null || !sameHash(c.secret_hash, sha256Hex(secret))) return null;
      }
      return asClient(c);
    },

    async validateRedirectUri(uri: string, client: Client): Promise<boolean> {
      return (client as OAuthClient).redirectUris.some((registered) => redirectUriMatches(registered, uri));
    },

    /** The scopes asked, each among the client's; none asked: all the client's. */
    async validateScope(_user: User, client: Client, scope?: string[]): Promise<string[] | false> {
      const allowed = (client as OAuthClient).scopes;
      if (!scope || scope.length === 0) return [...allowed];
      const asked = [...new Set(scope)];
      return asked.every((s) => allowed.includes(s) && (SCOPES as readonly string[]).includes(s)) ? asked : false;
    },

    async generateAuthorizationCode(): Promise<string> {
      return `${OAUTH_CODE_PREFIX}${randomToken(32)}`;
    },
    async generateAccessToken(): Promise<string> {
      return `${OAUTH_TOKEN_PREFIX}${randomToken(32)}`;
    },
    async generateRefreshToken(): Promise<string> {
      return `${OAUTH_REFRESH_PREFIX}${randomToken(32)}`;
    },

    async saveAuthorizationCode(
      code: Pick<OAuth2Server.AuthorizationCode, 'authorizationCode' | 'expiresAt' | 'redirectUri' | 'scope' | 'codeChallenge' | 'codeChallengeMethod'>,
      client: Client,
      user: User,
    ): Promise<OAuth2Server.AuthorizationCode> {
      const u = user as OAuthUser;
      const grantId = await store.saveCode(db, {
        code: code.authorizationCode,
        clientId: client.id,
        personId: u.personId!,
        redirectUri: code.redirectUri,
        redirectUriGiven: Boolean(u.redirectUriGiven),
        scopes: code.scope ?? [],
        challenge: code.codeChallenge ?? null,
        method: code.codeChallenge ? (code.codeChallengeMethod ?? null) : null,
        expiresAt: code.expiresAt,
      });
      return { ...code, client, user: { ...u, grantId } };
    },

    /** A code already used is refused and every token issued from it revoked (RFC 6749 4.1.2). */
    async getAuthorizationCode(authorizationCode: string): Promise<OAuth2Server.AuthorizationCode | null> {
      const c = await store.findCode(db, authorizationCode);
      if (!c) return null;
      if (c.used_at) {
        await store.revokeGrant(db, c.grant_id);
        return null;
      }
      const user: OAuthUser = { personId: c.person_id, grantId: c.grant_id };
      return {
        authorizationCode,
        expiresAt: new Date(c.expires_at),
        // the token request must repeat redirect_uri only when the authorization request named it
        redirectUri: c.redirect_uri_given ? c.redirect_uri : (undefined as unknown as string),
        scope: c.scopes,
        client: { id: c.client_id, grants: [] },
        user,
        ...(c.code_challenge ? { codeChallenge: c.code_challenge, codeChallengeMethod: c.code_challenge_method! } : {}),
      };
    },

    async revokeAuthorizationCode(code: OAuth2Server.AuthorizationCode): Promise<boolean> {
      return store.useCode(db, code.authorizationCode);
    },

    async getUserFromClient(): Promise<OAuthUser> {
      return { personId: null };
    },

    async saveToken(token: OAuth2Server.Token, client: Client, user: User): Promise<OAuth2Server.Token> {
      const u = user as OAuthUser;
      const grantId = u.grantId ?? newId('oauth_grant');
      await store.saveToken(db, {
        grantId,
        clientId: client.id,
        organizationId: (client as OAuthClient).organizationId,
        personId: u.personId,
        accessToken: token.accessToken,
        accessExpiresAt: token.accessTokenExpiresAt!,
        refreshToken: token.refreshToken ?? null,
        refreshExpiresAt: token.refreshToken ? token.refreshTokenExpiresAt! : null,
        scopes: token.scope ?? [],
      });
      return { ...token, client, user: { ...u, grantId } };
    },

    /**
     * A refresh token already exchanged (or revoked) is refused, and when it was exchanged its
     * whole grant is revoked: two holders of one refresh token means it leaked (RFC 9700 4.14.2).
     */
    async getRefreshToken(refreshToken: string): Promise<OAuth2Server.RefreshToken | null> {
      const t = await store.findRefresh(db, refreshToken);
      if (!t) return null;
      if (t.refresh_used_at && !t.revoked_at) await store.revokeGrant(db, t.grant_id);
      if (t.refresh_used_at || t.revoked_at || !t.member) return null;
      const user: OAuthUser = { personId: t.person_id, grantId: t.grant_id };
      return { refreshToken, refreshTokenExpiresAt: new Date(t.refresh_expires_at), scope: t.scopes, client: { id: t.client_id, grants: [] }, user };
    },

    async revokeToken(token: OAuth2Server.RefreshToken): Promise<boolean> {
      return store.useRefresh(db, token.refreshToken);
    },

    /** Not used: API calls resolve access tokens in api/auth.ts. */
    async getAccessToken(): Promise<null> {
      return null;
    },
  };
}
