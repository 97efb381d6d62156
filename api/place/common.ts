// What /place, /rule and /conformance share: reading the location and times from the request,
// resolving them, and the resolution, jurisdiction and coverage blocks of the answer.
import { createHash } from 'node:crypto';
import { ApiError } from '../../core/errors.ts';
import { PROVISIONAL_ZONE, type TimeInstant, type TimeValue, resolveTimes, timeBlock } from '../../core/time.ts';
import { settledKnowledge } from '../../store/changes.ts';
import type { Queryable } from '../../store/db.ts';
import { type Frame, loadFrame } from '../../store/place/frame.ts';
import { type LocationInput, type Resolved, resolveLocation, type Times } from '../../store/place/resolve.ts';
import { issueToken, readToken } from '../location/token.ts';
import type { Req } from '../route.ts';
import type { Services } from '../services.ts';
import { sameDates } from './zone.ts';

export interface PlaceContext {
  /** the jurisdiction's coverage, authorities and feed watermark (null when none was resolved) */
  frame: Frame | null;
  resolved: Resolved;
  times: Times;
  asOf: TimeValue;
  knownAsOf: TimeValue;
  jurisdiction: JurisdictionRef | null;
  token: { token: string; expiresAt: string } | null;
  /** set when a load of the jurisdiction held the knowledge instant asked: answered just before it */
  settled: SettledKnown | null;
}

export interface SettledKnown {
  requested: string;
  instant: string;
  jurisdictions: string[];
}

/**
 * Knowledge time as it can be answered for these jurisdictions (store/changes.ts): when a load
 * of one of them was in flight at the instant asked (or its window, kept once settled, holds
 * it), the instant just before that load began; the same on every repetition.
 */
export async function settleKnown(db: Queryable, k: TimeValue, jurisdictionIds: string[]): Promise<{ knownAsOf: TimeValue; settled: SettledKnown | null }> {
  const at = k.kind === 'instant' ? k.instant : k.end;
  const clamps = await settledKnowledge(db, at, jurisdictionIds);
  if (clamps.size === 0) return { knownAsOf: k, settled: null };
  const instant = [...clamps.values()].sort()[0];
  const knownAsOf: TimeValue = k.kind === 'instant' ? { ...k, instant, date: instant.slice(0, 10) } : { ...k, end: instant };
  return { knownAsOf, settled: { requested: at, instant, jurisdictions: [...clamps.keys()].sort() } };
}

