// A map exhibit: a PNG of a bounding box or a parcel with one layer drawn and a stamp naming the
// map version, the as_of date and when the source was retrieved, fit to attach to a memo.
// Drawn as SVG from PostGIS (ST_AsSVG in pixel space; it flips y itself) and rasterized by resvg.
import { createHash } from 'node:crypto';
import { renderAsync } from '@resvg/resvg-js';
import { invalid, notFound } from '../core/errors.ts';
import { requireId } from '../core/ids.ts';
import type { Queryable } from '../store/db.ts';
import { parseBbox } from '../core/query/bbox.ts';
import { mapVersionInForce, mapVersionsKnownAt, type TileLayer } from './layers.ts';

const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** A pale colour of its own for each code (the same code, the same colour). */
function colour(code: string): string {
  const h = createHash('md5').update(code).digest();
  return `#${[h[0], h[1], h[2]].map((b) => (150 + (b % 90)).toString(16).padStart(2, '0')).join('')}`;
}

export interface ImageRequest {
  layer: TileLayer;
  bbox?: string;
  parcel?: string;
  width: number;
  height: number;
  asOf: string;
  knownAsOf: string;
}

/** The bounding box (Web Mercator) to draw: given, or the parcel's with a margin. */
async function extent(db: Queryable, r: ImageRequest) {
  if (r.bbox && r.parcel) throw invalid('bbox', 'give a bbox or a parcel, not both');
  if (r.parcel) {
    const id = requireId('parcel', r.parcel, 'parcel');
    const { rows } = await db.query(
      `SELECT ST_AsSVG(geom) IS NOT NULL AS ok, ST_XMin(e) AS w, ST_YMin(e) AS s, ST_XMax(e) AS e, ST_YMax(e) AS n, parcel_key
         FROM (SELECT geom, parcel_key, ST_Expand(ST_Transform(geom, 3857), GREATEST(ST_XMax(ST_Transform(geom, 3857)) - ST_XMin(ST_Transform(geom, 3857)), 40)) AS e
                 FROM parcel WHERE id = $1 AND known @> $2::timestamptz ORDER BY upper_inf(valid) DESC LIMIT 1) x`,
      [id, r.knownAsOf],
    );
    if (!rows[0]) throw notFound('parcel', id, 'parcel');
    if (rows[0].w === null) throw invalid('parcel', 'the publisher’s map has no polygon for this parcel');
    return { ...rows[0], label: `parcel ${rows[0].parcel_key}` };
  }
  if (!r.bbox) throw invalid('bbox', 'give a bbox (west,south,east,north) or a parcel');
  const [w, s, e, n] = parseBbox(r.bbox);
  const { rows } = await db.query(`SELECT ST_XMin(b) AS w, ST_YMin(b) AS s, ST_XMax(b) AS e, ST_YMax(b) AS n FROM ST_Transform(ST_MakeEnvelope($1, $2, $3, $4, 4326), 3857) b`, [w, s, e, n]);
  if (rows[0].e - rows[0].w > 50_000) throw invalid('bbox', 'is wider than 50 km; an exhibit shows a neighbourhood, not a region');
  return { ...rows[0], label: `bbox ${r.bbox}` };
}

/** What the exhibit's footer states (and the response headers repeat). */
export interface ExhibitStamp {
  layer: string;
  extent: string;
  map_version: string[];
  effective_from: string[];
  retrieved_at: Array<string | null>;
  as_of: string;
  known_as_of: string;
  features: number;
}

