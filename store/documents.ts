// Documents and their versions: one document per source, a version per distinct sha256.
// Unchanged bytes create nothing; the version's parsed text is kept for citations.
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
  url: string;
  authorship?: 'published' | 'elicited' | 'authored_by_us';
}

export const documentIdFor = (sourceId: string) => stableId('document', 'source', sourceId);

/** Record that bytes with this sha256 were retrieved for a document; a new version only for new bytes. */
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
    [doc.documentId, doc.jurisdictionId, doc.sourceId, doc.title, doc.docType, doc.mediaType, doc.authorship ?? 'published', doc.url, blob.retrievedAt],
  );
  const existing = await db.query('SELECT id, number, loaded_at FROM document_version WHERE document_id = $1 AND sha256 = $2', [doc.documentId, blob.sha256]);
  if (existing.rows[0]) {
    const r = existing.rows[0];
    return { versionId: r.id, documentId: doc.documentId, number: r.number, isNew: false, loaded: r.loaded_at !== null };
  }
  const versionId = stableId('version', doc.documentId, blob.sha256);
  const { rows } = await db.query(
    `INSERT INTO document_version (id, document_id, number, sha256, byte_size, media_type, retrieved_at, url, http_etag, http_last_modified)
     SELECT $1, $2, COALESCE(max(number), 0) + 1, $3, $4, $5, $6, $7, $8, $9 FROM document_version WHERE document_id = $2
     ON CONFLICT (document_id, sha256) DO NOTHING
     RETURNING number`,
    [versionId, doc.documentId, blob.sha256, blob.size, doc.mediaType, blob.retrievedAt, doc.url, blob.etag ?? null, blob.lastModified ?? null],
  );
  if (!rows[0]) return recordVersion(db, doc, blob); // a concurrent run recorded it first
  await db.query('UPDATE document SET version_count = version_count + 1 WHERE id = $1', [doc.documentId]);
  return { versionId, documentId: doc.documentId, number: rows[0].number, isNew: true, loaded: false };
}

export async function markLoaded(db: Queryable, versionId: string, summary: unknown): Promise<void> {
  await db.query('UPDATE document_version SET loaded_at = now(), load_summary = $2 WHERE id = $1', [versionId, summary]);
}

export async function saveVersionText(db: Queryable, versionId: string, text: string, textSha256: string): Promise<void> {
  await db.query('INSERT INTO version_text (version_id, text) VALUES ($1, $2) ON CONFLICT (version_id) DO NOTHING', [versionId, text]);
  await db.query('UPDATE document_version SET text_sha256 = $2 WHERE id = $1', [versionId, textSha256]);
}
