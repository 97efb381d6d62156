// How much of the zoning text's law is held, worked out from what was read and what the store
// holds: a code-text source is full only when it stated facts, read every table it saw, failed
// nowhere, and every base district on the map has facts. Never full with nothing stated.
import type { Client } from '../db.ts';
import { settleTier } from '../coverage.ts';

export interface CodeTextEntry {
  sections: number;
  permissions: number;
  controls: number;
  tables_unread: number;
  errors: number;
  districts_without_facts?: string[];
  /** base districts the text establishes that no current map draws (null while no map is held) */
  districts_not_on_map?: string[] | null;
}

export function codeTextTier(e: CodeTextEntry): { held: boolean; tier: 'full' | 'partial' | 'none' } {
  const stated = e.permissions + e.controls;
  if (stated === 0 && e.sections === 0) return { held: false, tier: 'none' };
  const gaps = e.tables_unread > 0 || e.errors > 0 || (e.districts_without_facts?.length ?? 0) > 0;
  return { held: true, tier: stated === 0 || gaps ? 'partial' : 'full' };
}

/** Base districts drawn on the current map that no current permission or control speaks for. */
export async function mapDistrictsWithoutFacts(client: Client, jurisdictionId: string): Promise<string[]> {
  const { rows } = await client.query(
    `SELECT DISTINCT d.code_normalized AS code FROM district d
      WHERE d.jurisdiction_id = $1 AND d.kind = 'base' AND upper_inf(d.known) AND upper_inf(d.valid)
        AND EXISTS (SELECT 1 FROM district_area a WHERE a.district_id = d.id AND upper_inf(a.known) AND upper_inf(a.valid))
        AND NOT EXISTS (SELECT 1 FROM permission p WHERE p.district_id = d.id AND p.status <> 'withheld' AND upper_inf(p.known) AND upper_inf(p.valid))
        AND NOT EXISTS (SELECT 1 FROM control k WHERE k.district_id = d.id AND upper_inf(k.known) AND upper_inf(k.valid))
      ORDER BY 1`,
    [jurisdictionId],
  );
  return rows.map((r) => r.code as string);
}

/** Base districts the code text establishes that the current map does not draw; null while no map is held. */
export async function textDistrictsNotOnMap(client: Client, jurisdictionId: string): Promise<string[] | null> {
  const mapHeld = await client.query(`SELECT 1 FROM district_area WHERE jurisdiction_id = $1 AND kind = 'base' AND upper_inf(known) AND upper_inf(valid) LIMIT 1`, [jurisdictionId]);
  if (!mapHeld.rowCount) return null;
  const { rows } = await client.query(
    `SELECT DISTINCT d.code_normalized AS code FROM district d JOIN source s ON s.id = d.source_id
      WHERE d.jurisdiction_id = $1 AND d.kind = 'base' AND s.kind = 'code_text' AND upper_inf(d.known) AND upper_inf(d.valid)
        AND NOT EXISTS (SELECT 1 FROM district_area a WHERE a.district_id = d.id AND upper_inf(a.known) AND upper_inf(a.valid))
      ORDER BY 1`,
    [jurisdictionId],
  );
  return rows.map((r) => r.code as string);
}

/** After a load of the code or of the map: each code-text entry's gaps and tier worked out again. */
export async function refreshZoningTextCoverage(client: Client, jurisdictionId: string): Promise<void> {
  const { rows } = await client.query(`SELECT detail FROM coverage WHERE jurisdiction_id = $1 AND layer = 'zoning_text'`, [jurisdictionId]);
  const sources = (rows[0]?.detail?.sources ?? {}) as Record<string, CodeTextEntry & { held?: boolean; tier?: string }>;
  const keys = Object.keys(sources).filter((k) => typeof sources[k].sections === 'number');
  if (keys.length === 0) return;
  const without = await mapDistrictsWithoutFacts(client, jurisdictionId);
  const notOnMap = await textDistrictsNotOnMap(client, jurisdictionId);
  for (const k of keys) {
    const entry = { ...sources[k], districts_without_facts: without, districts_not_on_map: notOnMap };
    Object.assign(entry, codeTextTier(entry));
    await client.query(
      `UPDATE coverage SET detail = jsonb_set(detail, ARRAY['sources', $2::text], $3::jsonb), updated_at = now()
        WHERE jurisdiction_id = $1 AND layer = 'zoning_text'`,
      [jurisdictionId, k, entry],
    );
  }
  await settleTier(client, jurisdictionId, 'zoning_text');
}
