// Wakes change-feed streams when events are committed: one LISTEN connection per process;
// writers NOTIFY in the loading transaction, so the wake-up arrives after commit.
import type { Pool, Client } from '../../store/db.ts';

export const CHANGE_CHANNEL = 'landlex_change_event';

export class ChangeHub {
  private listeners = new Set<(closing: boolean) => void>();
  private client: Promise<Client> | null = null;

  constructor(private pool: Pool) {}

  /** Call fn(false) after every commit of new events, fn(true) when the process stops. Returns an unsubscribe. */
  subscribe(fn: (closing: boolean) => void): () => void {
    this.listeners.add(fn);
    this.client ??= this.pool.connect().then(async (c) => {
      c.on('notification', () => {
        for (const l of this.listeners) l(false);
      });
      await c.query(`LISTEN ${CHANGE_CHANNEL}`);
      return c;
    });
    return () => this.listeners.delete(fn);
  }

  async close(): Promise<void> {
    for (const l of this.listeners) l(true);
    this.listeners.clear();
    const c = await this.client?.catch(() => null);
    if (c) {
      await c.query(`UNLISTEN ${CHANGE_CHANNEL}`).catch(() => {});
      c.release();
    }
    this.client = null;
  }
}