export async function renderExhibit(db: Queryable, r: ImageRequest): Promise<{ png: Buffer; stamp: ExhibitStamp }> {
  const box = await extent(db, r);
  const scale = Math.min(r.width / (box.e - box.w), (r.height - 70) / (box.n - box.s));
  const table = r.layer.id === 'parcel' ? 'parcel' : 'district_area';
  const kind = r.layer.id === 'district' ? 'base' : r.layer.id;
  const { rows } = await db.query(
    `SELECT ${table === 'parcel' ? 'parcel_key' : 'code_raw'} AS code, map_version_id AS map_version, jurisdiction_id,
            ST_AsSVG(ST_Affine(ST_Transform(geom, 3857), $1::float8, 0, 0, $1::float8, -$2::float8 * $1::float8, -$3::float8 * $1::float8), 0, 1) AS d,
            ST_X(p) AS lx, ST_Y(p) AS ly
       FROM (SELECT *, ST_Affine(ST_Transform(ST_PointOnSurface(geom), 3857), $1::float8, 0, 0, -$1::float8, -$2::float8 * $1::float8, $3::float8 * $1::float8) AS p
               FROM ${table} WHERE geom IS NOT NULL AND ${table === 'parcel' ? '$8::text IS NOT NULL' : 'kind = $8'}
                AND valid @> $6::date AND known @> $7::timestamptz
                AND ST_Transform(geom, 3857) && ST_MakeEnvelope($2, $4, $5, $3, 3857)) x`,
    [scale, box.w, box.n, box.s, box.e, r.asOf, r.knownAsOf, kind],
  );
  // The stamp names the map versions in force (GET /map at as_of, known_as_of) in the
  // jurisdictions drawn: a feature a later map left unchanged keeps the id of the map that first
  // drew it, so the features' own ids would name a superseded map. Should map_version name none
  // there, the features' own map versions are named instead.
  const jurisdictions = [...new Set(rows.map((x) => x.jurisdiction_id as string))];
  const { rows: inForce } = await db.query(
    `SELECT m.id FROM ${mapVersionsKnownAt('$4')} WHERE m.jurisdiction_id = ANY($1) AND m.layer = $2 AND ${mapVersionInForce('$4', '$3', '$3')}`,
    [jurisdictions, r.layer.versionLayer, r.asOf, r.knownAsOf],
  );
  const versions = inForce.length ? inForce.map((m) => m.id as string) : [...new Set(rows.map((x) => x.map_version as string))];
  const { rows: mv } = await db.query(
    `SELECT m.id, m.effective_from::text AS effective_from, v.retrieved_at FROM map_version m LEFT JOIN document_version v ON v.id = m.version_id WHERE m.id = ANY($1) ORDER BY m.id`,
    [versions],
  );
  const parcelOutline = r.parcel
    ? (
        await db.query(
          `SELECT ST_AsSVG(ST_Affine(ST_Transform(geom, 3857), $1::float8, 0, 0, $1::float8, -$2::float8 * $1::float8, -$3::float8 * $1::float8), 0, 1) AS d FROM parcel WHERE id = $4 AND geom IS NOT NULL ORDER BY upper_inf(valid) DESC LIMIT 1`,
          [scale, box.w, box.n, r.parcel],
        )
      ).rows[0]?.d
    : null;
  const stamp: ExhibitStamp = {
    layer: r.layer.id,
    extent: box.label,
    map_version: mv.map((m) => m.id),
    effective_from: mv.map((m) => m.effective_from),
    retrieved_at: mv.map((m) => (m.retrieved_at ? new Date(m.retrieved_at).toISOString() : null)),
    as_of: r.asOf,
    known_as_of: r.knownAsOf,
    features: rows.length,
  };
  const shapes = rows.map((x) => `<path d="${x.d}" fill="${colour(x.code)}" fill-opacity="0.55" stroke="#333" stroke-width="0.8" fill-rule="evenodd"/>`).join('');
  const labels = rows
    .filter((x) => x.lx > 0 && x.lx < r.width && x.ly > 0 && x.ly < r.height - 70)
    .map((x) => `<text x="${x.lx.toFixed(1)}" y="${x.ly.toFixed(1)}" font-size="12" text-anchor="middle" font-family="DejaVu Sans" fill="#111">${esc(x.code)}</text>`)
    .join('');
  const lines = [
    `Landlex map exhibit · layer ${r.layer.id} · ${box.label} · ${rows.length} features`,
    `map version ${stamp.map_version.join(', ') || 'none in force'} · effective ${stamp.effective_from.join(', ') || '—'} · as of ${r.asOf}`,
    `source retrieved ${stamp.retrieved_at.join(', ') || '—'} · known as of ${r.knownAsOf}`,
  ];
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${r.width}" height="${r.height}">
<rect width="100%" height="100%" fill="#fbfbf8"/>
<g>${shapes}${parcelOutline ? `<path d="${parcelOutline}" fill="none" stroke="#c00" stroke-width="3"/>` : ''}${labels}</g>
<rect x="0" y="${r.height - 70}" width="${r.width}" height="70" fill="#fff" stroke="#999"/>
${lines.map((l, i) => `<text x="10" y="${r.height - 48 + i * 20}" font-size="13" font-family="DejaVu Sans" fill="#222">${esc(l)}</text>`).join('\n')}
</svg>`;
  // drawn off the event loop (resvg's thread pool): a large exhibit must not hold up other calls
  const png = (await renderAsync(svg, { font: { loadSystemFonts: true, defaultFontFamily: 'DejaVu Sans' } })).asPng();
  return { png: Buffer.from(png), stamp };
}
