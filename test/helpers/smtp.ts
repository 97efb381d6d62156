// A real SMTP server on loopback (smtp-server), parsing what it receives with mailparser.
// Test files run in parallel processes over one database, so any running API server with
// SMTP_URL may deliver any outbox row: every server started here also writes what it receives
// to a directory shared by the run, and waitForMail reads it, whichever server got the mail.
import { mkdirSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createHash, randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { simpleParser } from 'mailparser';
import { SMTPServer } from 'smtp-server';

export interface ReceivedMail {
  to: string[];
  from: string;
  subject: string;
  text: string;
}

export interface TestSmtp {
  url: string;
  port: number;
  /** the first mail to `to` (case-insensitive) that satisfies the predicate; fails after timeoutMs */
  waitForMail(to: string, predicate?: (m: ReceivedMail) => boolean, timeoutMs?: number): Promise<ReceivedMail>;
  /** every mail received so far for `to` */
  mailsTo(to: string): ReceivedMail[];
  close(): Promise<void>;
}

function sharedDir(): string {
  const run = createHash('sha256').update(process.env.TEST_DATABASE_URL ?? 'no-run').digest('hex').slice(0, 16);
  const dir = join(tmpdir(), `landlex-test-mail-${run}`);
  mkdirSync(dir, { recursive: true });
  return dir;
}

function readAll(dir: string): ReceivedMail[] {
  const out: ReceivedMail[] = [];
  for (const f of readdirSync(dir).sort()) {
    if (!f.endsWith('.json')) continue;
    out.push(JSON.parse(readFileSync(join(dir, f), 'utf8')));
  }
  return out;
}

export async function startSmtp(): Promise<TestSmtp> {
  const dir = sharedDir();
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onData(stream, session, callback) {
      simpleParser(stream)
        .then((parsed) => {
          const mail: ReceivedMail = {
            to: session.envelope.rcptTo.map((r) => r.address.toLowerCase()),
            from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
            subject: parsed.subject ?? '',
            text: parsed.text ?? '',
          };
          const name = `${Date.now()}-${randomBytes(6).toString('hex')}`;
          // written whole, then renamed: readers never see half a message
          writeFileSync(join(dir, `${name}.tmp`), JSON.stringify(mail));
          renameSync(join(dir, `${name}.tmp`), join(dir, `${name}.json`));
          callback();
        })
        .catch((err) => callback(err));
    },
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const port = (server.server.address() as AddressInfo).port;
  const mailsTo = (to: string) => readAll(dir).filter((m) => m.to.includes(to.toLowerCase()));

  return {
    url: `smtp://127.0.0.1:${port}`,
    port,
    mailsTo,
    async waitForMail(to, predicate = () => true, timeoutMs = 15_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const found = mailsTo(to).find(predicate);
        if (found) return found;
        if (Date.now() > deadline) throw new Error(`No mail to ${to} within ${timeoutMs} ms`);
        await new Promise((r) => setTimeout(r, 50));
      }
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** The link in a mail that opens `page` (e.g. "/verify"), as a URL. */
export function linkIn(mail: ReceivedMail, page: string): URL {
  for (const m of mail.text.matchAll(/https?:\/\/\S+/g)) {
    const url = new URL(m[0]);
    if (url.pathname === page) return url;
  }
  throw new Error(`No ${page} link in the mail "${mail.subject}":\n${mail.text}`);
}

/** The token of the `page` link in a mail. */
export function tokenIn(mail: ReceivedMail, page: string): string {
  const token = linkIn(mail, page).searchParams.get('token');
  if (!token) throw new Error(`The ${page} link carries no token`);
  return token;
}
