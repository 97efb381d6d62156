// Documents and their versions: one document per source, a version each time the published
// bytes change (back to earlier bytes included). Unchanged bytes create nothing; the version's
// parsed text is kept for citations.
import { stableId } from '../core/ids.ts';
import type { Queryable } from './db.ts';

export interface VersionRef {
  versionId: string;
  documentId: string;
  number: number;
  isNew: boolean;
  loaded: boolean;
}

export interface DocumentInfo {
  jurisdictionId: string | null;
  sourceId: string | null;
  title: string;
  docType: string;
  mediaType: string;
  /** where the bytes were fetched (kept on the version, never shown as the document's address) */
  url: string;
  /** the document's public address, cited in answers; null when none is known (default: url) */
  publicUrl?: string | null;
  authorship?: 'published' | 'elicited' | 'authored_by_us';
}

export const documentIdFor = (sourceId: string) => stableId('document', 'source', sourceId);

/**
 * Record that bytes with this sha256 were retrieved for a document. The current version is the
 * latest: the same bytes as it make nothing new; any other bytes are a new version, even bytes an
 * earlier version had (a source that returns to them publishes them again now, migration 018).
 */
export async function recordVersion(
  db: Queryable,
  doc: DocumentInfo & { documentId: string },
  blob: { sha256: string; size: number; retrievedAt: Date; etag?: string | null; lastModified?: string | null },
): Promise<VersionRef> {
  await db.query(
    `INSERT INTO document (id, jurisdiction_id, source_id, title, doc_type, media_type, authorship, url_canonical, first_retrieved_at, last_retrieved_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $9)
     ON CONFLICT (id) DO UPDATE SET last_retrieved_at = GREATEST(document.last_retrieved_at, EXCLUDED.last_retrieved_at),
       title = EXCLUDED.title, media_type = EXCLUDED.media_type, url_canonical = EXCLUDED.url_canonical`,
    [doc.documentId, doc.jurisdictionId, doc.sourceId, doc.title, doc.docType, doc.mediaType, doc.authorship ?? 'published', doc.publicUrl === undefined ? doc.url : doc.publicUrl, blob.retrievedAt],
  );
  const current = (
    await db.query(
      `SELECT id, number, sha256, loaded_at, EXISTS (SELECT 1 FROM document_version e WHERE e.document_id = $1 AND e.sha256 = $2) AS seen
         FROM (SELECT 1) one LEFT JOIN LATERAL (SELECT * FROM document_version WHERE document_id = $1 ORDER BY number DESC LIMIT 1) v ON true`,
      [doc.documentId, blob.sha256],
    )
  ).rows[0];
  if (current.sha256 === blob.sha256) return { versionId: current.id, documentId: doc.documentId, number: current.number, isNew: false, loaded: current.loaded_at !== null };
  const number = (current.number ?? 0) + 1;
  // the first version of these bytes keeps the id it always had; a return is told apart by its number
  const versionId = current.seen ? stableId('version', doc.documentId, blob.sha256, String(number)) : stableId('version', doc.documentId, blob.sha256);
  const { rowCount } = await db.query(
    `INSERT INTO document_version (id, document_id, number, sha256, byte_size, media_type, retrieved_at, url, http_etag, http_last_modified)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
     ON CONFLICT DO NOTHING`,
    [versionId, doc.documentId, number, blob.sha256, blob.size, doc.mediaType, blob.retrievedAt, doc.url, blob.etag ?? null, blob.lastModified ?? null],
  );
  if (!rowCount) return recordVersion(db, doc, blob); // a concurrent run recorded a version first
  await db.query('UPDATE document SET version_count = version_count + 1 WHERE id = $1', [doc.documentId]);
  return { versionId, documentId: doc.documentId, number, isNew: true, loaded: false };
}

export async function markLoaded(db: Queryable, versionId: string, summary: unknown): Promise<void> {
  await db.query('UPDATE document_version SET loaded_at = now(), load_summary = $2 WHERE id = $1', [versionId, summary]);
}

export async function saveVersionText(db: Queryable, versionId: string, text: string, textSha256: string): Promise<void> {
  await db.query('INSERT INTO version_text (version_id, text) VALUES ($1, $2) ON CONFLICT (version_id) DO NOTHING', [versionId, text]);
  await db.query('UPDATE document_version SET text_sha256 = $2 WHERE id = $1', [versionId, textSha256]);
}
