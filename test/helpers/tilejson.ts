// TileJSON 3.0.0's rules for tests: the schema written from the spec text
// (test/fixtures/tilejson-3.0.0.schema.json) checked with ajv, and the rules between keys beside it.
import { readFileSync } from 'node:fs';
import { Ajv } from 'ajv';
import addFormats from 'ajv-formats';
import { expect } from 'vitest';

const schema = JSON.parse(readFileSync(new URL('../fixtures/tilejson-3.0.0.schema.json', import.meta.url), 'utf8'));
const ajv = new Ajv({ allErrors: true, strict: true });
(addFormats as unknown as (a: Ajv) => void)(ajv);
const validate = ajv.compile(schema);

export interface TileJson {
  tilejson: string;
  version: string;
  tiles: string[];
  minzoom: number;
  maxzoom: number;
  bounds: number[];
  center: number[];
  vector_layers: Array<{ id: string; fields: Record<string, string>; minzoom?: number; maxzoom?: number }>;
}

/** TileJSON 3.0.0's rules, and those between its keys that a schema cannot state. */
export function checkTileJson(body: unknown): TileJson {
  const ok = validate(body);
  expect(ok ? [] : validate.errors).toEqual([]);
  const t = body as TileJson;
  expect(t.minzoom).toBeLessThanOrEqual(t.maxzoom);
  const [w, s, e, n] = t.bounds;
  expect(w).toBeLessThanOrEqual(e);
  expect(s).toBeLessThanOrEqual(n);
  const [lon, lat, z] = t.center;
  expect(lon).toBeGreaterThanOrEqual(w);
  expect(lon).toBeLessThanOrEqual(e);
  expect(lat).toBeGreaterThanOrEqual(s);
  expect(lat).toBeLessThanOrEqual(n);
  expect(z).toBeGreaterThanOrEqual(t.minzoom);
  expect(z).toBeLessThanOrEqual(t.maxzoom);
  for (const l of t.vector_layers) {
    expect(l.minzoom ?? t.minzoom).toBeGreaterThanOrEqual(t.minzoom);
    expect(l.maxzoom ?? t.maxzoom).toBeLessThanOrEqual(t.maxzoom);
  }
  for (const url of t.tiles) expect(url).toMatch(/\{z\}\/\{x\}\/\{y\}/);
  return t;
}

