// The bitemporal load: a set of facts read from one source version replaces the facts of its
// scope as current knowledge, without updating any row in place except to close `known`.
//
// For each fact id in scope, the open row (valid and known both unbounded) is compared by
// content_sha256 with the staged fact:
//   added     no open row: insert valid [valid_from, valid_to), known [now, ∞)
//   changed   sha differs: close the old row's known at now; re-insert its payload with valid
//             [old start, new valid_from) known [now, ∞); insert the new fact from valid_from
//   removed   in scope, not staged (when removeMissing): close; re-insert ending at removedOn;
//             except the ids the caller keeps (records the version names but could not read)
//   unchanged nothing is written
// Everything runs set-based over a temp staging table filled by COPY, inside the caller's
// transaction, so readers see all of a load or none of it.
import { copyRows, ident } from './copy.ts';
import type { Client } from './db.ts';

export interface FactSpec {
  table: string;
  /** payload columns, in the order of StagedFact.values */
  columns: string[];
  /** which current rows this load speaks for, over alias t, with its own parameters $1.. */
  scope: { where: string; params: unknown[] };
  /** payload columns reported in deltas (for change events) */
  deltaColumns?: string[];
}

export interface StagedFact {
  id: string;
  content_sha256: string;
  valid_from: string; // date
  valid_to?: string | null;
  values: unknown[];
}

export interface DeltaRow {
  id: string;
  valid_from: string;
  previous: Record<string, unknown> | null;
  current: Record<string, unknown> | null;
}

export interface FactDelta {
  added: DeltaRow[];
  changed: DeltaRow[];
  removed: DeltaRow[];
  unchanged: number;
  /** how many of each; with `countOnly` the row lists stay empty and only these are filled */
  counts: { added: number; changed: number; removed: number };
}

export interface ApplyOptions {
  now: Date;
  removeMissing: boolean;
  /** the date removed facts stop being in force (default: the load's date) */
  removedOn?: string;
  /** per fact: the date a removed fact stops being in force, when it differs from removedOn */
  removedOnFor?: Map<string, string>;
  /** return counts only, not the rows (a million-parcel load must not hold its delta in memory) */
  countOnly?: boolean;
  /** ids in scope that this version could not read: what is held for them is kept, not removed */
  keep?: string[];
}

let serial = 0;

/** An empty staging table shaped like the fact table (id, content_sha256, valid_from, valid_to, columns). */
export async function createStage(client: Client, spec: FactSpec): Promise<string> {
  const t = ident(spec.table);
  const stage = `stage_${t}_${++serial}`;
  await client.query(
    `CREATE TEMP TABLE ${stage} ON COMMIT DROP AS
       SELECT id, content_sha256, NULL::date AS valid_from, NULL::date AS valid_to, ${spec.columns.map(ident).join(', ')} FROM ${t} WHERE false`,
  );
  return stage;
}

export async function applyFacts(
  client: Client,
  spec: FactSpec,
  facts: Iterable<StagedFact> | AsyncIterable<StagedFact>,
  opts: ApplyOptions,
): Promise<FactDelta> {
  const stage = await createStage(client, spec);
  async function* rows() {
    for await (const f of facts as AsyncIterable<StagedFact>) yield [f.id, f.content_sha256, f.valid_from, f.valid_to ?? null, ...f.values];
  }
  await copyRows(client, stage, ['id', 'content_sha256', 'valid_from', 'valid_to', ...spec.columns.map(ident)], rows());
  return applyStaged(client, spec, stage, opts);
}

