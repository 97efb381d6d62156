// GDAL (gdal-async) writes GeoPackage and FlatGeobuf from the staged rows: an OGR VRT names and
// types the staged CSV's columns and reads the geometry from its hex WKB, and vectorTranslate
// (ogr2ogr) copies it on GDAL's own thread, never the event loop. Geometry is EPSG:4326 with its
// coordinates in lon,lat order (the VRT layer takes GDAL's traditional GIS axis order), so a
// GeoPackage has srs_id 4326 and a FlatGeobuf EPSG 4326, as every GIS tool expects.
import { writeFile } from 'node:fs/promises';
import { basename, extname, join } from 'node:path';
import gdal from 'gdal-async';
import type { ColumnType } from './resources.ts';
import type { OutputColumn } from './sql.ts';

// GDAL 3.6's VRT schema predates the JSON subtype it reads; without this each open warns on stderr
gdal.config.set('GDAL_XML_VALIDATION', 'NO');

export interface GdalWriteSpec {
  /** CSV as COPY wrote it, with a header line of the column names */
  staged: string;
  out: string;
  driver: 'GPKG' | 'FlatGeobuf';
  layer: string;
  columns: OutputColumn[];
  /** for a GeoPackage layer's description */
  description: string;
  workDir: string;
}

const TYPES: Record<Exclude<ColumnType, 'geometry'>, { type: string; subtype?: string }> = {
  text: { type: 'String' },
  integer: { type: 'Integer64' },
  number: { type: 'Real' },
  boolean: { type: 'Integer', subtype: 'Boolean' },
  date: { type: 'Date' },
  timestamp: { type: 'DateTime' },
  json: { type: 'String', subtype: 'JSON' },
  'text[]': { type: 'String', subtype: 'JSON' },
};

const xml = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/** The OGR VRT over the staged CSV: every column named and typed, the geometry read from WKB. */
export function vrtXml(spec: Pick<GdalWriteSpec, 'staged' | 'layer' | 'columns'>): string {
  const geometry = spec.columns.find((c) => c.type === 'geometry');
  const fields = spec.columns
    .filter((c) => c.type !== 'geometry')
    .map((c) => {
      const t = TYPES[c.type as Exclude<ColumnType, 'geometry'>];
      return `    <Field name="${xml(c.name)}" src="${xml(c.name)}" type="${t.type}"${t.subtype ? ` subtype="${t.subtype}"` : ''}/>`;
    });
  const geom = geometry
    ? [
        `    <GeometryType>wkb${geometry.geometryType ?? 'Unknown'}</GeometryType>`,
        '    <LayerSRS>EPSG:4326</LayerSRS>',
        `    <GeometryField encoding="WKB" field="${xml(geometry.name)}" reportSrcColumn="false"/>`,
      ]
    : ['    <GeometryType>wkbNone</GeometryType>'];
  return [
    '<OGRVRTDataSource>',
    `  <OGRVRTLayer name="${xml(spec.layer)}">`,
    `    <SrcDataSource>${xml(spec.staged)}</SrcDataSource>`,
    `    <SrcLayer>${xml(basename(spec.staged, extname(spec.staged)))}</SrcLayer>`,
    // PostgreSQL's CSV writes NULL as an empty field; an empty text reads as null too
    '    <OpenOptions><OOI key="HEADERS">YES</OOI><OOI key="EMPTY_STRING_AS_NULL">YES</OOI><OOI key="AUTODETECT_TYPE">NO</OOI></OpenOptions>',
    ...geom,
    ...fields,
    '  </OGRVRTLayer>',
    '</OGRVRTDataSource>',
  ].join('\n');
}

/** ogr2ogr's arguments for the output. */
export function translateArgs(spec: Pick<GdalWriteSpec, 'driver' | 'layer' | 'description'>): string[] {
  const args = ['-f', spec.driver, '-nln', spec.layer];
  if (spec.driver === 'GPKG') args.push('-lco', 'GEOMETRY_NAME=geometry', '-lco', `DESCRIPTION=${spec.description}`);
  if (spec.driver === 'FlatGeobuf') args.push('-lco', 'SPATIAL_INDEX=YES');
  return args;
}

/** Write the file; returns the features GDAL reads back from it. */
export async function writeWithGdal(spec: GdalWriteSpec): Promise<number> {
  const vrt = join(spec.workDir, 'rows.vrt');
  await writeFile(vrt, vrtXml(spec));
  const src = await gdal.openAsync(vrt);
  try {
    const out = await gdal.vectorTranslateAsync(spec.out, src, translateArgs(spec));
    out.close();
  } finally {
    src.close();
  }
  const back = await gdal.openAsync(spec.out);
  try {
    return back.layers.count() === 0 ? 0 : await back.layers.get(0).features.countAsync(true);
  } finally {
    back.close();
  }
}
