// Idempotency-Key: the first response to a key is kept for 24 hours and replayed to repeats;
// the same key with another request is refused; a request still running answers 409.
import type Koa from 'koa';
import { ApiError } from '../core/errors.ts';
import { sha256Hex } from '../core/ids.ts';
import { type Pool, withTransaction } from '../store/db.ts';
import type { Actor } from './auth.ts';

export const REPLAY_HOURS = 24;
const KEPT_HEADERS = ['content-type', 'location', 'etag'];

function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value && typeof value === 'object') {
    return `{${Object.keys(value as object)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical((value as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

export async function withIdempotency(
  ctx: Koa.Context,
  pool: Pool,
  actor: Actor | null,
  body: unknown,
  produce: () => Promise<void>,
): Promise<void> {
  const key = ctx.get('idempotency-key');
  if (!key || !actor) return produce();
  if (key.length > 255 || !/^[\x21-\x7e]+$/.test(key)) {
    throw new ApiError('parameter_invalid', { field: 'Idempotency-Key', detail: 'must be 1 to 255 printable ASCII characters' });
  }
  const org = actor.organizationId;
  const fingerprint = sha256Hex(`${ctx.method} ${ctx.path}?${ctx.querystring}\n${canonical(body ?? null)}`);

  await pool.query(
    `DELETE FROM idempotency_record WHERE organization_id = $1 AND key = $2 AND created_at < now() - make_interval(hours => $3)`,
    [org, key, REPLAY_HOURS],
  );
  const inserted = await pool.query(
    `INSERT INTO idempotency_record (organization_id, key, method, path, request_sha256)
     VALUES ($1, $2, $3, $4, $5) ON CONFLICT DO NOTHING RETURNING key`,
    [org, key, ctx.method, ctx.path, fingerprint],
  );
  if (inserted.rowCount === 0) {
    const { rows } = await pool.query(
      `SELECT request_sha256, status, response_headers, response_body FROM idempotency_record WHERE organization_id = $1 AND key = $2`,
      [org, key],
    );
    const prior = rows[0];
    if (!prior) return withIdempotency(ctx, pool, actor, body, produce);
    if (prior.request_sha256 !== fingerprint) {
      throw new ApiError('idempotency_key_reused', {
        field: 'Idempotency-Key',
        detail: 'This Idempotency-Key was used with a different request in the last 24 hours; use a new key.',
      });
    }
    if (prior.status === null) throw new ApiError('idempotency_in_progress', { field: 'Idempotency-Key' });
    ctx.status = prior.status;
    for (const [h, v] of Object.entries(prior.response_headers ?? {})) ctx.set(h, String(v));
    ctx.set('Idempotent-Replayed', 'true');
    ctx.body = prior.response_body;
    return;
  }

  try {
    await produce();
  } catch (err) {
    await pool.query('DELETE FROM idempotency_record WHERE organization_id = $1 AND key = $2', [org, key]);
    throw err;
  }
  if (ctx.status >= 500) {
    await pool.query('DELETE FROM idempotency_record WHERE organization_id = $1 AND key = $2', [org, key]);
    return;
  }
  const bytes = ctx.body === undefined || ctx.body === null ? Buffer.alloc(0) : Buffer.isBuffer(ctx.body) ? ctx.body : Buffer.from(typeof ctx.body === 'string' ? ctx.body : JSON.stringify(ctx.body));
  const headers: Record<string, string> = {};
  for (const h of KEPT_HEADERS) if (ctx.response.get(h)) headers[h] = ctx.response.get(h);
  if (!headers['content-type'] && bytes.length > 0) headers['content-type'] = 'application/json; charset=utf-8';
  // a replay record must survive a crash: this commit waits for the disk
  await withTransaction(pool, async (c) => {
    await c.query('SET LOCAL synchronous_commit = on');
    await c.query(
      `UPDATE idempotency_record SET status = $3, response_headers = $4, response_body = $5, completed_at = now()
        WHERE organization_id = $1 AND key = $2`,
      [org, key, ctx.status, headers, bytes],
    );
  });
  ctx.body = bytes;
}
