// Manifests into the store: the jurisdiction, its sources, and its authorities. The manifest
// itself is kept as a document (authored by us) so that authority facts cite its words.
import { sha256Hex, stableId } from '../core/ids.ts';
import { localDate } from '../core/time.ts';
import { fipsKey, type JurisdictionManifest } from '../ingest/manifest.ts';
import { applyFacts } from './bitemporal.ts';
import { CitationBatch } from './citations.ts';
import type { Client } from './db.ts';
import { recordVersion, saveVersionText } from './documents.ts';

/** source_id of facts the manifest itself states (authorities). */
export const MANIFEST_SOURCE = 'manifest';

export const jurisdictionIdFor = (fipsKeyValue: string) => stableId('jurisdiction', fipsKeyValue);
export const sourceIdFor = (jurisdictionId: string, key: string) => stableId('source', jurisdictionId, key);

export interface SyncedJurisdiction {
  jurisdictionId: string;
  fipsKey: string;
  sources: Array<{ id: string; key: string; kind: string }>;
}

export async function syncManifest(client: Client, m: JurisdictionManifest, manifestText: string, now: Date): Promise<SyncedJurisdiction> {
  const j = m.jurisdiction;
  const { key } = fipsKey(j);
  const id = jurisdictionIdFor(key);
  const parentId = j.parent ? jurisdictionIdFor(j.parent) : null;
  await client.query(
    `INSERT INTO jurisdiction (id, slug, name, legal_name, type, level, fips_state, fips_county, fips_cousub, fips_place, fips_key,
                               gnis_id, population, population_year, timezone, state_postal, parent_id)
     VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11,$12,$13,$14,$15,$16,
             (SELECT id FROM jurisdiction WHERE id = $17))
     ON CONFLICT (id) DO UPDATE SET slug = EXCLUDED.slug, name = EXCLUDED.name, legal_name = EXCLUDED.legal_name, type = EXCLUDED.type,
       gnis_id = EXCLUDED.gnis_id, population = EXCLUDED.population, population_year = EXCLUDED.population_year,
       timezone = EXCLUDED.timezone, parent_id = EXCLUDED.parent_id, updated_at = now()
     WHERE (jurisdiction.slug, jurisdiction.name, jurisdiction.legal_name, jurisdiction.population, jurisdiction.parent_id)
       IS DISTINCT FROM (EXCLUDED.slug, EXCLUDED.name, EXCLUDED.legal_name, EXCLUDED.population, EXCLUDED.parent_id)`,
    [id, j.slug, j.name, j.legal_name ?? null, j.type, j.level, j.fips.state, j.fips.county ?? null, j.fips.cousub ?? null,
      j.fips.place ?? null, key, j.gnis_id ?? null, j.population ?? null, j.population_year ?? null, j.timezone, j.state_postal, parentId],
  );

  const sources = [];
  for (const s of m.sources) {
    const sid = sourceIdFor(id, s.key);
    await client.query(
      `INSERT INTO source (id, jurisdiction_id, key, kind, url, format, published_crs, cadence, manifest)
       VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9)
       ON CONFLICT (id) DO UPDATE SET kind = EXCLUDED.kind, url = EXCLUDED.url, format = EXCLUDED.format,
         published_crs = EXCLUDED.published_crs, cadence = EXCLUDED.cadence, manifest = EXCLUDED.manifest`,
      [sid, id, s.key, s.kind, s.url, s.format, s.published_crs ?? null, s.cadence, s],
    );
    sources.push({ id: sid, key: s.key, kind: s.kind });
  }

  if (m.authorities?.length) await syncAuthorities(client, id, m, manifestText, now);
  return { jurisdictionId: id, fipsKey: key, sources };
}

