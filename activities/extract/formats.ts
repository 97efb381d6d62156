// The extract formats: the file each writes, its media type, how it carries geometry and who
// writes it. Pure data. JSONL is rows (one object a line, for jq, DuckDB, pandas), not GeoJSON;
// GeoJSONSeq, GeoPackage and FlatGeobuf are the formats GIS tools open; GeoParquet is for
// DuckDB, GeoPandas and GDAL builds with Arrow.
export const FORMATS = ['jsonl', 'parquet', 'geojsonseq', 'gpkg', 'flatgeobuf'] as const;
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
}

export const FORMAT_SPECS: Record<ExtractFormat, FormatSpec> = {
  jsonl: { extension: 'jsonl', mediaType: 'application/x-ndjson', geometry: 'geojson', geometryRequired: false },
  parquet: { extension: 'parquet', mediaType: 'application/vnd.apache.parquet', geometry: 'wkb', geometryRequired: false },
  // RFC 8142: each feature is RS (0x1E), a GeoJSON Feature, LF
  geojsonseq: { extension: 'geojsons', mediaType: 'application/geo+json-seq', geometry: 'geojson', geometryRequired: false },
  gpkg: { extension: 'gpkg', mediaType: 'application/geopackage+sqlite3', geometry: 'wkb', geometryRequired: false, gdalDriver: 'GPKG' },
  // GDAL's FlatGeobuf writer (3.6) drops features without geometry; with a spatial index the format cannot hold them
  flatgeobuf: { extension: 'fgb', mediaType: 'application/vnd.flatgeobuf', geometry: 'wkb', geometryRequired: true, gdalDriver: 'FlatGeobuf' },
};

export const MEDIA_TYPES = FORMATS.map((f) => FORMAT_SPECS[f].mediaType);

/** The file name of an extract of `resource` in `format`. */
export function fileName(resource: string, format: ExtractFormat): string {
  return `${resource}.${FORMAT_SPECS[format].extension}`;
}
