// GIS layers through GDAL: GeoJSON, TopoJSON, zipped Shapefile, GeoPackage. Bytes in (held in
// GDAL's /vsimem/, so nothing touches disk), features out: reprojected from the published CRS
// to lon/lat WGS 84, invalid geometry repaired and counted, polygons as MultiPolygon WKB.
// A layer with no CRS and none published is refused, never guessed.
import { createHash, randomBytes } from 'node:crypto';
import gdal from 'gdal-async';
import { asMultiPolygonWkb } from './wkb.ts';

// Geographic CRSs read as lon/lat everywhere (EPSG:4326 is lat/lon by its authority).
gdal.config.set('OSR_DEFAULT_AXIS_MAPPING_STRATEGY', 'TRADITIONAL_GIS_ORDER');

export type LayerFormat = 'geojson' | 'topojson' | 'shapefile_zip' | 'gpkg';

export interface ReadOptions {
  format: LayerFormat;
  publishedCrs?: string | null;
  layer?: string;
  keyField?: string | null;
  /** compute geometry_sha256 of the whole layer here (false: the caller derives it, e.g. in SQL,
   * so a million-feature layer keeps no list of hashes in memory) */
  layerHash?: boolean;
}

export interface Feature {
  index: number;
  key: string | null;
  properties: Record<string, string | number | boolean | null>;
  wkb: Buffer | null; // ISO WKB, 2D, EPSG:4326 lon/lat, MultiPolygon; null when the publisher's geometry has no area
  geom_sha256: string;
  repaired: boolean;
  /** why wkb is null (the feature is kept: the caller decides what a feature without area means) */
  empty: string | null;
}

export interface LayerIssue {
  severity: 'warning' | 'error';
  code: string;
  detail: string;
}

export interface LayerSummary {
  feature_count: number;
  repaired_count: number;
  /** features kept without a usable polygon (wkb null), with the reason */
  empty: Array<{ index: number; reason: string }>;
  published_crs: string | null;
  geometry_sha256: string;
  fields: string[];
  issues: LayerIssue[];
}

export interface LayerRead extends LayerSummary {
  features: Feature[];
}

const EXT: Record<LayerFormat, string> = { geojson: 'geojson', topojson: 'topojson', shapefile_zip: 'zip', gpkg: 'gpkg' };
const POLYGON = 3;
const MULTIPOLYGON = 6;
const COLLECTION = 7;

function crsName(srs: gdal.SpatialReference): string {
  const code = srs.getAuthorityCode(null as never);
  const name = srs.getAuthorityName(null as never);
  return code && name ? `${name}:${code}` : srs.toWKT().slice(0, 120);
}

/** Polygons of any geometry, as one MultiPolygon (null when it has no area). */
function toMultiPolygon(g: gdal.Geometry): gdal.MultiPolygon | null {
  const flat = g.wkbType & 0xff;
  const out = new gdal.MultiPolygon();
  const add = (p: gdal.Geometry) => {
    const t = p.wkbType & 0xff;
    if (t === POLYGON && !p.isEmpty()) out.children.add(p);
    else if (t === MULTIPOLYGON || t === COLLECTION) for (const c of (p as gdal.GeometryCollection).children) add(c);
  };
  if (flat === POLYGON || flat === MULTIPOLYGON || flat === COLLECTION) add(g);
  return out.children.count() > 0 ? out : null;
}

/** Bytes in memory, or a file (large layers are read where they lie, not copied). */
export type LayerInput = Uint8Array | { path: string };

/** A Polygon's WKB as a one-polygon MultiPolygon's (little-endian, ISO). */

function openBytes(input: LayerInput, opts: ReadOptions): { ds: gdal.Dataset; release: () => void } {
  if (!(input instanceof Uint8Array)) {
    const path = opts.format === 'shapefile_zip' ? `/vsizip/${input.path}` : input.path;
    // GDAL chooses the driver by name: blob files carry none, so the format is given
    const drivers = { geojson: ['GeoJSON'], topojson: ['TopoJSON'], shapefile_zip: ['ESRI Shapefile'], gpkg: ['GPKG'] }[opts.format];
    return { ds: gdal.open(path, 'r', drivers), release: () => {} };
  }
  const bytes = input;
  const name = `/vsimem/landlex-${randomBytes(8).toString('hex')}.${EXT[opts.format]}`;
  gdal.vsimem.set(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength), name);
  const release = () => {
    try {
      gdal.vsimem.release(name);
    } catch {
      /* already gone */
    }
  };
  try {
    const path = opts.format === 'shapefile_zip' ? `/vsizip/${name}` : name;
    return { ds: gdal.open(path), release };
  } catch (err) {
    release();
    throw err;
  }
}

