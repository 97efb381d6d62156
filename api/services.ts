// What handlers receive: configuration, the pool, the logger and the long-lived services.
import type { Config } from '../core/config.ts';
import type { Logger } from '../core/log.ts';
import type { Pool } from '../store/db.ts';
import type { Meter } from './metering/types.ts';
import type { ChangeHub } from './changes/hub.ts';
import type { CredentialCache } from './auth.ts';
import type { PgListener } from '../store/listen.ts';
import type { AnswerWriter } from '../store/answers.ts';
import type { FrameCache } from '../store/place/frame.ts';
import type { TileKeyCache } from '../tiles/keys.ts';
import type { TileBatcher } from '../tiles/batch.ts';

import type { Dispatcher } from '../activities/webhooks/dispatch.ts';

export interface Mailer {
  /** Wake the outbox dispatcher (mail was just enqueued in a committed transaction). */
  kick(): void;
}

export interface Services {
  config: Config;
  pool: Pool;
  log: Logger;
  /** signs cursors and location tokens */
  secret: Buffer;
  meter: Meter;
  mailer: Mailer;
  /** the in-process webhook dispatcher (null when this process sends none) */
  webhooks: Dispatcher | null;
  changes: ChangeHub;
  /** the process's one LISTEN connection */
  listen: PgListener;
  /** API keys recently looked up (dropped when a key changes) */
  credentials: CredentialCache;
  /** answers kept for replay, written together when they come together */
  answers: AnswerWriter;
  /** what place answers say around their facts, as known now (dropped when knowledge changes) */
  frames: FrameCache;
  /** what tiles' ETags hang on, as known now (tiles/keys.ts) */
  tileKeys: TileKeyCache;
  /** makes the tiles asked at the same moment in one statement */
  tiles: TileBatcher;
  /** process start, for /health */
  startedAt: Date;
}
