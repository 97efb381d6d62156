// Wakes change-feed streams when events are committed; writers NOTIFY in the loading
// transaction, so the wake-up arrives after commit. A missed notification (the listen
// connection was re-opened) wakes every stream too: each reads from its own watermark.
import { inBackground } from '../../core/background.ts';
import type { Logger } from '../../core/log.ts';
import type { PgListener } from '../../store/listen.ts';

export const CHANGE_CHANNEL = 'landlex_change_event';

export class ChangeHub {
  private listeners = new Set<(closing: boolean) => void>();
  private started = false;

  constructor(
    private listen: PgListener,
    private log: Logger,
  ) {}

  /** Call fn(false) after every commit of new events, fn(true) when the process stops. Returns an unsubscribe. */
  subscribe(fn: (closing: boolean) => void): () => void {
    this.listeners.add(fn);
    if (!this.started) {
      this.started = true;
      const wake = () => {
        for (const l of this.listeners) l(false);
      };
      inBackground(this.log, 'change feed listen', () => this.listen.on(CHANGE_CHANNEL, wake));
      this.listen.onReconnect(wake);
    }
    return () => this.listeners.delete(fn);
  }

  close(): void {
    for (const l of this.listeners) l(true);
    this.listeners.clear();
  }
}
