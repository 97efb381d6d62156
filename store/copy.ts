// COPY ... FROM STDIN in text format: values encoded here, streamed with pg-copy-streams.
// Table and column names are code constants checked as identifiers; values never touch SQL text.
import { pipeline } from 'node:stream/promises';
import { Readable } from 'node:stream';
import copyStreams from 'pg-copy-streams';
import type { Client } from './db.ts';

const IDENT = /^[a-z_][a-z0-9_]*$/;

export function ident(name: string): string {
  if (!IDENT.test(name)) throw new Error(`Not a plain SQL identifier: ${name}`);
  return name;
}

/** A geometry value for COPY: hex EWKB with the SRID set (input is ISO WKB, 2D). */
export class Geometry {
  constructor(readonly wkb: Uint8Array, readonly srid = 4326) {}
  toCopyText(): string {
    const src = Buffer.from(this.wkb);
    const little = src[0] === 1;
    const type = little ? src.readUInt32LE(1) : src.readUInt32BE(1);
    const out = Buffer.alloc(src.length + 4);
    out[0] = src[0];
    const flagged = (type | 0x20000000) >>> 0;
    if (little) {
      out.writeUInt32LE(flagged, 1);
      out.writeUInt32LE(this.srid, 5);
    } else {
      out.writeUInt32BE(flagged, 1);
      out.writeUInt32BE(this.srid, 5);
    }
    src.copy(out, 9, 5);
    return out.toString('hex');
  }
}

function escapeText(s: string): string {
  return s.replace(/\\/g, '\\\\').replace(/\t/g, '\\t').replace(/\n/g, '\\n').replace(/\r/g, '\\r');
}

function arrayLiteral(values: unknown[]): string {
  const items = values.map((v) => {
    if (v === null || v === undefined) return 'NULL';
    const s = typeof v === 'string' ? v : String(v);
    return `"${s.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
  });
  return `{${items.join(',')}}`;
}

/** One value as COPY text. Objects become JSON (for json/jsonb columns). */
export function copyValue(v: unknown): string {
  if (v === null || v === undefined) return '\\N';
  if (v instanceof Geometry) return v.toCopyText();
  if (typeof v === 'string') return escapeText(v);
  if (typeof v === 'number') {
    if (!Number.isFinite(v)) throw new Error(`Not a finite number: ${v}`);
    return String(v);
  }
  if (typeof v === 'boolean') return v ? 't' : 'f';
  if (typeof v === 'bigint') return v.toString();
  if (v instanceof Date) return v.toISOString();
  // arrays of plain values are PostgreSQL arrays; arrays holding objects are JSON
  if (Array.isArray(v)) return escapeText(v.some((x) => x !== null && typeof x === 'object') ? JSON.stringify(v) : arrayLiteral(v));
  if (Buffer.isBuffer(v) || v instanceof Uint8Array) return `\\\\x${Buffer.from(v).toString('hex')}`;
  return escapeText(JSON.stringify(v));
}

export function copyLine(values: unknown[]): string {
  return `${values.map(copyValue).join('\t')}\n`;
}

/** Stream rows into table(columns) with COPY; returns the number of rows written. */
export async function copyRows(
  client: Client,
  table: string,
  columns: string[],
  rows: Iterable<unknown[]> | AsyncIterable<unknown[]>,
): Promise<number> {
  const sql = `COPY ${ident(table)} (${columns.map(ident).join(', ')}) FROM STDIN`;
  const sink = client.query(copyStreams.from(sql));
  let count = 0;
  async function* lines() {
    let batch = '';
    for await (const row of rows as AsyncIterable<unknown[]>) {
      batch += copyLine(row);
      count += 1;
      if (batch.length > 1 << 16) {
        yield batch;
        batch = '';
      }
    }
    if (batch) yield batch;
  }
  await pipeline(Readable.from(lines()), sink);
  return count;
}
