// The outbox dispatcher: mail is written to email_outbox in the transaction that causes it and
// delivered here over SMTP (SMTP_URL), with retries and backoff. Without SMTP_URL mail waits.
import nodemailer from 'nodemailer';
import type { Config } from '../core/config.ts';
import type { Logger } from '../core/log.ts';
import type { Pool, Queryable } from '../store/db.ts';
import { enqueueEmail as enqueue, type MailDraft } from '../store/email-outbox.ts';

export interface Outbox {
  kick(): void;
  /** deliver what is due now; returns how many were sent */
  drain(): Promise<number>;
  stop(): Promise<void>;
}

/** Write a message to the outbox, in the caller's transaction (store/email-outbox.ts). */
export async function enqueueEmail(db: Queryable, mail: MailDraft): Promise<void> {
  await enqueue(db, mail);
}

const MAX_ATTEMPTS = 8;

export function startOutbox(pool: Pool, config: Config, log: Logger, intervalMs = 2000): Outbox {
  const transport = config.smtpUrl ? nodemailer.createTransport(config.smtpUrl) : null;
  let running: Promise<number> | null = null;
  let stopped = false;

  const deliverDue = async (): Promise<number> => {
    if (!transport) return 0;
    let sent = 0;
    for (;;) {
      const client = await pool.connect();
      try {
        await client.query('BEGIN');
        const { rows } = await client.query(
          `SELECT id, to_address, subject, body_text, attempts FROM email_outbox
            WHERE sent_at IS NULL AND next_attempt_at <= now() AND attempts < $1
            ORDER BY id LIMIT 1 FOR UPDATE SKIP LOCKED`,
          [MAX_ATTEMPTS],
        );
        const m = rows[0];
        if (!m) {
          await client.query('COMMIT');
          return sent;
        }
        try {
          await transport.sendMail({ from: config.mailFrom, to: m.to_address, subject: m.subject, text: m.body_text });
          await client.query('UPDATE email_outbox SET sent_at = now(), attempts = attempts + 1, last_error = NULL WHERE id = $1', [m.id]);
          sent += 1;
        } catch (err) {
          const wait = 2 ** m.attempts * 5;
          await client.query(
            `UPDATE email_outbox SET attempts = attempts + 1, last_error = $2, next_attempt_at = now() + make_interval(secs => $3) WHERE id = $1`,
            [m.id, String((err as Error).message).slice(0, 500), wait],
          );
          log.warn('mail delivery failed', { outbox_id: m.id, err: (err as Error).message });
        }
        await client.query('COMMIT');
      } catch (err) {
        await client.query('ROLLBACK').catch(() => {});
        throw err;
      } finally {
        client.release();
      }
    }
  };

  const drain = () => {
    running ??= deliverDue().finally(() => {
      running = null;
    });
    return running;
  };
  const timer = setInterval(() => {
    if (!stopped) void drain().catch((err) => log.warn('outbox drain failed', { err }));
  }, intervalMs);
  timer.unref();
  if (!transport) log.warn('SMTP_URL is not set: mail waits in the outbox');

  return {
    kick: () => {
      if (!stopped) void drain().catch((err) => log.warn('outbox drain failed', { err }));
    },
    drain,
    async stop() {
      stopped = true;
      clearInterval(timer);
      await running?.catch(() => {});
      transport?.close();
    },
  };
}
