// The in-process dispatcher (TEMPORAL_ADDRESS unset): sends due deliveries from the outbox, a few
// at a time, one at a time per webhook (its queue's head), woken by the outbox's notification and
// by the next retry coming due. Any number of processes may run one: leases keep them apart.
import { inBackground } from '../../core/background.ts';
import type { Logger } from '../../core/log.ts';
import type { Pool } from '../../store/db.ts';
import type { PgListener } from '../../store/listen.ts';
import { claimDue, nextDueAt } from '../../store/webhooks/deliveries.ts';
import { outboxTidier } from '../../store/webhooks/tidy.ts';
import { ATTEMPT_TIMEOUT_MS, type AttemptDeps, leaseSecondsFor, sendLeased } from './attempt.ts';

export const WEBHOOK_CHANNEL = 'landlex_webhook';

export interface Dispatcher {
  /** look for due deliveries now (an event was just enqueued in a committed transaction) */
  kick(): void;
  stop(): Promise<void>;
}

export interface DispatchOptions extends Omit<AttemptDeps, 'pool'> {
  /** attempts in flight at once (each to a different webhook) */
  concurrency?: number;
  /** look again at least this often (ms), for retries coming due */
  pollMs?: number;
}

export function startDispatcher(pool: Pool, log: Logger, listen: PgListener | null, opts: DispatchOptions = {}): Dispatcher {
  const concurrency = opts.concurrency ?? 16;
  const pollMs = opts.pollMs ?? 1000;
  const tidy = outboxTidier(pool, (err) => log.warn('webhook outbox vacuum failed', { err }));
  const deps: AttemptDeps = { pool, tidy, ...opts };
  const inFlight = new Map<string, Promise<unknown>>();
  let stopped = false;
  let filling: Promise<void> | null = null;
  let again = false;
  let timer: NodeJS.Timeout | null = null;

  // Start attempts into the free slots; each that ends frees its slot and fills again, so a slow
  // receiver holds one slot, never the others.
  const leaseSeconds = leaseSecondsFor(opts.timeoutMs ?? ATTEMPT_TIMEOUT_MS);
  let claimed = 0;
  const fillOnce = async () => {
    const free = concurrency - inFlight.size;
    if (stopped || free <= 0) return;
    const leases = await claimDue(pool, free, leaseSeconds, [...inFlight.keys()]);
    claimed = leases.length;
    for (const lease of leases) {
      const p = sendLeased(deps, lease)
        .catch((err) => log.warn('webhook attempt failed to run', { delivery: lease.id, err }))
        .finally(() => {
          inFlight.delete(lease.id);
          kick();
        });
      inFlight.set(lease.id, p);
    }
  };

  const fill = (): Promise<void> => {
    if (filling) {
      again = true;
      return filling;
    }
    filling = (async () => {
      do {
        again = false;
        await fillOnce();
      } while (again && !stopped);
    })().finally(() => {
      filling = null;
      // nothing more was due: look again when the next retry falls due
      if (claimed === 0 && inFlight.size === 0) inBackground(log, 'webhook schedule', schedule);
    });
    return filling;
  };

  const schedule = async () => {
    if (stopped) return;
    const at = await nextDueAt(pool);
    const wait = at ? Math.max(10, Math.min(pollMs, at.getTime() - Date.now())) : pollMs;
    if (timer) clearTimeout(timer);
    timer = setTimeout(kick, wait);
    timer.unref();
  };

  // attempts that end in the same turn of the event loop refill their slots with one claim
  let kicked = false;
  function kick() {
    if (stopped || kicked) return;
    kicked = true;
    setImmediate(() => {
      kicked = false;
      inBackground(log, 'webhook dispatch', fill);
    });
  }

  if (listen) inBackground(log, 'webhook listen', () => listen.on(WEBHOOK_CHANNEL, kick));
  listen?.onReconnect(kick);
  kick();

  return {
    kick,
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      await filling?.catch(() => {});
      await Promise.allSettled(inFlight.values());
      await tidy.idle();
    },
  };
}
