// The two answer forms (spec 2.2, 2.3) and the two error shapes (spec 7.1).
import { API_VERSION, CONTRACT_DATE, VOCABULARY_VERSION } from '../core/contract.ts';
import { type ApiError, ERROR_CODES } from '../core/errors.ts';
import type { Answer, Form } from './route.ts';

export interface EnvelopeContext {
  path: string;
  params: Record<string, unknown>;
  requestId: string;
  dryRun: boolean;
  cost: number;
}

/** Parameters as understood: dates and objects rendered as JSON would, undefined left out. */
function understood(params: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(params)) {
    if (v === undefined) continue;
    out[k] = v && typeof v === 'object' && 'text' in (v as object) ? (v as { text: unknown }).text : v;
  }
  return out;
}

export function metaBlock(c: EnvelopeContext, extra: Record<string, unknown> = {}) {
  return {
    contract_date: CONTRACT_DATE,
    vocabulary_version: VOCABULARY_VERSION,
    request_id: c.requestId,
    api_version: API_VERSION,
    cost: String(c.cost),
    unit: { cost: 'credit', length: 'ft', area: 'sq_ft', money: 'USD', consideration: 'cents' },
    ...extra,
  };
}

export function renderAnswer(form: Form, answer: Answer, c: EnvelopeContext): unknown {
  if (form === 'raw') return answer.body;
  if (form === 'bare') return { item: answer.item, page: answer.page, ...answer.extra };
  if (form === 'v1') {
    if (Array.isArray(answer.item)) {
      const page = (answer.page ?? {}) as { next_cursor?: string | null; total?: unknown; suppressed?: number };
      return {
        object: 'list',
        data: answer.item,
        has_more: answer.hasMore ?? Boolean(page.next_cursor),
        next_cursor: answer.nextCursor ?? (page.next_cursor as string | undefined) ?? null,
        ...(page.total ? { total: page.total } : {}),
        ...(page.suppressed !== undefined ? { suppressed: page.suppressed } : {}),
        ...answer.extra,
      };
    }
    return answer.item ?? answer.body;
  }
  const body: Record<string, unknown> = {
    request: { path: c.path, param: understood(c.params), dry_run: c.dryRun },
    meta: metaBlock(c, answer.meta),
    ...answer.extra,
    item: answer.item ?? null,
  };
  if (answer.page) body.page = answer.page;
  return body;
}

/** Unversioned refusal: {detail: {error: {code, field, detail, message, message_title}}}. */
export function plainError(err: ApiError, requestId: string) {
  return {
    detail: {
      error: {
        code: err.code,
        field: err.field,
        detail: err.detail,
        message: err.detail,
        message_title: ERROR_CODES[err.code].title,
        request_id: requestId,
      },
    },
  };
}

/** /v1 refusal: a problem object (RFC 9457) with code, detail and, for 422, errors[]. */
export function problem(err: ApiError, requestId: string) {
  const body: Record<string, unknown> = {
    type: `https://landlex.dev/errors/${err.code}`,
    title: ERROR_CODES[err.code].title,
    status: err.status,
    code: err.code,
    detail: err.detail,
    request_id: requestId,
  };
  if (err.status === 422) {
    body.errors = [{ field: err.field, code: err.code, detail: err.detail }, ...err.errors];
  }
  return body;
}
