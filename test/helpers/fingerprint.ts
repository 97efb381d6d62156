// A fingerprint of what ingestion holds: per table written by the pipeline, its row count and a
// sha256 over its rows in key order (id, then the whole row as canonical JSON), so two databases
// that hold the same facts compare equal whatever happened on the way (crashes, reruns).
//
// Left out, because they legitimately differ between two loads of the same bytes:
// - wall-clock instants: `known` (knowledge time; kept only as whether the row is still open),
//   `detected_at`, `retrieved_at`, `first_retrieved_at`, `last_retrieved_at`, `loaded_at`,
//   `last_fetched_at`, `last_changed_at`, `created_at`, `updated_at`;
// - numbers a sequence hands out, which a rolled-back load uses up: `fact_id` (a piece names its
//   fact by the fact's id, valid time and open or closed knowledge instead) and the change
//   feed's `seq` (compared as an order with `eventOrder`).
import type { Queryable } from '../../store/db.ts';

export const CLOCK_COLUMNS = ['known', 'detected_at', 'retrieved_at', 'first_retrieved_at', 'last_retrieved_at', 'loaded_at', 'last_fetched_at', 'last_changed_at', 'created_at', 'updated_at'];
export const SEQUENCE_COLUMNS = ['fact_id', 'seq'];

/** The tables the pipeline writes. */
export const INGEST_TABLES = [
  'jurisdiction',
  'jurisdiction_piece',
  'source',
  'use_term',
  'use_label',
  'document',
  'document_version',
  'version_text',
  'citation',
  'authority',
  'section',
  'district',
  'permission',
  'control',
  'unlisted_use_rule',
  'ordinance',
  'moratorium',
  'map_version',
  'district_area',
  'district_area_piece',
  'parcel',
  'parcel_piece',
  'property',
  'address_point',
  'recorded_instrument',
  'transaction',
  'land_record',
  'meeting',
  'change_event',
  'coverage',
] as const;

const PIECES: Record<string, string> = { district_area_piece: 'district_area', parcel_piece: 'parcel' };

const LEFT_OUT = [...CLOCK_COLUMNS, ...SEQUENCE_COLUMNS];

/** A statement giving each row of a table as canonical JSON text (r) with its key (k). */
async function rowsOf(db: Queryable, table: string): Promise<{ sql: string; params: unknown[] }> {
  const fact = PIECES[table];
  if (fact) {
    return {
      sql: `SELECT jsonb_build_object('id', f.id, 'valid', f.valid, 'known_open', upper_inf(f.known), 'geom', encode(ST_AsEWKB(p.geom), 'hex'))::text AS r, f.id AS k
              FROM ${table} p JOIN ${fact} f USING (fact_id)`,
      params: [],
    };
  }
  const { rows } = await db.query(`SELECT column_name FROM information_schema.columns WHERE table_schema = 'public' AND table_name = $1`, [table]);
  const columns = new Set(rows.map((r) => r.column_name as string));
  const open = columns.has('known') ? ` || jsonb_build_object('known_open', upper_inf(t.known))` : '';
  return { sql: `SELECT ((to_jsonb(t) - $1::text[])${open})::text AS r, ${columns.has('id') ? 't.id' : `''`} AS k FROM ${table} t`, params: [LEFT_OUT] };
}

export interface TablePrint {
  rows: number;
  sha256: string;
}

/** Count and sha256 of every pipeline table. */
export async function fingerprint(db: Queryable): Promise<Record<string, TablePrint>> {
  const out: Record<string, TablePrint> = {};
  for (const table of INGEST_TABLES) {
    const { sql, params } = await rowsOf(db, table);
    const { rows } = await db.query(
      `SELECT count(*)::int AS n, encode(sha256(convert_to(COALESCE(string_agg(x.r, E'\\n' ORDER BY x.k, x.r), ''), 'UTF8')), 'hex') AS h FROM (${sql}) x`,
      params,
    );
    out[table] = { rows: rows[0].n, sha256: rows[0].h };
  }
  return out;
}

/** A table's rows as fingerprinted, to show what differs when two prints do not match. */
export async function printedRows(db: Queryable, table: string): Promise<string[]> {
  const { sql, params } = await rowsOf(db, table);
  const { rows } = await db.query(`SELECT x.r FROM (${sql}) x ORDER BY x.k, x.r`, params);
  return rows.map((r) => r.r as string);
}

/** The change events' ids in feed order (seq), and those recorded twice (the same change under two ids). */
export async function eventOrder(db: Queryable): Promise<{ ids: string[]; repeated: string[] }> {
  const ids = (await db.query('SELECT id FROM change_event ORDER BY seq')).rows.map((r) => r.id as string);
  const repeated = (
    await db.query(
      `SELECT jurisdiction_id || ' ' || kind || ' ' || field_path || ' ' || COALESCE(effective_date::text, '') AS what FROM change_event
        GROUP BY jurisdiction_id, kind, layer, field_path, effective_date, previous::text, current::text HAVING count(*) > 1`,
    )
  ).rows.map((r) => r.what as string);
  return { ids, repeated };
}
