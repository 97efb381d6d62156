// The extract formats: the file each writes, its media type, how it carries geometry and who
// writes it. Pure data. JSONL is rows (one object a line, for jq, DuckDB, pandas), not GeoJSON;
// GeoJSONSeq, GeoPackage and FlatGeobuf are the formats GIS tools open; GeoParquet is for
// DuckDB, GeoPandas and GDAL builds with Arrow; Geobuf is the GeoJSONSeq's features as one
// FeatureCollection for the geobuf package (JavaScript, Python), built whole in memory.
export const FORMATS = ['jsonl', 'parquet', 'geojsonseq', 'gpkg', 'flatgeobuf', 'geobuf'] as const;
export type ExtractFormat = (typeof FORMATS)[number];

export interface FormatSpec {
  extension: string;
  mediaType: string;
  /** how the row query sends geometry: WKB (hex) or GeoJSON text */
  geometry: 'wkb' | 'geojson';
  /** the format holds only features with a geometry (rows without one cannot be written) */
  geometryRequired: boolean;
  /** GDAL's driver for the formats GDAL (gdal-async) writes; DuckDB writes the others */
  gdalDriver?: 'GPKG' | 'FlatGeobuf';
  /** encoded whole in memory from the GeoJSONSeq DuckDB writes (Geobuf) */
  fromGeoJsonSeq?: true;
  /** the most rows the format is written with (it is built in memory); more are refused when planned */
  maxRows?: number;
}

/**
 * Rows a Geobuf extract may hold. Its worker's heap is capped at 1 GiB (GEOBUF_HEAP_MB); measured,
 * Cambridge parcels (every column, 925 bytes of GeoJSON a row) need about 3 KB of heap a row: 13,108
 * fit in 48 MB, 104,864 in 320 MB (RSS +450 MB). So 100,000 rows leave room for rows 3 times as large.
 */
export const GEOBUF_MAX_ROWS = 100_000;

export const FORMAT_SPECS: Record<ExtractFormat, FormatSpec> = {
  jsonl: { extension: 'jsonl', mediaType: 'application/x-ndjson', geometry: 'geojson', geometryRequired: false },
  parquet: { extension: 'parquet', mediaType: 'application/vnd.apache.parquet', geometry: 'wkb', geometryRequired: false },
  // RFC 8142: each feature is RS (0x1E), a GeoJSON Feature, LF
  geojsonseq: { extension: 'geojsons', mediaType: 'application/geo+json-seq', geometry: 'geojson', geometryRequired: false },
  gpkg: { extension: 'gpkg', mediaType: 'application/geopackage+sqlite3', geometry: 'wkb', geometryRequired: false, gdalDriver: 'GPKG' },
  // GDAL's FlatGeobuf writer (3.6) drops features without geometry; with a spatial index the format cannot hold them
  flatgeobuf: { extension: 'fgb', mediaType: 'application/vnd.flatgeobuf', geometry: 'wkb', geometryRequired: true, gdalDriver: 'FlatGeobuf' },
  // .pbf as the geobuf package's own README and tools name Geobuf files (OSM's are .osm.pbf)
  geobuf: { extension: 'pbf', mediaType: 'application/vnd.geobuf', geometry: 'geojson', geometryRequired: false, fromGeoJsonSeq: true, maxRows: GEOBUF_MAX_ROWS },
};

export const MEDIA_TYPES = FORMATS.map((f) => FORMAT_SPECS[f].mediaType);

/** The file name of an extract of `resource` in `format`. */
export function fileName(resource: string, format: ExtractFormat): string {
  return `${resource}.${FORMAT_SPECS[format].extension}`;
}
