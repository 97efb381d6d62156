// A source placed where a test can change it: a copy of the shipped manifests whose source of
// one jurisdiction points at a file of the test's own, so a test can publish version A, then B
// (the real file amended by a fixture of edits), then A again.
import { readFileSync } from 'node:fs';
import { copyFile, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { sharedDir } from '../../activities/fetch.ts';

const SHIPPED = resolve(fileURLToPath(new URL('../../ingest/manifests/', import.meta.url)));
const FIXTURES = resolve(fileURLToPath(new URL('../fixtures/', import.meta.url)));

export const SOMERVILLE_A = resolve(sharedDir(), 'real/somerville_ma/somerville-zoning.md');

/** Somerville's ordinance amended by test/fixtures/somerville-b/edits.json (each edit made exactly `count` times). */
export function somervilleB(): Buffer {
  const { edits } = JSON.parse(readFileSync(join(FIXTURES, 'somerville-b/edits.json'), 'utf8')) as { edits: Array<{ find: string; replace: string; count: number }> };
  let text = readFileSync(SOMERVILLE_A, 'utf8');
  for (const e of edits) {
    const n = text.split(e.find).length - 1;
    if (n !== e.count) throw new Error(`fixture edit found ${n} times, not ${e.count}: ${e.find}`);
    text = text.replaceAll(e.find, e.replace);
  }
  return Buffer.from(text);
}

export interface PlacedSource {
  /** the manifest directory to ingest with */
  manifestDir: string;
  /** publish these bytes as the source */
  publish(bytes: Buffer): Promise<void>;
  close(): Promise<void>;
}

/** The shipped manifests, with `slug`'s source `key` read from a file the test publishes. */
export async function placedSource(slug: string, key: string, first: Buffer): Promise<PlacedSource> {
  const dir = await mkdtemp(join(tmpdir(), 'landlex-placed-'));
  const file = join(dir, `${key}.published`);
  await writeFile(file, first);
  for (const f of (await readdir(SHIPPED)).filter((f) => f.endsWith('.json'))) {
    if (f !== `${slug}.json`) {
      await copyFile(join(SHIPPED, f), join(dir, f));
      continue;
    }
    const m = JSON.parse(await readFile(join(SHIPPED, f), 'utf8'));
    const s = m.sources.find((x: { key: string }) => x.key === key);
    if (!s) throw new Error(`${slug} has no source ${key}`);
    s.url = `file://${file}`;
    await writeFile(join(dir, f), JSON.stringify(m, null, 2));
  }
  return {
    manifestDir: dir,
    publish: (bytes) => writeFile(file, bytes),
    close: () => rm(dir, { recursive: true, force: true }),
  };
}
