// What /place, /rule and /conformance share: reading the location and times from the request,
// resolving them, and the resolution, jurisdiction and coverage blocks of the answer.
import { createHash } from 'node:crypto';
import { ApiError } from '../../core/errors.ts';
import { type TimeInstant, type TimeValue, resolveTimes, timeBlock } from '../../core/time.ts';
import { type Frame, loadFrame } from '../../store/place/frame.ts';
import { type LocationInput, type Resolved, resolveLocation, type Times } from '../../store/place/resolve.ts';
import { issueToken, readToken } from '../location/token.ts';
import type { Req } from '../route.ts';
import type { Services } from '../services.ts';

export interface PlaceContext {
  /** the jurisdiction's coverage, authorities and feed watermark (null when none was resolved) */
  frame: Frame | null;
  resolved: Resolved;
  times: Times;
  asOf: TimeValue;
  knownAsOf: TimeValue;
  jurisdiction: JurisdictionRef | null;
  token: { token: string; expiresAt: string } | null;
}

export interface JurisdictionRef {
  id: string;
  name: string;
  legal_name: string | null;
  fips_key: string;
  slug: string;
  timezone: string;
  href: string;
}

/** A single date and instant for point questions: an interval answers at its end. */
export function pointTimes(asOf: TimeValue, knownAsOf: TimeValue): Times {
  const date = asOf.kind === 'instant' ? asOf.date : asOf.to;
  const known = knownAsOf.kind === 'instant' ? knownAsOf.instant : knownAsOf.end;
  return { asOf: date, knownAsOf: known };
}

export function placeContext(req: Req): Promise<PlaceContext> {
  return placeContextFor(req.services, { ...req.params, geometry: req.params.geometry ?? req.body?.geometry });
}

/** Resolve the location and times named by location and time parameters (already parsed). */
export async function placeContextFor(services: Services, p: Record<string, any>, subjects: string[] = ['zoning']): Promise<PlaceContext> {
  const db = services.pool;
  const input: LocationInput = {
    address: p.address,
    point: p.point,
    geometry: p.geometry,
    buffer: p.buffer,
    buffer_unit: p.buffer_unit,
    parcel: p.parcel,
    apn: p.apn,
    fips: p.fips,
    plss: p.plss,
    token: p.location_token ? readToken(services.secret, p.location_token) : undefined,
  };
  // The jurisdiction's timezone fixes a default as_of; resolve first in New England's, then again.
  let t = resolveTimes(p, 'America/New_York');
  const resolved = await resolveLocation(db, input, pointTimes(t.asOf, t.knownAsOf));
  let jurisdiction: JurisdictionRef | null = null;
  let frame: Frame | null = null;
  if (resolved.jurisdiction) {
    frame = await loadFrame(db, resolved.jurisdiction, subjects, pointTimes(t.asOf, t.knownAsOf));
    jurisdiction = { ...frame.jurisdiction, href: `/jurisdiction/${frame.jurisdiction.id}` };
    if (jurisdiction.timezone !== 'America/New_York') {
      t = resolveTimes(p, jurisdiction.timezone);
      frame = await loadFrame(db, resolved.jurisdiction, subjects, pointTimes(t.asOf, t.knownAsOf));
    }
  }
  if (p.strict && resolved.state !== 'resolved') {
    throw new ApiError(resolved.state === 'ambiguous' ? 'location_ambiguous' : 'location_insufficient_precision', {
      field: input.address ? 'address' : input.apn ? 'apn' : 'location',
      detail: `${resolved.detail ?? `the location resolves to a ${resolved.grain}`}; strict=true refuses ${resolved.state === 'ambiguous' ? 'an ambiguous' : 'a too coarse'} location`,
    });
  }
  const token =
    resolved.geojson && resolved.state === 'resolved'
      ? issueToken(services.secret, { geojson: resolved.geojson, parcels: resolved.parcels.map((x) => x.id), jurisdiction: resolved.jurisdiction, grain: resolved.grain, input: resolved.input })
      : null;
  return { frame, resolved, times: pointTimes(t.asOf, t.knownAsOf), asOf: t.asOf, knownAsOf: t.knownAsOf, jurisdiction, token };
}

export function resolutionBlock(c: PlaceContext) {
  const r = c.resolved;
  return {
    state: r.state,
    grain: r.grain,
    grain_requested: r.grain_requested,
    precision: r.precision,
    input: r.input,
    location_token: c.token?.token ?? null,
    token_expires_at: c.token?.expiresAt ?? null,
    jurisdiction: r.jurisdiction,
    parcel: r.parcels.length === 1 ? r.parcels[0].id : null,
    parcel_key: r.parcels.length === 1 ? r.parcels[0].parcel_key || null : null,
    parcels: r.parcels.length > 1 ? r.parcels.map((x) => x.id) : undefined,
    candidates: r.candidates.length ? r.candidates : undefined,
    detail: r.detail ?? undefined,
  };
}

export function jurisdictionBlock(j: JurisdictionRef | null) {
  if (!j) return null;
  return { id: j.id, name: j.name, fips_key: j.fips_key, slug: j.slug, href: j.href, legal_name: j.legal_name };
}

export function coverageBlock(c: PlaceContext, layers: string[]) {
  const j = c.jurisdiction;
  if (!j || !c.frame) return null;
  const rows = c.frame.coverage;
  const layer: Record<string, unknown> = {};
  for (const name of layers) {
    const r = rows.find((x) => x.layer === name);
    layer[name] = r
      ? { held: r.held, tier: r.tier, last_retrieved_at: r.last_retrieved_at, last_changed_at: r.last_changed_at, earliest_retained: r.earliest_retained }
      : { held: false, tier: 'none', reason: 'no public source for this layer is held' };
  }
  return { jurisdiction: j.id, layer, href: `/coverage?jurisdiction=${j.id}` };
}

export function asOfBlock(c: PlaceContext, earliest: Record<string, string>, segments?: number) {
  return timeBlock({ asOf: c.asOf, knownAsOf: c.knownAsOf, timezone: c.jurisdiction?.timezone ?? 'America/New_York', earliestRetained: earliest, segmentCount: segments });
}

/** earliest_retained per layer, from coverage. */
export function earliestRetained(coverage: Awaited<ReturnType<typeof coverageBlock>>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [layer, v] of Object.entries(coverage?.layer ?? {})) {
    const e = (v as { earliest_retained?: string | null }).earliest_retained;
    if (e) out[layer] = e;
  }
  return out;
}

/** Which place an answer is about, for repeat-free charges: its parcels, else its shape. */
export function placeKey(c: PlaceContext): string {
  const r = c.resolved;
  if (r.parcels.length) return `parcel:${r.parcels.map((p) => p.id).sort().join('+')}`;
  return `shape:${createHash('sha256').update(r.geojson ?? r.input).digest('hex').slice(0, 24)}`;
}

export const isInstant = (t: TimeValue): t is TimeInstant => t.kind === 'instant';
