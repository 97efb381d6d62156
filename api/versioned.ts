// Optimistic concurrency for records an organization edits (regions, webhooks): the ETag is
// "<id>.<version>" and If-Match names the versions the change was based on.
import { ApiError } from '../core/errors.ts';
import type { Req } from './route.ts';

export const etagOf = (r: { id: string; version: number }) => `"${r.id}.${r.version}"`;

/** The versions If-Match names for this record (null: absent or *, any version). */
export function ifMatch(req: Req, id: string): number[] | null {
  const raw = req.ctx.get('if-match').trim();
  if (!raw || raw === '*') return null;
  return raw.split(',').flatMap((tag) => {
    const m = /^(?:W\/)?"([^".]+)\.(\d+)"$/.exec(tag.trim());
    return m && m[1] === id ? [Number(m[2])] : [];
  });
}

export const staleVersion = (what: string, id: string, href: string) =>
  new ApiError('version_conflict', { field: 'If-Match', detail: `${what} ${id} changed since the ETag sent was read; read it again (GET ${href}) and resend.` });
