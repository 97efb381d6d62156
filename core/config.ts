// Configuration from the environment, validated once at start. Every bad value is reported
// with its variable name and what is accepted, all at once, before anything starts.
import { availableParallelism } from 'node:os';

/**
 * Connections per process: about two per core keeps PostgreSQL's backends busy without crowding
 * each other off the cores (measured: on 2 cores, 16 connections answered 25% fewer calls than 4
 * to 8); more calls than connections wait in the process, cheaply.
 */
const DEFAULT_POOL = 2 * availableParallelism() + 2;

export interface Config {
  databaseUrl: string;
  host: string;
  port: number;
  publicBaseUrl: string;
  smtpUrl: string | null;
  mailFrom: string;
  registrationOpen: boolean;
  secretKey: string | null;
  blobDir: string;
  extractDir: string;
  temporalAddress: string | null;
  temporalNamespace: string;
  temporalTaskQueue: string;
  logLevel: 'debug' | 'info' | 'warn' | 'error' | 'silent';
  rateLimitPerSecond: number;
  /** tokens a credential's bucket holds: calls it may make at once before the rate applies */
  rateLimitBurst: number;
  /** the bucket of free map calls (tiles and TileJSON), apart from the priced one */
  tileRateLimitPerSecond: number;
  tileRateLimitBurst: number;
  /** origins answered with CORS headers: '*' (any), or the listed origins, echoed */
  corsOrigins: '*' | string[];
  creditLeaseBlock: number;
  creditLeaseSeconds: number;
  bodyLimitBytes: number;
  sessionTtlSeconds: number;
  statementTimeoutMs: number;
  dbPoolSize: number;
  /** tile statements at once (tiles/batch.ts) */
  tileStatements: number;
  /** webhook deliveries this process sends at once, in-process (0: none; with TEMPORAL_ADDRESS the workflows send) */
  webhookConcurrency: number;
  /** a webhook call not answered in this long is a failed attempt */
  webhookTimeoutMs: number;
}

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

type Env = Record<string, string | undefined>;

export const DEFAULT_DATABASE_URL = 'postgres://postgres@127.0.0.1:5432/landlex';

/** The variables, their defaults and meaning: README's table is written from this list. */
export const VARIABLES: Array<{ name: string; default: string; meaning: string }> = [
  { name: 'DATABASE_URL', default: DEFAULT_DATABASE_URL, meaning: 'PostgreSQL 15 + PostGIS 3 connection URL' },
  { name: 'HOST', default: '127.0.0.1', meaning: 'address the API listens on' },
  { name: 'PORT', default: '8080', meaning: 'port the API listens on (landlex serve --port overrides)' },
  { name: 'PUBLIC_BASE_URL', default: 'http://HOST:PORT', meaning: 'base of links in emails and href fields' },
  { name: 'SMTP_URL', default: '(none)', meaning: 'smtp://user:pass@host:port for outgoing mail; without it mail waits in the outbox' },
  { name: 'MAIL_FROM', default: 'Landlex <no-reply@landlex.invalid>', meaning: 'From address of outgoing mail' },
  { name: 'REGISTRATION_OPEN', default: 'false', meaning: 'allow POST /organization (open registration)' },
  { name: 'SECRET_KEY', default: '(generated, kept in the database)', meaning: 'signs cursors and location tokens; at least 32 characters' },
  { name: 'BLOB_DIR', default: 'var/blobs', meaning: 'content-addressed store of retrieved documents' },
  { name: 'EXTRACT_DIR', default: 'var/extracts', meaning: 'where extract files are written' },
  { name: 'TEMPORAL_ADDRESS', default: '(none: run workflows in-process)', meaning: 'host:port of a Temporal frontend' },
  { name: 'TEMPORAL_NAMESPACE', default: 'default', meaning: 'Temporal namespace' },
  { name: 'TEMPORAL_TASK_QUEUE', default: 'landlex', meaning: 'Temporal task queue' },
  { name: 'LOG_LEVEL', default: 'info', meaning: 'debug, info, warn, error or silent' },
  { name: 'RATE_LIMIT_PER_SECOND', default: '50', meaning: 'calls a second per credential, refilling its token bucket (tiles and TileJSON have their own)' },
  { name: 'RATE_LIMIT_BURST', default: 'twice RATE_LIMIT_PER_SECOND, at least 100', meaning: 'calls a credential may make at once: the size of its bucket' },
  { name: 'TILE_RATE_LIMIT_PER_SECOND', default: 'RATE_LIMIT_PER_SECOND, at least 200', meaning: 'tile and TileJSON calls a second per credential, in a bucket apart from priced calls' },
  { name: 'TILE_RATE_LIMIT_BURST', default: 'twice TILE_RATE_LIMIT_PER_SECOND', meaning: 'tile and TileJSON calls a credential may make at once' },
  { name: 'CORS_ORIGINS', default: '*', meaning: 'origins whose pages may call the API (CORS): * for any, or origins (https://maps.example.com) separated by commas; never with cookies' },
  { name: 'CREDIT_LEASE_BLOCK', default: '100', meaning: 'most credit one API process leases at a time' },
  { name: 'CREDIT_LEASE_SECONDS', default: '60', meaning: 'how long a lease of credit lasts (at least 8); unspent credit goes back a quarter of it before it ends, and a dead holder\'s half of it after' },
  { name: 'BODY_LIMIT_BYTES', default: '1048576', meaning: 'largest request body accepted (413 above)' },
  { name: 'SESSION_TTL_SECONDS', default: '43200', meaning: 'lifetime of a console session' },
  { name: 'STATEMENT_TIMEOUT_MS', default: '5000', meaning: 'PostgreSQL statement timeout for API queries' },
  { name: 'DB_POOL_SIZE', default: String(DEFAULT_POOL), meaning: 'connections per process (default: twice the cores, plus two)' },
  { name: 'WEBHOOK_CONCURRENCY', default: '16 (0 with TEMPORAL_ADDRESS)', meaning: 'webhook calls in flight at once from this process, each to a different webhook; 0 sends none here' },
  { name: 'WEBHOOK_TIMEOUT_MS', default: '10000', meaning: 'a webhook call not answered in this long is a failed attempt (timeout)' },
  { name: 'TILE_STATEMENTS', default: String(availableParallelism()), meaning: 'tile statements running at once per process, each making the tiles asked meanwhile (default: the cores)' },
];

