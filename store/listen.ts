// One LISTEN connection per process for every channel it follows (change-feed wake-ups, credit
// recalls, key revocations). A lost connection is re-opened and re-subscribed; what was sent
// meanwhile is lost, so followers are told (onReconnect) and drop whatever they cached.
import type { Logger } from '../core/log.ts';
import type { Client, Pool } from './db.ts';

type Handler = (payload: string) => void;

const IDENT = /^[a-z_][a-z0-9_]*$/;

export class PgListener {
  private handlers = new Map<string, Set<Handler>>();
  private reconnectHandlers = new Set<() => void>();
  private client: Promise<Client> | null = null;
  private closed = false;

  constructor(
    private pool: Pool,
    private log?: Logger,
  ) {}

  /** Call fn with each notification's payload on channel; returns an unsubscribe. */
  async on(channel: string, fn: Handler): Promise<() => void> {
    if (!IDENT.test(channel)) throw new Error(`Not a channel name: ${channel}`);
    let set = this.handlers.get(channel);
    const fresh = !set;
    if (!set) {
      set = new Set();
      this.handlers.set(channel, set);
    }
    set.add(fn);
    const client = await this.connection();
    if (fresh) await client.query(`LISTEN ${channel}`);
    return () => {
      set.delete(fn);
    };
  }

  /** Call fn after the connection was lost and re-opened (notifications may have been missed). */
  onReconnect(fn: () => void): () => void {
    this.reconnectHandlers.add(fn);
    return () => this.reconnectHandlers.delete(fn);
  }

  private connection(): Promise<Client> {
    this.client ??= this.pool.connect().then((c) => {
      c.on('notification', (n) => {
        for (const fn of this.handlers.get(n.channel) ?? []) {
          try {
            fn(n.payload ?? '');
          } catch (err) {
            this.log?.warn('notification handler failed', { channel: n.channel, err });
          }
        }
      });
      c.on('error', (err) => this.lost(c, err));
      return c;
    });
    return this.client;
  }

  private lost(c: Client, err: Error) {
    if (this.closed) return;
    this.log?.warn('listen connection lost; re-opening', { err });
    c.release(err);
    this.client = null;
    const retry = async () => {
      if (this.closed) return;
      try {
        const fresh = await this.connection();
        for (const channel of this.handlers.keys()) await fresh.query(`LISTEN ${channel}`);
        for (const fn of this.reconnectHandlers) fn();
      } catch (e) {
        this.client = null;
        this.log?.warn('listen reconnect failed; retrying', { err: e });
        setTimeout(() => void retry(), 1000).unref();
      }
    };
    setTimeout(() => void retry(), 100).unref();
  }

  async close(): Promise<void> {
    this.closed = true;
    const c = await this.client?.catch(() => null);
    this.client = null;
    if (c) {
      await c.query('UNLISTEN *').catch(() => {});
      c.release();
    }
  }
}
