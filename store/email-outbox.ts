// The mail outbox: a message is written to email_outbox in the transaction that causes it and
// sent over SMTP by the outbox dispatcher (activities/email.ts).
import type { Queryable } from './db.ts';

export interface MailDraft {
  to: string;
  subject: string;
  text: string;
  purpose: string;
}

/** Write one message to the outbox; returns its row id. */
export async function enqueueEmail(db: Queryable, mail: MailDraft): Promise<number> {
  const { rows } = await db.query('INSERT INTO email_outbox (to_address, subject, body_text, purpose) VALUES ($1, $2, $3, $4) RETURNING id', [mail.to, mail.subject, mail.text, mail.purpose]);
  return Number(rows[0].id);
}
