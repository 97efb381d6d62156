// The digest sender: run by each API process on a timer (as the webhook dispatcher is), it sends
// every digest whose period has come. Any number of processes may run one: store/alerts/digest.ts
// sends each alert's period once. Tests drive sendDueDigests with the clock they pass.
import type { Logger } from '../../core/log.ts';
import type { Pool } from '../../store/db.ts';
import { dueDigests, sendDigest } from '../../store/alerts/digest.ts';

export interface DigestSender {
  /** send what is due now */
  run(): Promise<number>;
  stop(): Promise<void>;
}

/** Send every digest due at `now`; returns the notifications written. */
export async function sendDueDigests(pool: Pool, now: Date, log?: Logger): Promise<number> {
  let sent = 0;
  for (const id of await dueDigests(pool, now)) {
    try {
      if ((await sendDigest(pool, id, now)) !== null) sent += 1;
    } catch (err) {
      log?.warn('alert digest failed', { alert: id, err });
    }
  }
  return sent;
}

export function startDigestSender(pool: Pool, log: Logger, opts: { intervalMs?: number; now?: () => Date } = {}): DigestSender {
  const now = opts.now ?? (() => new Date());
  let running: Promise<number> | null = null;
  let stopped = false;
  const run = () => {
    running ??= sendDueDigests(pool, now(), log).finally(() => {
      running = null;
    });
    return running;
  };
  const timer = setInterval(() => {
    if (!stopped) run().catch((err) => log.warn('alert digests failed', { err }));
  }, opts.intervalMs ?? 30_000);
  timer.unref();
  return {
    run,
    async stop() {
      stopped = true;
      clearInterval(timer);
      await running?.catch(() => {});
    },
  };
}