/** Apply facts already in a staging table made by createStage (filled by COPY or by SQL). */
export async function applyStaged(client: Client, spec: FactSpec, stage: string, opts: ApplyOptions): Promise<FactDelta> {
  const t = ident(spec.table);
  const cols = spec.columns.map(ident);
  const colList = cols.join(', ');
  const delta = (spec.deltaColumns ?? []).map(ident);
  const json = (alias: string) => (delta.length ? `jsonb_build_object(${delta.map((c) => `'${c}', ${alias}.${c}`).join(', ')})` : `'{}'::jsonb`);
  ident(stage);
  const cur = `cur_${t}_${++serial}`;
  const scopeParams = spec.scope.params;
  const now = opts.now.toISOString();
  // the delta rows each statement returns, or just their number
  const out = (select: string, from: string) => (opts.countOnly ? `SELECT count(*)::int AS n FROM ${from}` : `SELECT ${select} FROM ${from}`);
  const rowsOf = (r: { rows: Array<Record<string, unknown>> }) => (opts.countOnly ? { rows: [] as DeltaRow[], n: Number(r.rows[0]?.n ?? 0) } : { rows: r.rows as unknown as DeltaRow[], n: r.rows.length });

  await client.query(`CREATE UNIQUE INDEX ON ${stage} (id)`);
  await client.query(
    `CREATE TEMP TABLE ${cur} ON COMMIT DROP AS
       SELECT t.fact_id, t.id, t.content_sha256, lower(t.valid) AS vfrom FROM ${t} t
        WHERE (${spec.scope.where}) AND upper_inf(t.known) AND upper_inf(t.valid)`,
    scopeParams,
  );
  await client.query(`CREATE UNIQUE INDEX ON ${cur} (id)`);

  // changed: effective no earlier than the row it replaces began (a correction otherwise)
  const changed = await client.query(
    `WITH ch AS (
       SELECT c.fact_id, c.id, c.vfrom, GREATEST(s.valid_from, c.vfrom) AS vnew
         FROM ${cur} c JOIN ${stage} s USING (id) WHERE c.content_sha256 <> s.content_sha256),
     closed AS (
       UPDATE ${t} t SET known = tstzrange(lower(t.known), $1::timestamptz)
         FROM ch WHERE t.fact_id = ch.fact_id RETURNING t.*, ch.vnew),
     history AS (
       INSERT INTO ${t} (id, content_sha256, valid, known, ${colList})
       SELECT id, content_sha256, daterange(lower(valid), vnew), tstzrange($1::timestamptz, NULL), ${colList}
         FROM closed WHERE lower(valid) < vnew RETURNING id),
     fresh AS (
       INSERT INTO ${t} (id, content_sha256, valid, known, ${colList})
       SELECT s.id, s.content_sha256, daterange(ch.vnew, s.valid_to), tstzrange($1::timestamptz, NULL), ${cols.map((c) => `s.${c}`).join(', ')}
         FROM ${stage} s JOIN ch USING (id) RETURNING id)
     ${out(`c.id, c.vnew::text AS valid_from, ${json('c')} AS previous, ${json('s')} AS current`, `closed c JOIN ${stage} s USING (id)`)}`,
    [now],
  );

  // a fact that was removed and comes back starts no earlier than its last period ended
  const added = await client.query(
    `WITH hist AS (
       SELECT t.id, max(upper(t.valid)) AS ended FROM ${t} t
        WHERE (${spec.scope.where.replace(/\$(\d+)/g, (_m, n) => `$${Number(n) + 1}`)}) AND upper_inf(t.known) AND NOT upper_inf(t.valid)
        GROUP BY t.id),
     ins AS (
       INSERT INTO ${t} (id, content_sha256, valid, known, ${colList})
       SELECT s.id, s.content_sha256, daterange(GREATEST(s.valid_from, h.ended), s.valid_to),
              tstzrange($1::timestamptz, NULL), ${cols.map((c) => `s.${c}`).join(', ')}
         FROM ${stage} s LEFT JOIN hist h ON h.id = s.id
        WHERE NOT EXISTS (SELECT 1 FROM ${cur} c WHERE c.id = s.id)
       RETURNING *)
     ${out(`id, lower(valid)::text AS valid_from, NULL::jsonb AS previous, ${json('ins')} AS current`, 'ins')}`,
    [now, ...scopeParams],
  );

  let removed = { rows: [] as DeltaRow[], n: 0 };
  if (opts.removeMissing) {
    const on = opts.removedOn ?? now.slice(0, 10);
    const ends = `ends_${t}_${serial}`;
    await client.query(`CREATE TEMP TABLE ${ends} (id text PRIMARY KEY, d date NOT NULL) ON COMMIT DROP`);
    if (opts.removedOnFor?.size) await copyRows(client, ends, ['id', 'd'], [...opts.removedOnFor].map(([id, d]) => [id, d]));
    const r = await client.query(
      `WITH gone AS (
         UPDATE ${t} t SET known = tstzrange(lower(t.known), $1::timestamptz)
           FROM ${cur} c WHERE t.fact_id = c.fact_id AND NOT EXISTS (SELECT 1 FROM ${stage} s WHERE s.id = c.id)
             AND c.id <> ALL($3::text[])
         RETURNING t.*, COALESCE((SELECT e.d FROM ${ends} e WHERE e.id = t.id), $2::date) AS ends_on),
       history AS (
         INSERT INTO ${t} (id, content_sha256, valid, known, ${colList})
         SELECT id, content_sha256, daterange(lower(valid), ends_on), tstzrange($1::timestamptz, NULL), ${colList}
           FROM gone WHERE lower(valid) < ends_on RETURNING id)
       ${out(`id, ends_on::text AS valid_from, ${json('gone')} AS previous, NULL::jsonb AS current`, 'gone')}`,
      [now, on, opts.keep ?? []],
    );
    await client.query(`DROP TABLE ${ends}`);
    removed = rowsOf(r);
  }

  const { rows: count } = await client.query(`SELECT count(*)::int AS n FROM ${stage}`);
  const [ch, ad] = [rowsOf(changed), rowsOf(added)];
  await client.query(`DROP TABLE ${stage}; DROP TABLE ${cur}`);
  return { added: ad.rows, changed: ch.rows, removed: removed.rows, unchanged: count[0].n - ch.n - ad.n, counts: { added: ad.n, changed: ch.n, removed: removed.n } };
}
