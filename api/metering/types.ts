// The metering contract the HTTP layer relies on. api/metering/meter.ts implements it over
// PostgreSQL: credit leased to each process in blocks, usage written in batches.

export interface Reservation {
  readonly organizationId: string;
  readonly credits: number;
}

export interface UsageRecord {
  organizationId: string;
  keyId?: string | null;
  personId?: string | null;
  requestId: string;
  /** the route id, e.g. "GET /v1/zoning" */
  endpoint: string;
  status: number;
  credits: number;
  at: Date;
}

/** A token bucket: refilled at perSecond, holding at most burst (calls at once). */
export interface RatePolicy {
  perSecond: number;
  burst: number;
}

export interface RateDecision {
  allowed: boolean;
  /** whole seconds to wait when not allowed */
  retryAfterSeconds: number;
  /** the bucket's size (RateLimit-Limit) */
  limit: number;
  /** tokens left after this call, as this process knows them (RateLimit-Remaining) */
  remaining: number;
  /** whole seconds until the bucket is full again (RateLimit-Reset) */
  resetSeconds: number;
}

export interface Meter {
  /** Take credits for one call; null when the balance cannot cover it (nothing taken). */
  reserve(organizationId: string, credits: number): Promise<Reservation | null>;
  /** The call was answered: the reserved credits are spent. */
  commit(reservation: Reservation): void;
  /** The call was not answered: the reserved credits go back. */
  release(reservation: Reservation): void;
  /** Record one call for usage (answered or refused); written in batches. */
  record(usage: UsageRecord): void;
  /**
   * Claim charge keys atomically: returns the keys not charged within the last `hours`
   * (these are charged now); the others are free repeats. Concurrent claims of one key get it once.
   */
  claimCharges(organizationId: string, keys: string[], hours: number): Promise<string[]>;
  /** Undo a claim whose call was not answered (402 or failure). */
  unclaimCharges(organizationId: string, keys: string[]): Promise<void>;
  /** Take one token from the subject's bucket (shared by every process). */
  hit(subject: string, policy: RatePolicy): Promise<RateDecision>;
  /** Token claims sent to the database so far (measurement: claims per call). */
  rateClaims(): number;
  /** Write pending usage and spends now. */
  flush(): Promise<void>;
  /** Flush and give back every unspent leased credit (shutdown). */
  close(): Promise<void>;
}
