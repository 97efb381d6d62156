// Which loader reads which kind of source, and how each kind is described.
import { ApplicationFailure } from '@temporalio/common';
import type { Format, SourceKind } from '../../ingest/manifest.ts';
import type { Loader } from './context.ts';
import { loadCodeText } from './code-text.ts';
import { loadDistrictList } from './district-list.ts';
import { mapLoader } from './maps.ts';
import { loadParcels } from './parcels.ts';
import { loadOrdinances } from './ordinances.ts';
import { loadProperties } from './properties.ts';
import { loadFeed, loadRecorder } from './records.ts';

const LOADERS: Partial<Record<SourceKind, Loader>> = {
  code_text: loadCodeText,
  district_list: loadDistrictList,
  district_map: mapLoader('base'),
  overlay_map: mapLoader('overlay'),
  parcel_layer: loadParcels,
  amendment_list: loadOrdinances,
  assessor_roll: loadProperties,
  recorder_index: loadRecorder,
  permit_feed: loadFeed,
  case_feed: loadFeed,
};

export function loaderFor(kind: string): Loader {
  const loader = LOADERS[kind as SourceKind];
  if (!loader) throw ApplicationFailure.nonRetryable(`no loader reads sources of kind ${kind}`, 'BadInput');
  return loader;
}

/** The coverage layer a kind of source fills. */
export function layerOf(kind: string): string {
  const layers: Record<string, string> = {
    code_text: 'zoning_text',
    district_list: 'district_list',
    amendment_list: 'ordinance',
    district_map: 'district_map',
    overlay_map: 'overlay',
    parcel_layer: 'parcel',
    assessor_roll: 'assessor',
    recorder_index: 'recorder',
    permit_feed: 'permit',
    case_feed: 'case',
  };
  return layers[kind] ?? kind;
}

export function docTypeOf(kind: string): string {
  if (kind === 'code_text') return 'code';
  if (kind === 'amendment_list') return 'ordinance';
  if (kind === 'district_map' || kind === 'overlay_map' || kind === 'parcel_layer') return 'map';
  if (kind === 'assessor_roll') return 'roll';
  return 'feed';
}

export function mediaTypeOf(format: Format | string): string {
  const types: Record<string, string> = {
    markdown: 'text/markdown',
    html: 'text/html',
    pdf: 'application/pdf',
    csv: 'text/csv',
    json: 'application/json',
    geojson: 'application/geo+json',
    topojson: 'application/json',
    shapefile_zip: 'application/zip',
    gpkg: 'application/geopackage+sqlite3',
  };
  return types[format] ?? 'application/octet-stream';
}
