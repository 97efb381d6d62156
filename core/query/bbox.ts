// A bounding box as the query language takes it: west,south,east,north in WGS 84 (lon/lat).
import { invalid } from '../errors.ts';

export function parseBbox(raw: string): [number, number, number, number] {
  const parts = raw.split(',').map(Number);
  if (parts.length !== 4 || parts.some((n) => !Number.isFinite(n))) throw invalidBbox('is not west,south,east,north');
  const [w, s, e, n] = parts;
  if (w < -180 || e > 180 || s < -90 || n > 90) throw invalidBbox('lies outside the world (lon -180..180, lat -90..90)');
  if (w >= e || s >= n) throw invalidBbox('is inverted or empty: west < east and south < north');
  return [w, s, e, n];
}

const invalidBbox = (why: string) => invalid('bbox', why);
