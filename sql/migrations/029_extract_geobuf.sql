-- Geobuf extracts beside the other formats.
ALTER TABLE extract DROP CONSTRAINT extract_format_check,
  ADD CONSTRAINT extract_format_check CHECK (format IN ('jsonl', 'parquet', 'geojsonseq', 'gpkg', 'flatgeobuf', 'geobuf'));
ALTER TABLE extract_file DROP CONSTRAINT extract_file_format_check,
  ADD CONSTRAINT extract_file_format_check CHECK (format IN ('jsonl', 'parquet', 'geojsonseq', 'gpkg', 'flatgeobuf', 'geobuf'));
