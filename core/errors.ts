// One error taxonomy for the whole service: every refusal is an ApiError whose
// code maps to one HTTP status here. The table is served at GET /vocabulary/error_code.

export interface ErrorCodeInfo {
  status: number;
  title: string;
  description: string;
  /** true when the code is named by the contract (spec 7.2); false when Landlex added it. */
  contract: boolean;
}

export const ERROR_CODES = {
  credential_missing: { status: 401, title: 'Credential missing', description: 'No API key or bearer token was sent.', contract: true },
  credential_invalid: { status: 401, title: 'Credential invalid', description: 'The credential is unknown, revoked or was sent where credentials are not accepted (a query string).', contract: true },
  credential_expired: { status: 401, title: 'Credential expired', description: 'The credential was valid but has expired.', contract: true },
  quota_exhausted: { status: 402, title: 'Credit exhausted', description: 'The balance cannot cover the call; nothing was charged and nothing returned. Add credit; do not retry.', contract: true },
  entitlement_missing: { status: 403, title: 'Entitlement missing', description: 'The plan does not cover the operation.', contract: true },
  scope_missing: { status: 403, title: 'Scope missing', description: 'The credential lacks the scope or role the operation needs.', contract: true },
  person_required: { status: 403, title: 'Person required', description: 'The operation acts as a person; an API key belongs to no one.', contract: true },
  api_key_not_accepted: { status: 403, title: 'API key not accepted', description: 'The operation needs a console session; API keys cannot perform it.', contract: true },
  verification_required: { status: 403, title: 'Verification required', description: 'The email address is not verified yet; redeem the emailed link (POST /verification), then sign in.', contract: false },
  no_such_resource: { status: 404, title: 'No such resource', description: 'No record has the id given.', contract: true },
  method_not_allowed: { status: 405, title: 'Method not allowed', description: 'The path exists but does not answer this method; see the Allow header.', contract: false },
  version_conflict: { status: 409, title: 'Version conflict', description: 'The record changed since it was read (stale If-Match); read again and resend.', contract: true },
  idempotency_in_progress: { status: 409, title: 'Idempotent request in progress', description: 'A request with this Idempotency-Key is still being answered; retry shortly.', contract: false },
  body_malformed: { status: 400, title: 'Body malformed', description: 'The request body is not valid JSON.', contract: false },
  tile_coordinate_invalid: { status: 400, title: 'Tile coordinate invalid', description: 'z/x/y is not a tile of the Web Mercator grid.', contract: false },
  filter_unparsable: { status: 400, title: 'Filter does not parse', description: 'A CQL2 filter could not be parsed; detail gives the position.', contract: false },
  ogc_parameter_invalid: { status: 400, title: 'Parameter invalid', description: 'OGC API Features (/map/ogc) only: a query parameter value is not accepted; field names it. OGC answers 400 where the rest of the API answers 422 parameter_invalid.', contract: false },
  extract_expired: { status: 410, title: 'Extract expired', description: 'The extract file was removed after its expires_at; create the extract again.', contract: false },
  body_too_large: { status: 413, title: 'Body too large', description: 'The request body exceeds the size limit.', contract: false },
  media_type_unsupported: { status: 415, title: 'Media type unsupported', description: 'Bodies must be sent as application/json.', contract: false },
  parameter_invalid: { status: 422, title: 'Parameter invalid', description: 'A parameter value is not accepted; field names it.', contract: true },
  id_malformed: { status: 422, title: 'Id malformed', description: 'The id does not have the prefix and form its resource uses.', contract: true },
  field_unknown: { status: 422, title: 'Field unknown', description: 'Sort or filter on a field the list does not have; detail lists the valid fields.', contract: true },
  vocabulary_value_unknown: { status: 422, title: 'Value unknown', description: "A value outside the parameter's accepted values.", contract: true },
  cursor_expired: { status: 422, title: 'Cursor expired', description: 'The cursor is past its retention; restart from the first page.', contract: true },
  cursor_snapshot_gone: { status: 422, title: 'Cursor snapshot gone', description: 'The snapshot behind the cursor is no longer retained; restart.', contract: true },
  cursor_sort_mismatch: { status: 422, title: 'Cursor sort mismatch', description: 'The sort changed mid-walk; a cursor belongs to its ordering.', contract: true },
  sort_requires_query: { status: 422, title: 'Sort requires a query', description: 'The sort exists only with a query to rank against.', contract: true },
  idempotency_key_reused: { status: 422, title: 'Idempotency key reused', description: 'The Idempotency-Key was already used with a different request.', contract: false },
  as_of_before_retention: { status: 422, title: 'as_of before retained history', description: 'The as_of precedes the earliest retained version; send as_of_clamp=true to answer from it.', contract: false },
  location_ambiguous: { status: 422, title: 'Location ambiguous', description: 'Under strict=true, the location matched more than one candidate.', contract: false },
  location_insufficient_precision: { status: 422, title: 'Location too coarse', description: 'Under strict=true, the location is coarser than the grain asked.', contract: false },
  location_unmatched: { status: 422, title: 'Location unmatched', description: 'The location matched nothing held.', contract: false },
  rate_limited: { status: 429, title: 'Rate limited', description: 'Wait for Retry-After, then retry; nothing was charged.', contract: true },
  internal_error: { status: 500, title: 'Internal error', description: 'The service failed; nothing was charged. The request id identifies it in our logs.', contract: false },
  not_available: { status: 501, title: 'Not available', description: 'The operation does not answer yet, or the data is not held.', contract: true },
  service_unavailable: { status: 503, title: 'Service unavailable', description: 'The service is shutting down or a dependency is down; retry.', contract: false },
} as const satisfies Record<string, ErrorCodeInfo>;

export type ErrorCode = keyof typeof ERROR_CODES;

export interface ApiErrorOptions {
  field?: string | null;
  detail?: string;
  /** further invalid parameters, for the /v1 problem `errors` list */
  errors?: Array<{ field: string; code: ErrorCode; detail: string }>;
  headers?: Record<string, string>;
}

export class ApiError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly field: string | null;
  readonly detail: string;
  readonly errors: Array<{ field: string; code: ErrorCode; detail: string }>;
  readonly headers: Record<string, string>;

  constructor(code: ErrorCode, opts: ApiErrorOptions = {}) {
    const info = ERROR_CODES[code];
    super(opts.detail ?? info.description);
    this.name = 'ApiError';
    this.code = code;
    this.status = info.status;
    this.field = opts.field ?? null;
    this.detail = opts.detail ?? info.description;
    this.errors = opts.errors ?? [];
    this.headers = opts.headers ?? {};
  }
}

/** Shorthands used across the code. */
export const invalid = (field: string, detail: string) => new ApiError('parameter_invalid', { field, detail });
export const unknownValue = (field: string, value: string, allowed: readonly string[]) =>
  new ApiError('vocabulary_value_unknown', {
    field,
    detail: `${JSON.stringify(value)} is not one of: ${allowed.join(', ')}`,
  });
/** No record has the id. `field` names where the id was given: a query or body id is refused as 422 (api/params.ts). */
export const notFound = (what: string, id: string, field: string | null = null) =>
  new ApiError('no_such_resource', { field, detail: `No ${what} has the id ${id}.` });