/** A layer's geometry hash: sha256 of its features' hashes, sorted, one per line (order-free). */
export const layerSha256 = (hashes: string[]) => createHash('sha256').update(hashes.sort().join('\n')).digest('hex');

/** Features one at a time (memory stays flat), then the summary. */
export async function* readFeatures(bytes: LayerInput, opts: ReadOptions): AsyncGenerator<Feature, LayerSummary> {
  const summary: LayerSummary = { feature_count: 0, repaired_count: 0, empty: [], published_crs: null, geometry_sha256: '', fields: [], issues: [] };
  let opened: ReturnType<typeof openBytes>;
  try {
    opened = openBytes(bytes, opts);
  } catch (err) {
    summary.issues.push({ severity: 'error', code: 'unreadable', detail: (err as Error).message });
    return summary;
  }
  try {
    const ds = opened.ds;
    const layer = opts.layer ? ds.layers.get(opts.layer) : ds.layers.get(0);
    if (!layer) {
      summary.issues.push({ severity: 'error', code: 'layer_missing', detail: opts.layer ? `no layer ${opts.layer}` : 'the file has no layer' });
      return summary;
    }
    let srs = layer.srs;
    if (!srs && opts.publishedCrs) srs = gdal.SpatialReference.fromUserInput(opts.publishedCrs);
    if (!srs) {
      summary.issues.push({ severity: 'error', code: 'crs_unknown', detail: 'the layer states no CRS and the manifest publishes none; coordinates are not guessed' });
      return summary;
    }
    summary.published_crs = crsName(srs);
    summary.fields = layer.fields.getNames();
    const target = gdal.SpatialReference.fromUserInput('OGC:CRS84');
    // already lon/lat WGS 84: nothing to transform
    const ct = srs.isSame(target) || (srs.getAuthorityName(null as never) === 'EPSG' && srs.getAuthorityCode(null as never) === '4326') ? null : new gdal.CoordinateTransformation(srs, target);
    const hashes: string[] = [];
    let index = 0;
    let feature = layer.features.first();
    while (feature) {
      const i = index++;
      summary.feature_count++;
      const properties = feature.fields.toObject() as Feature['properties'];
      const raw = feature.getGeometry();
      let geom: gdal.Geometry | null = raw ? raw.clone() : null;
      let repaired = false;
      let multi: gdal.MultiPolygon | null = null;
      let reason = 'no geometry';
      let wkb: Buffer | null = null;
      if (geom && !geom.isEmpty()) {
        if (ct) geom.transform(ct);
        geom.flattenTo2D();
        if (!geom.isValid()) {
          geom = geom.makeValid();
          repaired = true;
        }
        const flat = geom.wkbType & 0xff;
        if (flat === POLYGON || flat === MULTIPOLYGON) wkb = asMultiPolygonWkb(geom.toWKB('LSB', 'ISO'));
        else {
          multi = toMultiPolygon(geom);
          wkb = multi ? asMultiPolygonWkb(multi.toWKB('LSB', 'ISO')) : null;
        }
        reason = repaired ? 'no area left after repair' : 'not a polygon';
      }
      if (repaired && wkb) summary.repaired_count++;
      if (!wkb) summary.empty.push({ index: i, reason });
      const sha = createHash('sha256').update(wkb ?? `empty:${i}`).digest('hex');
      if (wkb && opts.layerHash !== false) hashes.push(sha);
      const keyValue = opts.keyField ? properties[opts.keyField] : null;
      yield { index: i, key: keyValue === null || keyValue === undefined ? null : String(keyValue), properties, wkb, geom_sha256: sha, repaired, empty: wkb ? null : reason };
      // Let the event loop turn now and then: the native buffers of WKB already used are freed
      // by finalizers that only run there (a consumer that never waits on I/O would hold them all).
      if (i % 200 === 199) await new Promise((r) => setImmediate(r));
      feature = layer.features.next();
    }
    if (opts.layerHash !== false) summary.geometry_sha256 = layerSha256(hashes);
    if (summary.empty.length > 0) {
      summary.issues.push({ severity: 'warning', code: 'geometry_empty', detail: `${summary.empty.length} features have no polygon with area (kept, without geometry): ${summary.empty.slice(0, 5).map((e) => `#${e.index} ${e.reason}`).join('; ')}` });
    }
    return summary;
  } catch (err) {
    summary.issues.push({ severity: 'error', code: 'unreadable', detail: (err as Error).message });
    return summary;
  } finally {
    opened.ds.close();
    opened.release();
  }
}

/** The whole layer in memory (small and medium layers). */
export async function readLayer(bytes: LayerInput, opts: ReadOptions): Promise<LayerRead> {
  const features: Feature[] = [];
  const it = readFeatures(bytes, opts);
  for (;;) {
    const r = await it.next();
    if (r.done) return { ...r.value, features };
    features.push(r.value);
  }
}
