// The feature forms of /v1 and plain routes: a FeatureCollection or Feature in GeoJSON, or the same
// GeoJSON in Geobuf, chosen by Accept. Answers vary with Accept.
import { acceptsGeobuf, GEOBUF_TYPE, geobufOfJson } from '../core/geobuf.ts';
import type { Answer, Req } from './route.ts';

export const GEOJSON_TYPE = 'application/geo+json';

export type FeatureForm = 'geobuf' | 'geojson';

/** Geobuf when Accept asks application/vnd.geobuf above application/geo+json; GeoJSON when it names application/geo+json; else none. */
export function acceptedFeatureForm(req: Req): FeatureForm | null {
  req.ctx.vary('Accept');
  const accept = req.ctx.get('accept');
  if (acceptsGeobuf(accept)) return 'geobuf';
  return /application\/geo\+json/i.test(accept) ? 'geojson' : null;
}

/** A FeatureCollection or Feature in the form asked; Geobuf is made from the JSON the GeoJSON form serves. */
export function featureAnswer(form: FeatureForm, body: object, charge?: Answer['charge']): Answer {
  if (form === 'geobuf') return { raw: true, body: geobufOfJson(body), contentType: GEOBUF_TYPE, charge };
  return { raw: true, body, contentType: GEOJSON_TYPE, charge };
}