/** Authorities are stated by us in the manifest: the manifest is their cited document. */
async function syncAuthorities(client: Client, jurisdictionId: string, m: JurisdictionManifest, text: string, now: Date) {
  const documentId = stableId('document', 'manifest', jurisdictionId);
  const sha256 = sha256Hex(text);
  const v = await recordVersion(
    client,
    { documentId, jurisdictionId, sourceId: null, title: `Landlex manifest for ${m.jurisdiction.name}`, docType: 'manifest', mediaType: 'application/json', url: `landlex:manifest/${m.jurisdiction.slug}`, authorship: 'authored_by_us' },
    { sha256, size: Buffer.byteLength(text), retrievedAt: now },
  );
  await saveVersionText(client, v.versionId, text, sha256);
  const cites = new CitationBatch({ jurisdictionId, documentId, versionId: v.versionId, retrievedAt: now, text });
  const today = localDate(now, m.jurisdiction.timezone);
  const facts = (m.authorities ?? []).map((a) => {
    const governing = a.governing ? jurisdictionIdFor(a.governing) : jurisdictionId;
    const span = objectSpan(text, text.indexOf(`"subject": "${a.subject}"`, text.indexOf('"authorities"')));
    const citationId = cites.add({ quote: text.slice(span.start, span.end), locator: { ...span, section: 'authorities' } });
    const values = [MANIFEST_SOURCE, jurisdictionId, a.subject, governing, a.basis, a.relationship ?? null, a.legal_name ?? null, a.agency ?? null, citationId, v.versionId];
    return { id: stableId('authority', jurisdictionId, a.subject), content_sha256: sha256Hex(JSON.stringify([governing, a.basis, a.relationship, a.legal_name, a.agency])), valid_from: today, values };
  });
  await cites.write(client);
  await applyFacts(
    client,
    {
      table: 'authority',
      columns: ['source_id', 'jurisdiction_id', 'subject', 'governing_jurisdiction_id', 'basis', 'relationship', 'legal_name', 'agency', 'citation_id', 'source_version_id'],
      scope: { where: 't.jurisdiction_id = $1 AND t.source_id = $2', params: [jurisdictionId, MANIFEST_SOURCE] },
    },
    facts,
    { now, removeMissing: true },
  );
}

/** The span of the JSON object enclosing position `at` (braces inside strings ignored). */
export function objectSpan(text: string, at: number): { start: number; end: number } {
  if (at < 0) throw new Error('authority not found in the manifest text');
  let depth = 0;
  let start = at;
  for (let i = at; i >= 0; i--) {
    if (text[i] === '}') depth++;
    if (text[i] === '{') {
      if (depth === 0) {
        start = i;
        break;
      }
      depth--;
    }
  }
  let inString = false;
  depth = 0;
  for (let i = start; i < text.length; i++) {
    const ch = text[i];
    if (inString) {
      if (ch === '\\') i++;
      else if (ch === '"') inString = false;
    } else if (ch === '"') inString = true;
    else if (ch === '{') depth++;
    else if (ch === '}' && --depth === 0) return { start, end: i + 1 };
  }
  throw new Error('unbalanced JSON in the manifest text');
}

const formatOfUrl = (url: string) => {
  const path = url.split(/[?#]/)[0].toLowerCase();
  if (path.endsWith('.pdf')) return 'pdf';
  if (path.endsWith('.md')) return 'markdown';
  if (path.endsWith('.txt')) return 'text';
  return 'html';
};

/**
 * The own texts of the text and map amendments an amendment list links to, as sources of kind
 * ordinance_text (one per ordinance, keyed by its number), unless the manifest names that text
 * itself. Returns them in the ordinance list's order of numbers.
 */
export async function ordinanceTextSources(client: Client, jurisdictionId: string): Promise<Array<{ id: string; key: string; kind: string }>> {
  const { rows } = await client.query(
    `SELECT o.number, o.title, o.detail->>'href' AS href, s.key AS list_key, s.cadence FROM (
       SELECT DISTINCT ON (o.id) o.* FROM ordinance o
        WHERE o.jurisdiction_id = $1 AND upper_inf(o.known) AND o.kind IN ('text_amendment', 'map_amendment')
        ORDER BY o.id, upper_inf(o.valid) DESC, lower(o.valid) DESC) o
       JOIN source s ON s.id = o.source_id AND s.kind = 'amendment_list'
      WHERE o.detail->>'href' ~ '^(https?|file):'
        AND NOT EXISTS (SELECT 1 FROM source d WHERE d.jurisdiction_id = $1 AND d.kind = 'ordinance_text'
                          AND d.manifest->>'ordinance' = o.number AND d.manifest->>'derived_from' IS NULL)
      ORDER BY o.number`,
    [jurisdictionId],
  );
  const out = [];
  for (const r of rows) {
    const key = `ordinance-${String(r.number).toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '')}`;
    const manifest = { key, kind: 'ordinance_text', title: `Ordinance ${r.number}: ${r.title}`, url: r.href, format: formatOfUrl(r.href), cadence: r.cadence, ordinance: r.number, derived_from: r.list_key };
    const id = sourceIdFor(jurisdictionId, key);
    await client.query(
      `INSERT INTO source (id, jurisdiction_id, key, kind, url, format, cadence, manifest) VALUES ($1,$2,$3,'ordinance_text',$4,$5,$6,$7)
       ON CONFLICT (id) DO UPDATE SET url = EXCLUDED.url, format = EXCLUDED.format, cadence = EXCLUDED.cadence, manifest = EXCLUDED.manifest`,
      [id, jurisdictionId, key, manifest.url, manifest.format, manifest.cadence, manifest],
    );
    out.push({ id, key, kind: 'ordinance_text' });
  }
  return out;
}
