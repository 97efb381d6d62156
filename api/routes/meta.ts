// Service discovery: identification, health, plans and prices, error vocabulary, OpenAPI.
import { API_VERSION, CONTRACT_DATE, SERVICE_NAME, VOCABULARY_VERSION } from '../../core/contract.ts';
import { ERROR_CODES } from '../../core/errors.ts';
import { buildOpenApi, servedRoutes } from '../openapi.ts';
import { PLANS, priceList } from '../plans.ts';
import { defineRoutes } from '../route.ts';

export const metaRoutes = defineRoutes([
  {
    id: 'getService',
    method: 'GET',
    path: '/',
    summary: 'Service identification',
    tag: 'Service',
    credential: 'public',
    form: 'plain',
    handler: async () => ({
      item: {
        name: SERVICE_NAME,
        api_version: API_VERSION,
        contract_date: CONTRACT_DATE,
        vocabulary_version: VOCABULARY_VERSION,
        openapi: '/openapi.json',
        documentation: 'https://landlex.dev/docs',
      },
    }),
  },
  {
    id: 'getHealth',
    method: 'GET',
    path: '/health',
    summary: 'Health: the service and its database',
    tag: 'Service',
    credential: 'public',
    form: 'plain',
    handler: async ({ services }) => {
      const started = performance.now();
      let database = 'ok';
      try {
        await services.pool.query('SELECT 1');
      } catch {
        database = 'unavailable';
      }
      return {
        status: database === 'ok' ? 200 : 503,
        item: {
          status: database === 'ok' ? 'ok' : 'degraded',
          database,
          database_ms: Math.round((performance.now() - started) * 10) / 10,
          started_at: services.startedAt.toISOString(),
        },
      };
    },
  },
  {
    id: 'listPlans',
    method: 'GET',
    path: '/plan',
    summary: 'Plans on offer, with the price of every priced operation',
    tag: 'Service',
    credential: 'public',
    form: 'plain',
    collection: true,
    handler: async ({ services }) => {
      const { allRoutes } = await import('./index.ts');
      const prices = priceList(allRoutes);
      return {
        item: PLANS.map((p) => ({ ...p, rate_limit_per_second: services.config.rateLimitPerSecond, price: prices })),
        page: { size: PLANS.length, next_cursor: null },
      };
    },
  },
  {
    id: 'listErrorCodes',
    method: 'GET',
    path: '/vocabulary/error_code',
    summary: 'Every error code, its HTTP status and meaning',
    tag: 'Service',
    credential: 'public',
    form: 'plain',
    collection: true,
    handler: async () => {
      const item = Object.entries(ERROR_CODES).map(([code, info]) => ({ code, ...info }));
      return { item, page: { size: item.length, next_cursor: null } };
    },
  },
  {
    id: 'getOpenApi',
    method: 'GET',
    path: '/openapi.json',
    summary: 'This API described in OpenAPI 3.1',
    tag: 'Service',
    credential: 'public',
    form: 'raw',
    handler: async ({ services, ctx }) => {
      const { allRoutes } = await import('./index.ts');
      return { body: buildOpenApi(servedRoutes(ctx, allRoutes), services.config.publicBaseUrl), contentType: 'application/json' };
    },
  },
]);
