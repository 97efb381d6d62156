// API keys (spec 4.1, 5): list live keys, mint one with a console session (the value is shown
// once), revoke (the record stays; again is no error), and describe the current credential.
import { notFound } from '../../core/errors.ts';
import { requireId } from '../../core/ids.ts';
import { getKey, type KeyRecord, listLiveKeys, mintKey, revokeKey } from '../../store/keys.ts';
import { getPerson } from '../../store/people.ts';
import { accountOf } from '../../store/usage.ts';
import { SCOPE_DESCRIPTIONS, SCOPES } from '../../core/credentials.ts';
import { defineRoutes, type Answer, type JsonSchema, type Req } from '../route.ts';

const iso = (t: string | Date | null) => (t === null ? null : new Date(t).toISOString());
const TIME = { type: ['string', 'null'], format: 'date-time' };

const KEY: JsonSchema = {
  type: 'object',
  required: ['id', 'name', 'key_prefix', 'scopes', 'usage_count', 'created_at', 'last_used_at', 'expires_at'],
  properties: {
    id: { type: 'string' },
    name: { type: 'string' },
    key_prefix: { type: 'string', description: 'The first characters of the key, to recognise it' },
    scopes: { type: 'array', items: { type: 'string', enum: [...SCOPES] } },
    usage_count: { type: 'integer' },
    created_at: { type: 'string', format: 'date-time' },
    last_used_at: TIME,
    expires_at: TIME,
  },
};

const MINTED: JsonSchema = { ...KEY, required: [...(KEY.required as string[]), 'key'], properties: { ...(KEY.properties as object), key: { type: 'string', description: 'The secret; shown this once' } } };

const MINT_BODY: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['name'],
  properties: {
    name: { type: 'string', minLength: 1, maxLength: 100, pattern: '\\S', description: 'What the key is for (one key per deployment)' },
    scopes: { type: 'array', items: { type: 'string', enum: [...SCOPES] }, minItems: 1, maxItems: SCOPES.length, uniqueItems: true, description: 'Default: every scope' },
    expires_in_days: { type: ['integer', 'null'], minimum: 1, maximum: 3650, description: 'Default: never expires' },
  },
};

export function keyItem(k: KeyRecord) {
  return {
    id: k.id,
    name: k.name,
    key_prefix: k.key_prefix,
    scopes: k.scopes,
    usage_count: k.usage_count,
    created_at: iso(k.created_at),
    last_used_at: iso(k.last_used_at),
    expires_at: iso(k.expires_at),
  };
}

async function list({ actor, services }: Req): Promise<Answer> {
  const keys = await listLiveKeys(services.pool, actor!.organizationId);
  return { item: keys.map(keyItem), page: { size: keys.length, next_cursor: null } };
}

async function mint({ actor, body, services }: Req): Promise<Answer> {
  const k = await mintKey(services.pool, {
    organizationId: actor!.organizationId,
    name: body.name.trim(),
    scopes: body.scopes ?? SCOPES,
    createdBy: actor!.personId!,
    expiresInDays: body.expires_in_days ?? null,
  });
  return { status: 201, item: { ...keyItem(k), key: k.key } };
}

async function revoke({ actor, params, services }: Req): Promise<Answer> {
  const id = requireId('key', params.key_id, 'key_id');
  if (!(await revokeKey(services.pool, actor!.organizationId, id))) throw notFound('key', id);
  services.credentials.drop(id); // at once here; other processes hear of it from the trigger
  return { status: 204 };
}

async function describeActor({ actor, services }: Req): Promise<Answer> {
  const a = actor!;
  const org = await accountOf(services.pool, a.organizationId);
  const common = {
    organization: { id: a.organizationId, name: org.name, slug: org.slug, plan: org.plan },
    scopes: a.scopes.map((s) => ({ scope: s, description: SCOPE_DESCRIPTIONS[s] })),
    expires_at: a.expiresAt ?? null,
    rate_limit_per_second: services.config.rateLimitPerSecond,
  };
  if (a.oauth) {
    const person = a.personId ? await getPerson(services.pool, a.personId) : null;
    const client = { id: a.oauth.clientId, name: a.oauth.clientName, token_id: a.oauth.tokenId };
    return { item: { kind: 'oauth_token', oauth_client: client, person: person ? { id: person.id, email: person.email, first_name: person.first_name, last_name: person.last_name } : null, ...common } };
  }
  if (a.kind === 'key') {
    const k = (await getKey(services.pool, a.organizationId, a.keyId!))!;
    const creator = k.created_by ? await getPerson(services.pool, k.created_by) : null;
    return { item: { kind: 'api_key', key: { ...keyItem(k), created_by: creator?.email ?? null }, ...common } };
  }
  const person = (await getPerson(services.pool, a.personId!))!;
  return { item: { kind: 'session', person: { id: person.id, email: person.email, first_name: person.first_name, last_name: person.last_name, role: a.role }, ...common } };
}

const ID_PARAM = { name: 'key_id', in: 'path' as const, type: 'string' as const, required: true, description: 'key_ id' };

export const keyRoutes = defineRoutes([
  {
    id: 'listKeys', method: 'GET', path: '/key', tag: 'Account', form: 'plain', credential: 'key', scope: 'account:read', collection: true,
    summary: "The organization's live keys, newest first; never the key value", response: KEY, handler: list,
  },
  {
    id: 'createKey', method: 'POST', path: '/key', tag: 'Account', form: 'plain', credential: 'session', status: 201,
    summary: 'Mint a key (console session only); the value is returned once', body: MINT_BODY, response: MINTED, handler: mint,
  },
  {
    id: 'deleteKey', method: 'DELETE', path: '/key/{key_id}', tag: 'Account', form: 'plain', credential: 'key', scope: 'account:write', status: 204,
    summary: 'Revoke a key; the record stays, and revoking again is not an error', params: [ID_PARAM], handler: revoke,
  },
  {
    id: 'getActor', method: 'GET', path: '/me/actor', tag: 'Account', form: 'plain', credential: 'key',
    summary: 'The current credential: its kind, organization, scopes and expiry', response: { type: 'object' }, handler: describeActor,
  },
]);
