// One page of features as ONE bound SQL statement: conditions of the collection, bbox, time and
// CQL2 filter; keyset order on the feature id; GeoJSON text made in PostGIS and joined here
// without parsing. The first page also counts the matches, up to a cap (numberMatched).
import type { Queryable as Db } from '../store/db.ts';
import { type Collection, queryablesOf, type SqlTimes } from './collections.ts';
import { compileCql2, Params } from './cql2-sql.ts';
import { type Crs, envelopeSql, geoJsonSql } from './crs.ts';
import type { ValidAt } from './params.ts';

export interface Selection {
  collection: Collection;
  /** response CRS */
  crs: Crs;
  /** valid time of the rows; `now` reads the snapshot instant */
  at: ValidAt;
  /** knowledge instant (ISO, UTC) the walk is pinned to */
  snapshot: string;
  bbox?: { box: [number, number, number, number]; crs: Crs };
  filter?: { text: string; crs: Crs };
}

export interface PageQuery extends Selection {
  limit: number;
  /** keyset values of the last feature of the previous page */
  after?: string[];
  /** count the matches up to this cap (first page only) */
  countCap?: number;
}

export interface Page {
  /** GeoJSON text of each feature, in order */
  features: string[];
  /** keyset of the last feature served, when more follow */
  nextKey: string[] | null;
  /** exact count of matches, when counted and at most the cap */
  matched: number | null;
}

function times(s: Selection, ps: Params): SqlTimes {
  // a parameter no SQL reads would have no type: bind only what the collection uses
  if (!s.collection.bitemporal) return { date: 'NULL::date', known: 'NULL::timestamptz' };
  const known = ps.bind(s.snapshot, 'timestamptz');
  if (s.at.kind === 'date') return { date: ps.bind(s.at.date, 'date'), known };
  const instant = s.at.kind === 'instant' ? ps.bind(s.at.instant, 'timestamptz') : known;
  return { date: `(${instant} AT TIME ZONE j.timezone)::date`, known };
}

/** FROM and WHERE of a selection (no keyset), values bound into ps. */
function selection(s: Selection, ps: Params): { from: string; countFrom: string; where: string[] } {
  const c = s.collection;
  const t = times(s, ps);
  const where = c.where(t);
  if (s.bbox) {
    const b = s.bbox.box.map((v) => ps.bind(v, 'float8')) as [string, string, string, string];
    where.push(`ST_Intersects(${c.geometry}, ${envelopeSql(b, s.bbox.crs)})`);
  }
  if (s.filter) where.push(compileCql2(s.filter.text, queryablesOf(c), ps, s.filter.crs));
  // a count reads only the rows' own tables unless a condition names the joined facts (alias d)
  const countFrom = c.countFrom && !where.some((w) => /\bd\./.test(w)) ? c.countFrom(t) : c.from(t);
  return { from: c.from(t), countFrom, where };
}

/** SQL of one feature as GeoJSON text. */
function featureSql(c: Collection, crs: Crs): string {
  const props = c.properties.map((p) => `'${p.name}', ${p.sql}`).join(', ');
  return `'{"type":"Feature","id":' || to_json(${c.keys[0].sql})::text || ',"geometry":' || COALESCE(${geoJsonSql(c.geometry, crs)}, 'null')
    || ',"properties":' || json_build_object(${props})::text || '}'`;
}

const whereSql = (w: string[]) => (w.length ? `WHERE ${w.join(' AND ')}` : '');

export function pageStatement(q: PageQuery): { text: string; values: unknown[] } {
  const c = q.collection;
  const ps = new Params();
  const { from, countFrom, where } = selection(q, ps);
  const keyCols = c.keys.map((k, i) => `${k.sql} AS k${i}`).join(', ');
  const order = c.keys.map((k) => k.sql).join(', ');
  const pageWhere = [...where];
  if (q.after) {
    if (q.after.length !== c.keys.length) throw new Error('keyset of another shape');
    pageWhere.push(`(${order}) > (${c.keys.map((k, i) => ps.bind(q.after![i], k.cast)).join(', ')})`);
  }
  const page = `SELECT ${keyCols}, ${featureSql(c, q.crs)} AS feature FROM ${from} ${whereSql(pageWhere)} ORDER BY ${order} LIMIT ${ps.bind(q.limit + 1, 'int')}`;
  if (q.countCap === undefined) return { text: page, values: ps.values };
  const count = `SELECT count(*)::int FROM (SELECT 1 FROM ${countFrom} ${whereSql(where)} LIMIT ${ps.bind(q.countCap + 1, 'int')}) m`;
  const order2 = c.keys.map((_k, i) => `page.k${i}`).join(', ');
  return { text: `WITH page AS (${page}) SELECT (${count}) AS matched, page.* FROM (SELECT 1) one LEFT JOIN page ON true ORDER BY ${order2}`, values: ps.values };
}

export async function readPage(db: Db, q: PageQuery): Promise<Page> {
  const { text, values } = pageStatement(q);
  const { rows } = await db.query(text, values);
  const found = rows.filter((r) => r.feature !== null && r.feature !== undefined);
  const more = found.length > q.limit;
  const served = more ? found.slice(0, q.limit) : found;
  const last = served[served.length - 1];
  const matched = q.countCap !== undefined && rows.length > 0 && rows[0].matched <= q.countCap ? (rows[0].matched as number) : null;
  return {
    features: served.map((r) => r.feature as string),
    nextKey: more ? q.collection.keys.map((_k, i) => String(last[`k${i}`])) : null,
    matched,
  };
}

/** One feature by id at the selection's times (the newest fact row if several), or null. */
export async function readFeature(db: Db, s: Selection, id: string): Promise<string | null> {
  const c = s.collection;
  const ps = new Params();
  const { from, where } = selection(s, ps);
  where.push(`${c.keys[0].sql} = ${ps.bind(id, 'text')}`);
  const tiebreak = c.keys[1] ? `ORDER BY ${c.keys[1].sql} DESC ` : '';
  const { rows } = await db.query(`SELECT ${featureSql(c, s.crs)} AS feature FROM ${from} ${whereSql(where)} ${tiebreak}LIMIT 1`, ps.values);
  return rows[0]?.feature ?? null;
}
