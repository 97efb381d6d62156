// Provenance of a rule answer: for each retained document version its facts came from, the
// source, the version (number, sha256, retrieval) and the facts of the answer it gave, by table.
// Facts are found in the answer by their citations (a citation names its version); district
// shares by the map versions that draw the districts there; authorities by their citations.
import type { Queryable } from '../../store/db.ts';
import type { Times } from '../../store/place/resolve.ts';

type Row = Record<string, any>;

/** The table whose facts an answer's section holds (a losing statement is of its parent's table). */
const TABLE_OF: Record<string, string> = {
  district: 'district',
  control: 'control',
  permission: 'permission',
  unlisted_uses: 'unlisted_use_rule',
  moratorium: 'moratorium',
  definition: 'section',
  standalone_ordinance: 'ordinance',
  future_land_use: 'district_area',
};

interface Fact {
  table: string;
  id: string | null;
  citation?: string;
  version?: string;
}

/** Every cited fact of the answer: objects carrying a citation, and future land use areas (their map version). */
function factsOf(node: unknown, table: string, out: Fact[]) {
  if (Array.isArray(node)) {
    for (const x of node) factsOf(x, table, out);
    return;
  }
  if (!node || typeof node !== 'object') return;
  const o = node as Row;
  if (o.citation && typeof o.citation === 'object' && o.citation.id) out.push({ table, id: o.id ?? null, citation: o.citation.id });
  else if (table === 'district_area' && o.version) out.push({ table, id: o.id ?? null, version: o.version });
  for (const [k, v] of Object.entries(o)) if (k !== 'citation' && k !== 'not_consulted') factsOf(v, k === 'losing' ? table : (TABLE_OF[k] ?? table), out);
}

export interface ProvenanceQuery {
  jurisdictionId: string;
  geojson: string | null;
  authorities: Array<{ id: string; citation_id: string | null }>;
}

export async function provenanceOf(db: Queryable, item: Row, q: ProvenanceQuery, t: Times) {
  const facts: Fact[] = [];
  factsOf(item, '', facts);
  for (const a of q.authorities) if (a.citation_id) facts.push({ table: 'authority', id: a.id, citation: a.citation_id });
  const districts = [...(item.share ?? []), ...(item.overlay ?? [])].map((s: Row) => s.district.id);
  const { rows } = await db.query(
    `WITH cited AS (SELECT c.id, c.version_id FROM citation c WHERE c.id = ANY($1::text[])),
     drawn AS (SELECT a.id, m.version_id FROM district_area a JOIN map_version m ON m.id = a.map_version_id
                WHERE $3::text IS NOT NULL AND a.jurisdiction_id = $2 AND a.district_id = ANY($4::text[]) AND a.kind IN ('base', 'overlay')
                  AND a.valid @> $5::date AND a.known @> $6::timestamptz AND ST_Intersects(a.geom, ST_GeomFromGeoJSON($3::text))),
     versions AS (SELECT version_id FROM cited UNION SELECT version_id FROM drawn UNION SELECT unnest($7::text[]))
     SELECT v.id, v.number, v.sha256, to_char(v.retrieved_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS retrieved_at,
            d.id AS document, d.title, d.doc_type, d.url_canonical AS url, s.id AS source_id, s.key AS source_key, s.kind AS source_kind,
            (SELECT COALESCE(json_agg(c.id), '[]') FROM cited c WHERE c.version_id = v.id) AS citations,
            (SELECT COALESCE(json_agg(x.id ORDER BY x.id), '[]') FROM drawn x WHERE x.version_id = v.id) AS areas
       FROM document_version v JOIN document d ON d.id = v.document_id LEFT JOIN source s ON s.id = d.source_id
      WHERE v.id IN (SELECT version_id FROM versions)
      ORDER BY d.title, v.number`,
    [[...new Set(facts.flatMap((f) => (f.citation ? [f.citation] : [])))], q.jurisdictionId, q.geojson, districts, t.asOf, t.knownAsOf, [...new Set(facts.flatMap((f) => (f.version ? [f.version] : [])))]],
  );
  return rows.map((r) => {
    const citations = new Set<string>(r.citations);
    const mine = facts.filter((f) => (f.citation ? citations.has(f.citation) : f.version === r.id));
    const fact = [...mine.map((f) => ({ table: f.table, id: f.id, citation: f.citation ?? null })), ...(r.areas as string[]).map((id) => ({ table: 'district_area', id, citation: null }))];
    const seen = new Set<string>();
    return {
      version: r.id,
      version_number: r.number,
      sha256: r.sha256,
      retrieved_at: r.retrieved_at,
      document: r.document,
      document_title: r.title,
      doc_type: r.doc_type,
      url: r.url,
      source: r.source_id ? { id: r.source_id, key: r.source_key, kind: r.source_kind } : null,
      fact: fact.filter((f) => {
        const k = `${f.table}|${f.id}|${f.citation}`;
        if (seen.has(k)) return false;
        seen.add(k);
        return true;
      }),
    };
  });
}
