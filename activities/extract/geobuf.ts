// Geobuf extracts: the GeoJSONSeq DuckDB wrote, read back into one FeatureCollection and encoded
// with core/geobuf.ts in a worker thread (geobuf-worker.mjs). Geobuf cannot be written a feature at
// a time, so the whole collection is in memory: the worker keeps that work off the event loop (an
// API process runs extracts in-process) and under a heap cap of its own, so a collection past it
// fails the extract, never the process. Plans refuse more than GEOBUF_MAX_ROWS rows beforehand.
import { Worker } from 'node:worker_threads';

/** The worker's old-generation heap, in MB: 3 times what GEOBUF_MAX_ROWS Cambridge parcels need. */
export const GEOBUF_HEAP_MB = 1024;

export interface GeobufWriteSpec {
  /** the GeoJSONSeq of the extract's features */
  seq: string;
  out: string;
  heapMb?: number;
}

/** Write the file; returns the features encoded. */
export function writeGeobuf(spec: GeobufWriteSpec): Promise<number> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(new URL('./geobuf-worker.mjs', import.meta.url), {
      workerData: { seq: spec.seq, out: spec.out },
      resourceLimits: { maxOldGenerationSizeMb: spec.heapMb ?? GEOBUF_HEAP_MB },
    });
    let settled = false;
    const settle = (fn: () => void) => {
      if (settled) return;
      settled = true;
      fn();
      void worker.terminate();
    };
    worker.once('message', (m: { features: number }) => settle(() => resolve(m.features)));
    worker.once('error', (e: Error & { code?: string }) =>
      settle(() => reject(e.code === 'ERR_WORKER_OUT_OF_MEMORY' ? new Error(`the Geobuf encoding needed more than its ${spec.heapMb ?? GEOBUF_HEAP_MB} MB heap`) : e)),
    );
    worker.once('exit', (code) => settle(() => reject(new Error(`the Geobuf writer stopped (exit code ${code})`))));
  });
}
