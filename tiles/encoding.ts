// Content codings of tiles (RFC 9110 8.4, 12.5.3): brotli or gzip when the client accepts them,
// else the tile as made. Brotli at quality 4 costs what gzip at level 4 does and is ~5% smaller
// on parcel tiles (measured on Cambridge: docs/decisions.md, Maps); higher qualities cost far
// more. Large tiles are compressed on libuv's threads, small ones at once (a thread hop costs
// more than they do).
import { promisify } from 'node:util';
import { brotliCompress, brotliCompressSync, constants, gzip, gzipSync } from 'node:zlib';

export type Coding = 'br' | 'gzip' | 'identity';

/** The codings we offer, most preferred first (a tie in the client's weights goes to the first). */
const OFFERED: Coding[] = ['br', 'gzip', 'identity'];

/**
 * The coding to send for an Accept-Encoding value: the offered coding of highest weight (q), ties
 * to our order; no header, or nothing acceptable, is identity (12.5.3: without the header a
 * client states no preference, and a coding it cannot read would reach, e.g., curl as bytes it
 * cannot use). `x-gzip` is gzip; `*` stands for every coding not named; identity not named is
 * acceptable but last (`gzip;q=0.8` alone asks for gzip).
 */
export function chooseCoding(header: string | undefined): Coding {
  if (!header) return 'identity';
  const weight = new Map<string, number>();
  for (const part of header.split(',')) {
    const [name, ...params] = part.trim().toLowerCase().split(';');
    if (!name) continue;
    const q = params.map((p) => /^\s*q\s*=\s*([01](?:\.\d{0,3})?)\s*$/.exec(p)).find(Boolean);
    const coding = name.trim() === 'x-gzip' ? 'gzip' : name.trim();
    weight.set(coding, q ? Number(q[1]) : 1);
  }
  const of = (c: Coding) => weight.get(c) ?? weight.get('*') ?? (c === 'identity' ? 0.001 : 0);
  let best: Coding = 'identity';
  let bestQ = 0;
  for (const c of OFFERED) {
    const q = of(c);
    if (q > bestQ) [best, bestQ] = [c, q];
  }
  return best;
}

const LEVEL = { gzip: 4, br: 4 };
const OFF_THREAD = 16 * 1024;
const gzipAsync = promisify(gzip);
const brotliAsync = promisify(brotliCompress);
const brotliOptions = (size: number) => ({ params: { [constants.BROTLI_PARAM_QUALITY]: LEVEL.br, [constants.BROTLI_PARAM_SIZE_HINT]: size } });

/** The tile in a coding (identity: as it is). */
export async function encode(tile: Buffer, coding: Coding): Promise<Buffer> {
  if (coding === 'identity') return tile;
  if (tile.length < OFF_THREAD) return coding === 'gzip' ? gzipSync(tile, { level: LEVEL.gzip }) : brotliCompressSync(tile, brotliOptions(tile.length));
  return coding === 'gzip' ? gzipAsync(tile, { level: LEVEL.gzip }) : brotliAsync(tile, brotliOptions(tile.length));
}

/**
 * Coded tiles kept by ETag (the coded tag names one tile in one coding), most recently used
 * first, up to `budget` bytes: a tile asked again is still made (its statement is the truth), but
 * not coded again. A hit is served only if the tile just made is byte for byte the one coded (a
 * load's notice reaches the process a moment after its commit, and in that moment a tag may
 * name new bytes: docs/decisions.md, Maps), so a kept coding never stands for other bytes.
 */
export class CodedTiles {
  private kept = new Map<string, { tile: Buffer; coded: Buffer }>();
  private bytes = 0;

  constructor(private budget = 64 * 1024 * 1024) {}

  async encode(tag: string, tile: Buffer, coding: Coding): Promise<Buffer> {
    if (coding === 'identity') return tile;
    const hit = this.kept.get(tag);
    if (hit?.tile.equals(tile)) {
      this.kept.delete(tag); // most recently used last in the map's order
      this.kept.set(tag, hit);
      return hit.coded;
    }
    const coded = await encode(tile, coding);
    this.keep(tag, tile, coded);
    return coded;
  }

  private keep(tag: string, tile: Buffer, coded: Buffer) {
    const size = (e: { tile: Buffer; coded: Buffer }) => e.tile.length + e.coded.length + tag.length;
    const old = this.kept.get(tag);
    if (old) {
      this.kept.delete(tag);
      this.bytes -= size(old);
    }
    const entry = { tile, coded };
    if (size(entry) > this.budget / 16) return; // one tile never takes much of it
    this.kept.set(tag, entry);
    this.bytes += size(entry);
    for (const [k, e] of this.kept) {
      if (this.bytes <= this.budget) break;
      this.kept.delete(k);
      this.bytes -= e.tile.length + e.coded.length + k.length;
    }
  }

  /** Tiles kept and their bytes (tiles and codings). */
  get size() {
    return { tiles: this.kept.size, bytes: this.bytes };
  }
}

/**
 * The ETag of a tile in a coding: the strong tag of the content with the coding appended. A
 * strong validator names one sequence of bytes (RFC 9110 8.8.1, 8.8.3), and gzip and brotli
 * bytes differ from the tile's, so each coding has a tag of its own (as Apache's mod_deflate
 * does); a weak tag shared by all would do for If-None-Match but would lose byte ranges and
 * strong comparison for nothing.
 */
export function codedTag(tag: string, coding: Coding): string {
  return coding === 'identity' ? tag : `${tag.slice(0, -1)}-${coding}"`;
}

/** Whether If-None-Match holds the tag (weak comparison, RFC 9110 13.1.2: W/ ignored; `*` matches). */
export function noneMatch(header: string | undefined, tag: string): boolean {
  if (!header) return false;
  if (header.trim() === '*') return true;
  const want = tag.replace(/^W\//, '');
  return header.split(',').some((t) => t.trim().replace(/^W\//, '') === want);
}
