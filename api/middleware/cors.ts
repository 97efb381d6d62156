// CORS (Fetch standard) for every path: pages on other origins may call the API, tiles, TileJSON,
// OGC and the viewer with a key in a header. Never with cookies (no Allow-Credentials): a
// credential is a header the page sends on purpose. Origins from CORS_ORIGINS: '*' answers any;
// a list echoes the matching Origin, with Vary: Origin on every answer.
import type Koa from 'koa';
import { ApiError } from '../../core/errors.ts';
import type { Router } from '../router.ts';

/** Request headers a page may send (beyond the CORS-safelisted ones). */
export const ALLOWED_HEADERS = [
  'Authorization', 'X-API-Key', 'Content-Type', 'Accept', 'If-Match', 'If-None-Match', 'If-Modified-Since',
  'Idempotency-Key', 'Last-Event-ID', 'Cache-Control',
];

/** Answer headers a page may read (beyond the CORS-safelisted ones). */
export const EXPOSED_HEADERS = [
  'ETag', 'Link', 'Location', 'Retry-After', 'RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset', 'RateLimit-Policy',
  'Content-Encoding', 'Content-Disposition', 'Content-Crs', 'WWW-Authenticate', 'Allow', 'Idempotent-Replayed',
  'X-Request-Id', 'X-Answered-At', 'X-As-Of', 'X-Known-As-Of', 'X-Map-Version', 'X-Map-Effective-From',
  'X-Passage-Start', 'X-Passage-End', 'X-Source-Retrieved-At', 'X-Version',
];

/** How long a browser may keep a preflight's answer (Chromium keeps at most 2 h, Firefox 24 h). */
export const PREFLIGHT_MAX_AGE = 86_400;

const ALL_METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'];

/** The Access-Control-Allow-Origin for a request's Origin, or null when it is not allowed (pure). */
export function allowedOrigin(origins: '*' | string[], origin: string | undefined): string | null {
  if (origins === '*') return '*';
  return origin !== undefined && origins.includes(origin) ? origin : null;
}

export function cors(origins: '*' | string[], router: Router): Koa.Middleware {
  return async (ctx, next) => {
    const origin = ctx.get('Origin') || undefined;
    if (origins !== '*') ctx.vary('Origin');
    const allow = origin ? allowedOrigin(origins, origin) : null;
    if (allow) {
      ctx.set('Access-Control-Allow-Origin', allow);
      ctx.set('Access-Control-Expose-Headers', EXPOSED_HEADERS.join(', '));
    }
    if (ctx.method !== 'OPTIONS') {
      try {
        return await next();
      } finally {
        // again after the handler, whose own Vary (Accept-Encoding) replaces the header
        if (origins !== '*') ctx.vary('Origin');
      }
    }
    const methods = router.methodsAt(ctx.path);
    const preflight = origin !== undefined && ctx.get('Access-Control-Request-Method') !== '';
    // a preflight is answered for any path (the call itself then gets its 404 or 405, readable by the page)
    if (!preflight && methods.length === 0) throw new ApiError('no_such_resource', { detail: `No resource is at ${ctx.path}.` });
    const listed = [...(methods.length > 0 ? methods : ALL_METHODS), 'OPTIONS'];
    ctx.set('Allow', listed.join(', '));
    if (preflight && allow) {
      ctx.set('Access-Control-Allow-Methods', listed.join(', '));
      ctx.set('Access-Control-Allow-Headers', ALLOWED_HEADERS.join(', '));
      ctx.set('Access-Control-Max-Age', String(PREFLIGHT_MAX_AGE));
    }
    ctx.status = 204;
  };
}
