// `landlex sample`: load the sample jurisdictions and mint a key for the sample organization,
// then print the key and three example requests. Safe to run again: nothing is duplicated.
import { rm } from 'node:fs/promises';
import { SCOPES } from '../core/credentials.ts';
import type { Config } from '../core/config.ts';
import type { Logger } from '../core/log.ts';
import { type Pool, withTransaction } from '../store/db.ts';
import { mintKey } from '../store/keys.ts';
import { type IngestSummary, runIngest } from './ingest.ts';
import { orgCreate } from './org.ts';
import { startSyntheticSite, syntheticManifests } from './synthetic-site.ts';

export const SAMPLE_ORG = 'Landlex sample';

/**
 * Ingest every shipped jurisdiction plus the synthetic town, served on loopback: its first
 * version once, then its amended second version, so the sample shows a law change over time.
 */
export async function ingestSamples(config: Config, pool: Pool, log: Logger, progress: boolean): Promise<IngestSummary[]> {
  const site = await startSyntheticSite({ version: 1 });
  const manifestDir = await syntheticManifests(site.url, { all: true });
  try {
    const held = await pool.query(
      `SELECT 1 FROM document_version v JOIN document d ON d.id = v.document_id JOIN jurisdiction j ON j.id = d.jurisdiction_id WHERE j.slug = 'millbrook-ma' LIMIT 1`,
    );
    const runs: IngestSummary[] = [];
    if (held.rowCount === 0) runs.push(await runIngest(config, pool, log, 'all', { progress, manifestDir }));
    site.setVersion(2);
    runs.push(await runIngest(config, pool, log, held.rowCount === 0 ? ['millbrook-ma'] : 'all', { progress, manifestDir }));
    return runs;
  } finally {
    await site.close();
    await rm(manifestDir, { recursive: true, force: true });
  }
}

export async function sampleKey(pool: Pool): Promise<string> {
  const { rows } = await pool.query(
    `SELECT o.id, m.person_id FROM organization o JOIN membership m ON m.organization_id = o.id AND m.role = 'owner'
      WHERE o.name = $1 ORDER BY o.created_at LIMIT 1`,
    [SAMPLE_ORG],
  );
  if (!rows[0]) return (await orgCreate(pool, { name: SAMPLE_ORG, credits: 10_000 })).api_key;
  const key = await withTransaction(pool, (c) =>
    mintKey(c, { organizationId: rows[0].id, name: `sample ${new Date().toISOString()}`, scopes: SCOPES, createdBy: rows[0].person_id }),
  );
  return key.key;
}

export function examples(base: string, key: string): string {
  return [
    `API key: ${key}`,
    '',
    'Try:',
    `  curl -s -H "X-API-Key: ${key}" "${base}/rule?point=42.3629,-71.1113" | jq .item`,
    `  curl -s -H "X-API-Key: ${key}" "${base}/place?address=221%20Monsignor%20OBrien%20Hwy&include=assignment,parcel" | jq`,
    `  curl -s -H "X-API-Key: ${key}" "${base}/jurisdiction/somerville-ma/district/NR?include=control,permission" | jq .item`,
    '',
    `Map page: ${base}/viewer (paste the key at the top)`,
    '',
  ].join('\n');
}
