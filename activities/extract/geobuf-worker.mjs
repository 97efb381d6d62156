// The Geobuf writer's worker thread (activities/extract/geobuf.ts starts it): reads the GeoJSONSeq
// DuckDB wrote (RFC 8142: RS, a Feature, LF), holds its features as one FeatureCollection, encodes
// it with core/geobuf.ts (coordinates exact) and writes the file. Plain JavaScript: a worker
// does not inherit the parent's TypeScript loader, so core/geobuf.ts comes through tsx's tsImport.
import { createReadStream } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import { parentPort, workerData } from 'node:worker_threads';
import { tsImport } from 'tsx/esm/api';

const { toGeobuf } = await tsImport('../../core/geobuf.ts', import.meta.url);
const { seq, out } = workerData;

const features = [];
const lines = createInterface({ input: createReadStream(seq, { highWaterMark: 1 << 20 }), crlfDelay: Number.POSITIVE_INFINITY });
for await (const line of lines) {
  if (line === '') continue;
  if (line.charCodeAt(0) !== 0x1e) throw new Error(`line ${features.length + 1} of the GeoJSONSeq does not start with RS`);
  features.push(JSON.parse(line.slice(1)));
}
const bytes = toGeobuf({ type: 'FeatureCollection', features });
await writeFile(out, bytes);
parentPort.postMessage({ features: features.length });
