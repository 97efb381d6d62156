// What the alert tests share: a database of their own (so no other test's change events or
// servers reach it), an API over it (mail out through the real SMTP test server when given),
// the uses vocabulary, jurisdictions of their own and a way to write change events.
import type { RunningServer } from '../../api/server.ts';
import { stableId } from '../../core/ids.ts';
import { type ChangeEventDraft, writeChangeEvents } from '../../store/changes.ts';
import { withTransaction } from '../../store/db.ts';
import { readTerms } from '../../store/vocabulary.ts';
import { freshDatabase } from '../helpers/databases.ts';
import { call, createTestOrg, startTestServer } from '../helpers/server.ts';

export interface AlertWorld {
  server: RunningServer;
  key: string;
  otherKey: string;
  organizationId: string;
  /** a Massachusetts town and a Connecticut one, held only here */
  jur: string;
  ctJur: string;
  emit(drafts: ChangeEventDraft[], at?: Date): Promise<string[]>;
  close(): Promise<void>;
}

export async function alertWorld(label: string, env: Record<string, string> = {}): Promise<AlertWorld> {
  const db = await freshDatabase(label);
  const server = await startTestServer({ DATABASE_URL: db.url, RATE_LIMIT_PER_SECOND: '100000', WEBHOOK_TIMEOUT_MS: '2000', ...env });
  const org = await createTestOrg(server);
  const other = await createTestOrg(server);
  const pool = server.services.pool;
  await pool.query(
    `INSERT INTO use_term (slug, id, name, category) SELECT t.slug, t.id, t.name, t.category FROM jsonb_to_recordset($1::jsonb) AS t(slug text, id text, name text, category text)`,
    [JSON.stringify(readTerms().map((t) => ({ ...t, id: stableId('use', t.slug) })))],
  );
  const jur = stableId('jurisdiction', 'us:cousub:2501799101');
  const ctJur = stableId('jurisdiction', 'us:cousub:0900399102');
  await pool.query(
    `INSERT INTO jurisdiction (id, slug, name, type, level, fips_state, fips_county, fips_cousub, fips_key, state_postal) VALUES
       ($1, 'alerton-ma', 'Alerton', 'town', 'cousub', '25', '017', '99101', 'us:cousub:2501799101', 'MA'),
       ($2, 'watchbury-ct', 'Watchbury', 'town', 'cousub', '09', '003', '99102', 'us:cousub:0900399102', 'CT')`,
    [jur, ctJur],
  );
  const emit = (drafts: ChangeEventDraft[], at = new Date()) =>
    withTransaction(pool, async (c) => {
      await writeChangeEvents(c, drafts, at);
      const { rows } = await c.query('SELECT id FROM change_event WHERE field_path = ANY($1) ORDER BY seq', [drafts.map((d) => d.fieldPath)]);
      return rows.map((r) => r.id as string);
    });
  return {
    server,
    key: org.apiKey,
    otherKey: other.apiKey,
    organizationId: org.organizationId,
    jur,
    ctJur,
    emit,
    async close() {
      await server.close();
      await db.drop();
    },
  };
}

let n = 0;
/** A change event of jurisdiction `j`: a district amendment unless told otherwise. */
export function draft(j: string, over: Partial<ChangeEventDraft> = {}): ChangeEventDraft {
  n += 1;
  return {
    jurisdictionId: j,
    kind: 'amendment',
    layer: 'district',
    subject: { type: 'district', code: `A-${n}` },
    fieldPath: `district.A-${n}.t${Date.now().toString(36)}.${n}`,
    previous: { min: n },
    current: { min: n + 1 },
    effectiveDate: '2026-08-01',
    sourceVersionId: null,
    ...over,
  };
}

/** POST /alert, expecting 201. */
export async function createAlert(w: AlertWorld, body: object, key = w.key) {
  const r = await call(w.server, 'POST', '/alert', { key, body });
  if (r.status !== 201) throw new Error(`POST /alert answered ${r.status}: ${JSON.stringify(r.body)}`);
  return r.body.item;
}

/** POST /webhook for alert.triggered, expecting 201. */
export async function createWebhook(w: AlertWorld, url: string, key = w.key) {
  const r = await call(w.server, 'POST', '/webhook', { key, body: { url, event_type: ['alert.triggered'], retry_policy: { backoff: 'fixed', base_seconds: 1, jitter: false } } });
  if (r.status !== 201) throw new Error(`POST /webhook answered ${r.status}: ${JSON.stringify(r.body)}`);
  return r.body;
}
