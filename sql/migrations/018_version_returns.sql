-- A source that returns to bytes it published before (A → B → A) publishes A again now: that is
-- a new version (numbered next, with its own retrieved_at and id) that points at the same blob,
-- so a document may hold one sha256 in several versions. The current version is the highest
-- number; the same bytes as it make nothing new.
ALTER TABLE document_version DROP CONSTRAINT document_version_document_id_sha256_key;
CREATE INDEX document_version_sha256 ON document_version (document_id, sha256);