export function loadConfig(env: Env = process.env): Config {
  const problems: string[] = [];

  const str = (name: string, fallback: string) => {
    const v = env[name];
    return v === undefined || v === '' ? fallback : v;
  };
  const int = (name: string, fallback: number, min: number, max: number) => {
    const raw = env[name];
    if (raw === undefined || raw === '') return fallback;
    if (!/^\d+$/.test(raw) || Number(raw) < min || Number(raw) > max) {
      problems.push(`${name}=${JSON.stringify(raw)}: expected a whole number from ${min} to ${max}`);
      return fallback;
    }
    return Number(raw);
  };
  const bool = (name: string, fallback: boolean) => {
    const raw = env[name];
    if (raw === undefined || raw === '') return fallback;
    if (/^(1|true|yes|on)$/i.test(raw)) return true;
    if (/^(0|false|no|off)$/i.test(raw)) return false;
    problems.push(`${name}=${JSON.stringify(raw)}: expected true or false`);
    return fallback;
  };
  const url = (name: string, fallback: string | null, protocols: string[]) => {
    const raw = env[name];
    if (raw === undefined || raw === '') return fallback;
    try {
      const u = new URL(raw);
      if (!protocols.includes(u.protocol)) throw new Error('protocol');
      return raw;
    } catch {
      problems.push(`${name}=${JSON.stringify(redact(raw))}: expected a URL starting with ${protocols.map((p) => `${p}//`).join(' or ')}`);
      return fallback;
    }
  };

  const host = str('HOST', '127.0.0.1');
  const port = int('PORT', 8080, 0, 65535);
  const logLevel = str('LOG_LEVEL', 'info');
  if (!['debug', 'info', 'warn', 'error', 'silent'].includes(logLevel)) {
    problems.push(`LOG_LEVEL=${JSON.stringify(logLevel)}: expected debug, info, warn, error or silent`);
  }
  const secretKey = env.SECRET_KEY && env.SECRET_KEY.length > 0 ? env.SECRET_KEY : null;
  if (secretKey !== null && secretKey.length < 32) problems.push('SECRET_KEY: expected at least 32 characters');
  const temporalAddress = str('TEMPORAL_ADDRESS', '') || null;
  if (temporalAddress && !/^[^\s:/]+:\d+$/.test(temporalAddress)) {
    problems.push(`TEMPORAL_ADDRESS=${JSON.stringify(temporalAddress)}: expected host:port`);
  }

  const rateLimitPerSecond = int('RATE_LIMIT_PER_SECOND', 50, 1, 1_000_000);
  const tileRateLimitPerSecond = int('TILE_RATE_LIMIT_PER_SECOND', Math.max(200, rateLimitPerSecond), 1, 1_000_000);
  const corsOrigins = origins(str('CORS_ORIGINS', '*'), problems);

  const config: Config = {
    databaseUrl: url('DATABASE_URL', DEFAULT_DATABASE_URL, ['postgres:', 'postgresql:'])!,
    host,
    port,
    publicBaseUrl: url('PUBLIC_BASE_URL', null, ['http:', 'https:']) ?? `http://${host}:${port}`,
    smtpUrl: url('SMTP_URL', null, ['smtp:', 'smtps:']),
    mailFrom: str('MAIL_FROM', 'Landlex <no-reply@landlex.invalid>'),
    registrationOpen: bool('REGISTRATION_OPEN', false),
    secretKey,
    blobDir: str('BLOB_DIR', 'var/blobs'),
    extractDir: str('EXTRACT_DIR', 'var/extracts'),
    temporalAddress,
    temporalNamespace: str('TEMPORAL_NAMESPACE', 'default'),
    temporalTaskQueue: str('TEMPORAL_TASK_QUEUE', 'landlex'),
    logLevel: logLevel as Config['logLevel'],
    rateLimitPerSecond,
    rateLimitBurst: int('RATE_LIMIT_BURST', Math.max(100, 2 * rateLimitPerSecond), 1, 2_000_000),
    tileRateLimitPerSecond,
    tileRateLimitBurst: int('TILE_RATE_LIMIT_BURST', 2 * tileRateLimitPerSecond, 1, 2_000_000),
    corsOrigins,
    creditLeaseBlock: int('CREDIT_LEASE_BLOCK', 100, 1, 1_000_000),
    creditLeaseSeconds: int('CREDIT_LEASE_SECONDS', 60, 8, 3600),
    bodyLimitBytes: int('BODY_LIMIT_BYTES', 1_048_576, 1024, 104_857_600),
    sessionTtlSeconds: int('SESSION_TTL_SECONDS', 43_200, 60, 31_536_000),
    statementTimeoutMs: int('STATEMENT_TIMEOUT_MS', 5000, 100, 3_600_000),
    dbPoolSize: int('DB_POOL_SIZE', DEFAULT_POOL, 1, 500),
    tileStatements: int('TILE_STATEMENTS', availableParallelism(), 1, 500),
    webhookTimeoutMs: int('WEBHOOK_TIMEOUT_MS', 10_000, 100, 120_000),
    webhookConcurrency: int('WEBHOOK_CONCURRENCY', env.TEMPORAL_ADDRESS ? 0 : 16, 0, 1000),
  };
  if (problems.length > 0) throw new ConfigError(problems);
  return config;
}

/** CORS_ORIGINS: '*', or origins (scheme://host[:port], nothing after) separated by commas or spaces. */
function origins(raw: string, problems: string[]): '*' | string[] {
  if (raw.trim() === '*') return '*';
  const list: string[] = [];
  for (const o of raw.split(/[\s,]+/).filter(Boolean)) {
    let origin: string | null = null;
    try {
      const u = new URL(o);
      if ((u.protocol === 'http:' || u.protocol === 'https:') && u.origin === o.replace(/\/$/, '').toLowerCase()) origin = u.origin;
    } catch {
      /* reported below */
    }
    if (origin) list.push(origin);
    else problems.push(`CORS_ORIGINS: ${JSON.stringify(o)} is not an origin: expected * or origins such as https://maps.example.com (scheme, host and port only), separated by commas`);
  }
  if (list.length === 0 && !problems.some((p) => p.startsWith('CORS_ORIGINS'))) problems.push('CORS_ORIGINS: expected * or at least one origin');
  return list;
}

/** Hide a password in a URL before it is printed. */
export function redact(raw: string): string {
  try {
    const u = new URL(raw);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return raw.replace(/:\/\/([^:@/]+):[^@/]+@/, '://$1:***@');
  }
}
