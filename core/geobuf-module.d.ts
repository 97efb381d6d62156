// Types for the geobuf package (4.x ships none): it reads and writes through pbf 4's Pbf.
declare module 'geobuf' {
  import type Pbf from 'pbf4';
  export function encode(obj: object, pbf: Pbf): Uint8Array;
  export function decode(pbf: Pbf): Record<string, unknown>;
}
