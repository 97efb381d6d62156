-- Extracts GIS tools open: GeoJSONSeq (RFC 8142), GeoPackage and FlatGeobuf beside JSONL and Parquet.
ALTER TABLE extract DROP CONSTRAINT extract_format_check,
  ADD CONSTRAINT extract_format_check CHECK (format IN ('jsonl', 'parquet', 'geojsonseq', 'gpkg', 'flatgeobuf'));
ALTER TABLE extract_file DROP CONSTRAINT extract_file_format_check,
  ADD CONSTRAINT extract_file_format_check CHECK (format IN ('jsonl', 'parquet', 'geojsonseq', 'gpkg', 'flatgeobuf'));
