// What every loader receives and returns. A loader reads one parsed source version into the
// store inside the caller's transaction and says which change events it implies.
import type { SourceManifest } from '../../ingest/manifest.ts';
import type { ParseIssue } from '../../ingest/types.ts';
import type { ChangeEventDraft } from '../changes.ts';
import type { CoverageUpdate } from '../coverage.ts';
import type { Client } from '../db.ts';

export interface LoadContext {
  client: Client;
  jurisdictionId: string;
  source: { id: string; key: string; manifest: SourceManifest };
  version: { id: string; documentId: string; number: number; retrievedAt: Date; sha256: string };
  /** knowledge time of this load: detected_at of its events, lower bound of `known` */
  now: Date;
  /** when the version's content took effect: stated by the publisher, else first observed */
  effectiveFrom: string;
  effectiveBasis: 'stated' | 'first_observed';
  /** the first date this source was held: facts effective before it are backfill, not change */
  firstHeld: string;
  /** the jurisdiction's timezone: every date of a load is a local date */
  timezone: string;
  /** whether an earlier version of this source was loaded (the first load changes nothing) */
  priorLoaded: boolean;
  /** the bytes of the version (or the path of its blob, for streaming readers) */
  bytes: () => Promise<Buffer>;
  blobPath: string | null;
  beat: (detail?: unknown) => void;
}

export interface LoadResult {
  counts: Record<string, number>;
  events: ChangeEventDraft[];
  issues: ParseIssue[];
  coverage: CoverageUpdate[];
}

export type Loader = (ctx: LoadContext) => Promise<LoadResult>;

/** A fact newly found whose effect predates what we held: recorded, but not a new change. */
export function isBackfill(ctx: LoadContext, validFrom: string): boolean {
  return !ctx.priorLoaded || validFrom < ctx.firstHeld;
}
