// Which loader reads which kind of source, and how each kind is described.
import { ApplicationFailure } from '@temporalio/common';
import type { Format, SourceKind } from '../../ingest/manifest.ts';
import { nulAt } from '../../ingest/nul.ts';
import { loadCodeText } from './code-text.ts';
import type { Loader } from './context.ts';
import { loadDistrictList } from './district-list.ts';
import { loadMeetingFeed, loadPermitFeed } from './feeds.ts';
import { mapLoader } from './maps.ts';
import { loadOrdinanceText } from './ordinance-text.ts';
import { loadOrdinances } from './ordinances.ts';
import { loadParcels } from './parcels.ts';
import { loadProperties } from './properties.ts';
import { loadRecorder } from './records.ts';

/**
 * A document whose text is kept and quoted (a code, a district list, an ordinance list) cannot
 * hold a NUL byte: that version is refused whole, naming where, and what is held stays.
 */
function refusingNul(loader: Loader): Loader {
  return async (ctx) => {
    if (ctx.source.manifest.format === 'pdf') return loader(ctx);
    const bytes = await ctx.bytes();
    const at = nulAt(bytes);
    if (at) throw ApplicationFailure.nonRetryable(`a NUL byte at line ${at.line}, column ${at.column}: text that is kept and quoted cannot hold one; this version is refused`, 'BadInput');
    return loader({ ...ctx, bytes: async () => bytes });
  };
}

const LOADERS: Partial<Record<SourceKind, Loader>> = {
  code_text: refusingNul(loadCodeText),
  district_list: refusingNul(loadDistrictList),
  district_map: mapLoader('base'),
  overlay_map: mapLoader('overlay'),
  parcel_layer: loadParcels,
  amendment_list: refusingNul(loadOrdinances),
  assessor_roll: loadProperties,
  recorder_index: loadRecorder,
  permit_feed: loadPermitFeed,
  case_feed: loadPermitFeed,
  meeting_feed: loadMeetingFeed,
  ordinance_text: refusingNul(loadOrdinanceText),
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
    meeting_feed: 'meeting',
    ordinance_text: 'ordinance_text',
  };
  return layers[kind] ?? kind;
}

export function docTypeOf(kind: string): string {
  if (kind === 'code_text') return 'code';
  if (kind === 'amendment_list' || kind === 'ordinance_text') return 'ordinance';
  if (kind === 'district_map' || kind === 'overlay_map' || kind === 'parcel_layer') return 'map';
  if (kind === 'assessor_roll') return 'roll';
  return 'feed';
}

export function mediaTypeOf(format: Format | string): string {
  const types: Record<string, string> = {
    markdown: 'text/markdown',
    html: 'text/html',
    pdf: 'application/pdf',
    text: 'text/plain',
    csv: 'text/csv',
    json: 'application/json',
    geojson: 'application/geo+json',
    topojson: 'application/json',
    shapefile_zip: 'application/zip',
    gpkg: 'application/geopackage+sqlite3',
  };
  return types[format] ?? 'application/octet-stream';
}
