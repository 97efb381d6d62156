// Standard Webhooks signing (https://www.standardwebhooks.com): headers webhook-id,
// webhook-timestamp (Unix seconds) and webhook-signature ("v1,<base64 HMAC-SHA256>" of
// "<id>.<timestamp>.<body>" under the secret's key; several space-separated while a rotated
// secret is still honoured). Secrets are "whsec_" + base64 of 32 random bytes.
import { createHash, createHmac, randomBytes } from 'node:crypto';

const PREFIX = 'whsec_';

export function newSecret(): string {
  return PREFIX + randomBytes(32).toString('base64');
}

function keyOf(secret: string): Buffer {
  return Buffer.from(secret.startsWith(PREFIX) ? secret.slice(PREFIX.length) : secret, 'base64');
}

/** Identifies a secret without revealing it: the first 16 hex of sha256 over the key. */
export function fingerprint(secret: string): string {
  return `sha256:${createHash('sha256').update(keyOf(secret)).digest('hex').slice(0, 16)}`;
}

export function signature(secret: string, id: string, timestamp: number, body: string): string {
  return `v1,${createHmac('sha256', keyOf(secret)).update(`${id}.${timestamp}.${body}`).digest('base64')}`;
}

/** The three headers of one call, signed with each secret given (current first). */
export function signedHeaders(secrets: string[], id: string, timestamp: number, body: string): Record<string, string> {
  return {
    'webhook-id': id,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': secrets.map((s) => signature(s, id, timestamp, body)).join(' '),
  };
}
