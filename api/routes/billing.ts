// Entitlement, credit and usage (spec 4.1, 4.13). Pending usage of this process is written first,
// so the numbers include the calls just made. Free, and only ever about the caller's organization.
import { checkCursor, openCursor, signCursor } from '../../core/query/cursor.ts';
import { accountOf, ledgerPage, usageSummary } from '../../store/usage.ts';
import { PLANS } from '../plans.ts';
import { defineRoutes, type Answer, type JsonSchema, type Req } from '../route.ts';

const COUNT = { type: 'integer' };
const TALLY = { type: 'object', properties: { name: { type: 'string' }, requests: COUNT, credits: COUNT } };

const USAGE: JsonSchema = {
  type: 'object',
  required: ['organization_id', 'since', 'until', 'requests', 'credits_spent', 'free_requests', 'credit_balance', 'included_credits', 'daily', 'by_endpoint', 'by_key'],
  properties: {
    object: { type: 'string', const: 'usage_summary', description: '/v1 form only' },
    organization_id: { type: 'string' },
    since: { type: 'string', format: 'date-time' },
    until: { type: 'string', format: 'date-time' },
    requests: COUNT,
    credits_spent: COUNT,
    free_requests: { type: 'integer', description: 'Calls that cost nothing and were not errors' },
    credit_balance: COUNT,
    included_credits: COUNT,
    daily: { type: 'array', items: { type: 'object', properties: { day: { type: 'string', format: 'date' }, requests: COUNT, credits: COUNT } } },
    by_endpoint: { type: 'array', items: TALLY },
    by_key: { type: 'array', items: { ...TALLY, properties: { ...TALLY.properties, id: { type: ['string', 'null'] }, kind: { type: 'string', enum: ['key', 'session', 'oauth_client'] } } } },
  },
};

const CREDIT: JsonSchema = {
  type: 'object',
  properties: {
    organization_id: { type: 'string' },
    balance: COUNT,
    included_credits: COUNT,
    entry: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          seq: COUNT,
          at: { type: 'string', format: 'date-time' },
          kind: { type: 'string', enum: ['grant', 'purchase', 'usage', 'adjustment'] },
          amount: { type: 'integer', description: 'Credits added (positive) or spent (negative)' },
          balance_after: COUNT,
          detail: { type: 'object' },
        },
      },
    },
  },
};

const ENTITLEMENT: JsonSchema = {
  type: 'object',
  properties: { organization_id: { type: 'string' }, plan: { type: 'string' }, features: { type: 'object', additionalProperties: { type: 'string' } }, credit_balance: COUNT },
};

async function entitlement({ actor, services }: Req): Promise<Answer> {
  await services.meter.flush();
  const org = await accountOf(services.pool, actor!.organizationId);
  const plan = PLANS.find((p) => p.id === org.plan) ?? PLANS[0];
  return { item: { organization_id: actor!.organizationId, plan: plan.id, features: { ...plan.features }, credit_balance: org.balance } };
}

async function credit({ actor, params, services }: Req): Promise<Answer> {
  const org = actor!.organizationId;
  const walk = { resource: 'credit_ledger', sort: '-seq', filter: org };
  let before: number | null = null;
  if (params.cursor) {
    const c = openCursor(params.cursor, services.secret);
    checkCursor(c, walk);
    before = Number(c.id);
  }
  await services.meter.flush();
  const account = await accountOf(services.pool, org);
  const rows = await ledgerPage(services.pool, org, params.limit, before);
  const entry = rows.slice(0, params.limit);
  const last = entry[entry.length - 1];
  const next = rows.length > params.limit ? signCursor({ v: 1, r: walk.resource, s: walk.sort, f: org, k: [], id: String(last.seq), t: new Date().toISOString(), i: Math.floor(Date.now() / 1000) }, services.secret) : null;
  return {
    item: { organization_id: org, balance: account.balance, included_credits: account.included_credits, entry },
    page: { size: entry.length, next_cursor: next },
  };
}

const summary = (v1: boolean) => async ({ actor, params, services }: Req): Promise<Answer> => {
  await services.meter.flush();
  const s = await usageSummary(services.pool, actor!.organizationId, params.days);
  return { item: v1 ? { object: 'usage_summary', ...s } : s };
};

const DAYS = { name: 'days', in: 'query' as const, type: 'integer' as const, min: 1, max: 365, default: 30, description: 'UTC days that end today, today included' };
const common = { tag: 'Billing', credential: 'key' as const, scope: 'account:read' as const };

export const billingRoutes = defineRoutes([
  {
    id: 'getEntitlement', method: 'GET', path: '/entitlement', tag: 'Billing', credential: 'bearer', form: 'plain',
    summary: "The organization's plan features and credit balance", response: ENTITLEMENT, handler: entitlement,
  },
  {
    ...common, id: 'getCredit', method: 'GET', path: '/credit', form: 'plain',
    summary: 'The credit balance and every move that made it, newest first',
    params: [
      { name: 'limit', in: 'query', type: 'integer', min: 1, max: 200, default: 25, description: 'Moves per page' },
      { name: 'cursor', in: 'query', type: 'string', description: 'next_cursor of the previous page' },
    ],
    response: CREDIT, handler: credit,
  },
  { ...common, id: 'getUsage', method: 'GET', path: '/usage', form: 'plain', summary: 'Usage summary over the last `days` days', params: [DAYS], response: USAGE, handler: summary(false) },
  { ...common, id: 'getUsageV1', method: 'GET', path: '/v1/usage', form: 'v1', summary: 'Usage summary (the /v1 form)', params: [DAYS], response: USAGE, handler: summary(true) },
]);