/** The notice an answer carries when its knowledge instant was settled back before a load. */
export function settledNotice(s: SettledKnown) {
  return {
    code: 'known_as_of_settled',
    severity: 'info',
    detail: `A load of this jurisdiction's sources began before ${s.requested} and was not committed by then; the answer is as known at ${s.instant}, just before that load began, and repeating the question gives the same answer.`,
    count: s.jurisdictions.length,
    subject: s.jurisdictions,
  };
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
  // dates are read in the jurisdiction's own zone: found first provisionally, again if the zone moves them (zone.ts)
  const now = new Date();
  let t = resolveTimes(p, PROVISIONAL_ZONE, now);
  let resolved = await resolveLocation(db, input, pointTimes(t.asOf, t.knownAsOf));
  let jurisdiction: JurisdictionRef | null = null;
  let frame: Frame | null = null;
  let settled: SettledKnown | null = null;
  // as known now, the frame may come from the process's cache (dropped when knowledge changes)
  const frameAt = (id: string) => (t.knownAsOf.basis === 'default' ? services.frames.get(db, id, subjects, pointTimes(t.asOf, t.knownAsOf)) : loadFrame(db, id, subjects, pointTimes(t.asOf, t.knownAsOf)));
  if (resolved.jurisdiction) {
    const j = resolved.jurisdiction;
    frame = await frameAt(j);
    const own = resolveTimes(p, frame.jurisdiction.timezone, now);
    const moved = !sameDates(t, own);
    t = own;
    if (moved) {
      // found again on the jurisdiction's own dates (kept as first found if that leaves the jurisdiction)
      const again = await resolveLocation(db, input, pointTimes(t.asOf, t.knownAsOf));
      if (again.jurisdiction === j) resolved = again;
      frame = await frameAt(j);
    }
    if (frame.loadWindow) {
      const s = await settleKnown(db, t.knownAsOf, [j]);
      if (s.settled) {
        // a load of the jurisdiction was in flight at the instant asked: answer as known before it
        settled = s.settled;
        t = { ...t, knownAsOf: s.knownAsOf };
        const again = await resolveLocation(db, input, pointTimes(t.asOf, t.knownAsOf));
        if (again.jurisdiction === resolved.jurisdiction) resolved = again;
        // read, not cached: the settled instant is not "now" (its basis still says default)
        frame = await loadFrame(db, resolved.jurisdiction!, subjects, pointTimes(t.asOf, t.knownAsOf));
      }
    }
    jurisdiction = { ...frame.jurisdiction, href: `/jurisdiction/${frame.jurisdiction.id}` };
  }
  if (p.strict && resolved.state !== 'resolved') {
    throw new ApiError(resolved.state === 'ambiguous' ? 'location_ambiguous' : 'location_insufficient_precision', {
      field: input.address ? 'address' : input.apn ? 'apn' : 'location',
      detail: `${resolved.detail ?? `the location resolves to a ${resolved.grain}`}; strict=true refuses ${resolved.state === 'ambiguous' ? 'an ambiguous' : 'a too coarse'} location`,
    });
  }
  const token =
    resolved.geojson && resolved.state === 'resolved'
      ? issueToken(services.secret, { geojson: resolved.parcels.length && resolved.grain === 'parcel' ? null : resolved.geojson, parcels: resolved.parcels.map((x) => x.id), jurisdiction: resolved.jurisdiction, grain: resolved.grain, input: resolved.input, point: resolved.point })
      : null;
  return { frame, resolved, times: pointTimes(t.asOf, t.knownAsOf), asOf: t.asOf, knownAsOf: t.knownAsOf, jurisdiction, token, settled };
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

export function coverageBlock(c: Pick<PlaceContext, 'jurisdiction' | 'frame'>, layers: string[]) {
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
  return timeBlock({ asOf: c.asOf, knownAsOf: c.knownAsOf, timezone: c.jurisdiction?.timezone ?? PROVISIONAL_ZONE, earliestRetained: earliest, segmentCount: segments });
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

/**
 * Uses named by vocabulary slug or use_ id, as slugs; a value the uses vocabulary does not hold
 * is 422 vocabulary_value_unknown naming the parameter (never the code's unlisted-use rule).
 */
export async function knownUses(db: Queryable, uses: string[] | undefined, field: (i: number) => string = () => 'use'): Promise<string[] | undefined> {
  if (!uses?.length) return uses;
  const { rows } = await db.query('SELECT slug, id FROM use_term WHERE slug = ANY($1::text[]) OR id = ANY($1::text[])', [uses]);
  const slugOf = new Map<string, string>();
  for (const r of rows) {
    slugOf.set(r.slug, r.slug);
    slugOf.set(r.id, r.slug);
  }
  const i = uses.findIndex((u) => !slugOf.has(u));
  if (i >= 0) {
    const unknown = uses.filter((u) => !slugOf.has(u));
    const near = await db.query('SELECT slug FROM use_term ORDER BY similarity(slug, $1) DESC, slug LIMIT 3', [uses[i]]);
    throw new ApiError('vocabulary_value_unknown', {
      field: field(i),
      detail: `${unknown.map((u) => JSON.stringify(u)).join(', ')} ${unknown.length > 1 ? 'are' : 'is'} not in the uses vocabulary (dotted slugs or use_ ids; nearest: ${near.rows.map((r) => r.slug).join(', ') || 'none held'}). A use the vocabulary does not hold is refused, not answered by the code's rule for unlisted uses.`,
    });
  }
  return [...new Set(uses.map((u) => slugOf.get(u)!))];
}

/** Which place an answer is about, for repeat-free charges: its parcels, else its shape. */
export function placeKey(c: PlaceContext): string {
  const r = c.resolved;
  if (r.parcels.length) return `parcel:${r.parcels.map((p) => p.id).sort().join('+')}`;
  return `shape:${createHash('sha256').update(r.geojson ?? r.input).digest('hex').slice(0, 24)}`;
}

export const isInstant = (t: TimeValue): t is TimeInstant => t.kind === 'instant';
