// Publishers ship large layers gzipped (`.geojson.gz`): the version keeps the bytes as published,
// and readers see them inflated. Pure: bytes in, bytes out.
import { gunzipSync } from 'node:zlib';

export function isGzip(bytes: Uint8Array): boolean {
  return bytes.length >= 2 && bytes[0] === 0x1f && bytes[1] === 0x8b;
}

/** The bytes inflated when they are a gzip stream, else as they are. */
export function inflated(bytes: Buffer): Buffer {
  return isGzip(bytes) ? gunzipSync(bytes) : bytes;
}
