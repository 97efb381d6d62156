// Start and stop the API: listen, and on shutdown stop accepting, finish what is in flight (also
// requests whose client gave up), write pending usage, give back leased credit, close the pool.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Config } from '../core/config.ts';
import { createLogger, type Logger } from '../core/log.ts';
import { createPool, type Pool } from '../store/db.ts';
import { loadSecret } from '../store/settings.ts';
import { makeApp } from './app.ts';
import { createMeter } from './metering/meter.ts';
import { startOutbox } from '../activities/email.ts';
import { startDispatcher } from '../activities/webhooks/dispatch.ts';
import { startDigestSender } from '../activities/alerts/digest.ts';
import type { Services } from './services.ts';
import { ChangeHub } from './changes/hub.ts';
import { CredentialCache, KEY_CHANGED_CHANNEL } from './auth.ts';
import { PgListener } from '../store/listen.ts';
import { AnswerWriter } from '../store/answers.ts';
import { settleAbandonedAtStart } from '../store/changes.ts';
import { FrameCache, KNOWLEDGE_CHANNEL } from '../store/place/frame.ts';
import { TileKeyCache } from '../tiles/keys.ts';
import { TileBatcher } from '../tiles/batch.ts';
import type { Route } from './route.ts';

export interface RunningServer {
  url: string;
  port: number;
  services: Services;
  server: Server;
  close(): Promise<void>;
}

export async function startServer(config: Config, opts: { log?: Logger; pool?: Pool; routes?: Route[] } = {}): Promise<RunningServer> {
  const log = opts.log ?? createLogger(config.logLevel);
  const pool = opts.pool ?? createPool(config.databaseUrl, { max: config.dbPoolSize, statementTimeoutMs: config.statementTimeoutMs, serving: true });
  const secret = await loadSecret(pool, config.secretKey);
  await settleAbandonedAtStart(pool, log);
  const listen = new PgListener(pool, log);
  const credentials = new CredentialCache();
  await listen.on(KEY_CHANGED_CHANNEL, (keyId) => credentials.drop(keyId));
  listen.onReconnect(() => credentials.clear());
  const frames = new FrameCache();
  const tileKeys = new TileKeyCache();
  // what is kept as known now, dropped when knowledge changes or a notice may have been missed
  const knowledgeChanged = () => {
    frames.clear();
    tileKeys.clear();
  };
  await listen.on(KNOWLEDGE_CHANNEL, knowledgeChanged);
  listen.onReconnect(knowledgeChanged);
  const meter = createMeter(pool, { leaseBlock: config.creditLeaseBlock, leaseSeconds: config.creditLeaseSeconds, log, listen });
  const outbox = startOutbox(pool, config, log);
  const changes = new ChangeHub(listen, log);
  const webhooks = config.webhookConcurrency > 0 ? startDispatcher(pool, log, listen, { concurrency: config.webhookConcurrency, timeoutMs: config.webhookTimeoutMs }) : null;
  const digests = startDigestSender(pool, log);
  const services: Services = { config, pool, log, secret, meter, mailer: outbox, webhooks, changes, listen, credentials, answers: new AnswerWriter(pool), frames, tileKeys, tiles: new TileBatcher(pool, config.tileStatements), startedAt: new Date() };
  const app = makeApp(services, opts.routes);
  // every request's handling, until it ends: a client that gives up closes its socket, not the handler
  const handling = new Set<Promise<void>>();
  const handle = app.callback();
  const server = createServer((req, res) => {
    const p = handle(req, res).finally(() => handling.delete(p));
    handling.add(p);
  });
  // idle connections outlive the client's idea of them (clients and load balancers close first),
  // so a request is never sent on a socket the server is closing
  server.keepAliveTimeout = 65_000;
  server.headersTimeout = 66_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.port, config.host, () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  const url = `http://${config.host}:${port}`;
  if (!process.env.PUBLIC_BASE_URL) config.publicBaseUrl = url;
  log.info('listening', { url });

  let closing: Promise<void> | null = null;
  const close = () => {
    closing ??= (async () => {
      log.info('shutting down');
      changes.close(); // ends open change-feed streams
      // Stop accepting; connections left idle by finished requests are closed as they go idle.
      server.on('request', (_req, res) => res.setHeader('Connection', 'close'));
      const sweep = setInterval(() => server.closeIdleConnections(), 50);
      await new Promise<void>((resolve) => server.close(() => resolve()));
      clearInterval(sweep);
      await Promise.allSettled([...handling]);
      await outbox.stop();
      await webhooks?.stop();
      await digests.stop();
      await meter.close();
      await listen.close();
      if (!opts.pool) await pool.end();
      log.info('stopped');
    })();
    return closing;
  };
  return { url, port, services, server, close };
}
