// The outbox's dead rows. Every outcome updates its delivery row, leaving the old version behind;
// the head lookups (first pending delivery of each webhook, in ord order) walk those versions'
// index entries until VACUUM removes them, so a long backlog slows every claim (bench:delivery:
// 984 deliveries/s over 100,000, 550/s past 800,000 dead rows). Autovacuum may be off or late (it
// is off on this machine), so the senders vacuum the delivery table themselves every so many outcomes.
import type { Pool } from '../db.ts';

/** Outcomes recorded between two vacuums of the delivery table. */
export const VACUUM_EVERY = 20_000;

export interface OutboxTidier {
  /** an outcome was recorded; every VACUUM_EVERY, the table is vacuumed in the background */
  noted(): void;
  /** the vacuum running, if any */
  idle(): Promise<void>;
}

/** A tidier for one process's senders; a vacuum that fails is reported to onError and tried again later. */
export function outboxTidier(pool: Pool, onError: (err: unknown) => void, every = VACUUM_EVERY): OutboxTidier {
  let since = 0;
  let running: Promise<void> | null = null;
  return {
    noted() {
      if (++since < every || running) return;
      since = 0;
      // SKIP_LOCKED: a vacuum another process is running is not waited for
      running = pool
        .query('VACUUM (SKIP_LOCKED) webhook_delivery')
        .then(
          () => {},
          (err) => onError(err),
        )
        .finally(() => {
          running = null;
        });
    },
    idle: () => running ?? Promise.resolve(),
  };
}
