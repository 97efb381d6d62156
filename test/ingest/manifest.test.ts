// Manifests: every shipped one is valid; a bad one is one line naming its file and the field;
// hints are data, validated like the rest.
import { readdirSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { expect, test } from 'vitest';
import { MANIFEST_DIR, publicUrlOf } from '../../activities/ingest.ts';
import { ManifestError, parseManifestText } from '../../ingest/manifest.ts';

const somerville = () => JSON.parse(readFileSync(resolve(MANIFEST_DIR, 'somerville-ma.json'), 'utf8'));
const problem = (value: unknown) => {
  try {
    parseManifestText(typeof value === 'string' ? value : JSON.stringify(value), 'town.json');
  } catch (err) {
    expect(err).toBeInstanceOf(ManifestError);
    return err as ManifestError;
  }
  throw new Error('the manifest was accepted');
};

test('every shipped manifest is valid', () => {
  const files = readdirSync(MANIFEST_DIR).filter((f) => f.endsWith('.json'));
  expect(files).toContain('chicago-il.json');
  for (const f of files) expect(parseManifestText(readFileSync(resolve(MANIFEST_DIR, f), 'utf8'), f).jurisdiction.slug).toBe(f.replace(/\.json$/, ''));
});

test('a bad manifest is one line naming the file and the field', () => {
  const m = somerville();
  m.sources[0].format = 'docx';
  const e = problem(m);
  expect(e.message).toBe('manifest town.json: /sources/0/format must be one of markdown, html, pdf, text, csv, json, geojson, topojson, shapefile_zip, gpkg');
  expect(e.message).not.toContain('\n');
  expect(e.field).toBe('/sources/0/format');

  const missing = somerville();
  delete missing.jurisdiction.timezone;
  expect(problem(missing).message).toBe('manifest town.json: /jurisdiction/timezone is required');

  const extra = somerville();
  extra.sources[0].profile = 'somerville_ma';
  expect(problem(extra).message).toBe('manifest town.json: /sources/0/profile is not a manifest field');

  expect(problem('{ "jurisdiction": ').message).toMatch(/^manifest town\.json: \/ is not JSON \(/);
  const twice = somerville();
  twice.sources.push({ ...twice.sources[0] });
  expect(problem(twice).message).toBe('manifest town.json: /sources/1/key names zoning-ordinance again: each source needs its own key');
});

test('hints: a legend, code aliases and sections to skip, validated as data', () => {
  const m = somerville();
  m.sources[0].hints = { legend: { X: { level: 'conditional_use', process: 'special permit' }, '-': { level: 'prohibited' } }, code_aliases: { 'S &O': 'S&O' }, skip_sections: ['17-2-0100'] };
  expect(parseManifestText(JSON.stringify(m), 'town.json').sources[0].hints?.legend?.X).toEqual({ level: 'conditional_use', process: 'special permit' });
  m.sources[0].hints.legend.X.level = 'maybe';
  expect(problem(m).field).toBe('/sources/0/hints/legend/X/level');
  const onMap = somerville();
  onMap.sources[0].kind = 'district_map';
  onMap.sources[0].hints = { skip_sections: ['1'] };
  expect(problem(onMap).message).toBe('manifest town.json: /sources/0/hints are read for code_text sources only');
});

test('the address a citation shows is public: the manifest names it, or the fetched url is http(s)', () => {
  const s = somerville().sources[0];
  expect(publicUrlOf(s)).toBeNull(); // file:{shared}/… is where we read it, not where the public can
  expect(publicUrlOf({ ...s, public_url: 'https://library.example.gov/somerville/zoning' })).toBe('https://library.example.gov/somerville/zoning');
  expect(publicUrlOf({ ...s, url: 'https://town.example.gov/zoning.md' })).toBe('https://town.example.gov/zoning.md');
  const bad = somerville();
  bad.sources[0].public_url = 'file:///etc/zoning.md';
  expect(problem(bad).field).toBe('/sources/0/public_url');
});
