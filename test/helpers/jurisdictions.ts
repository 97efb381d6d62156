// Jurisdictions for HTTP tests: the Massachusetts rows the manifests give (identical values, so
// files that load the manifests agree), and 61 generated towns under a random name prefix,
// with fips codes in a block of their own (9<block><3 digits>) so that files never collide.
import { expect } from 'vitest';
import type { RunningServer } from '../../api/server.ts';
import { stableId } from '../../core/ids.ts';
import { call, createTestOrg, startTestServer } from './server.ts';

export const jid = (fipsKey: string) => stableId('jurisdiction', fipsKey);
export const MA = jid('us:state:25');
export const MIDDLESEX = jid('us:county:25017');
export const CAMBRIDGE = jid('us:cousub:2501711000');
export const SOMERVILLE = jid('us:cousub:2501762535');

export interface Town {
  id: string;
  slug: string;
  name: string;
  legal_name: string | null;
  type: string;
  population: number | null;
  fips_key: string;
  cousub: string;
}

/** Town i: population NULL every tenth, ties by i % 7; legal_name NULL every fourth; the last has punctuation. */
export function makeTowns(prefix: string, block: number): Town[] {
  return Array.from({ length: 61 }, (_, i) => {
    const cousub = `9${block}${String(i).padStart(3, '0')}`;
    const fipsKey = `us:cousub:25017${cousub}`;
    return {
      id: jid(fipsKey),
      slug: `${prefix.toLowerCase()}-${i}`,
      name: i === 60 ? `${prefix} Saint-Jean's Landing` : `${prefix} Town ${String(i).padStart(2, '0')}`,
      legal_name: i % 4 === 0 ? null : `Town of ${prefix} ${i}`,
      type: i % 3 === 0 ? 'city' : 'town',
      population: i % 10 === 0 ? null : (i % 7) * 1000 + 500,
      fips_key: fipsKey,
      cousub,
    };
  });
}

export type Query = Record<string, string | string[]>;

/** A server, a key, the seeded towns and small helpers; call setup in beforeAll and teardown in afterAll. */
export function jurisdictionFixture(block: number) {
  const P = `Zq${block}${Math.random().toString(36).replace(/[^a-z]/g, '').slice(0, 5)}`;
  const towns = makeTowns(P, block);
  const f = {
    P,
    towns,
    /** keeps a request to this file's rows */
    isolate: { 'filter[name][prefix]': P } as Record<string, string>,
    server: undefined as unknown as RunningServer,
    key: '',

    async setup() {
      f.server = await startTestServer({ RATE_LIMIT_PER_SECOND: '100000' });
      f.key = (await createTestOrg(f.server, 1000)).apiKey;
      const db = f.server.services.pool;
      await db.query(
        `INSERT INTO jurisdiction (id, slug, name, legal_name, type, level, fips_state, fips_county, fips_cousub, fips_place, fips_key, population, population_year, state_postal, parent_id)
         VALUES ($1, 'massachusetts', 'Massachusetts', 'Commonwealth of Massachusetts', 'state', 'state', '25', NULL, NULL, NULL, 'us:state:25', 7029917, 2020, 'MA', NULL),
                ($2, 'middlesex-county-ma', 'Middlesex County', 'Middlesex County, Massachusetts', 'county', 'county', '25', '017', NULL, NULL, 'us:county:25017', 1632002, 2020, 'MA', $1),
                ($3, 'cambridge-ma', 'Cambridge', 'City of Cambridge', 'city', 'cousub', '25', '017', '11000', '11000', 'us:cousub:2501711000', 118403, 2020, 'MA', $2),
                ($4, 'somerville-ma', 'Somerville', 'City of Somerville', 'city', 'cousub', '25', '017', '62535', '62535', 'us:cousub:2501762535', 81045, 2020, 'MA', $2)
         ON CONFLICT DO NOTHING`,
        [MA, MIDDLESEX, CAMBRIDGE, SOMERVILLE],
      );
      const col = <K extends keyof Town>(k: K) => towns.map((t) => t[k]);
      await db.query(
        `INSERT INTO jurisdiction (id, slug, name, legal_name, type, level, fips_state, fips_county, fips_cousub, fips_key, population, population_year, state_postal, parent_id)
         SELECT id, slug, name, legal_name, type, 'cousub', '25', '017', cousub, fips_key, population, 2020, 'MA', $7
           FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::int[], $8::text[], $9::text[]) AS t(id, slug, name, legal_name, type, population, fips_key, cousub)`,
        [col('id'), col('slug'), col('name'), col('legal_name'), col('type'), col('population'), MIDDLESEX, col('fips_key'), col('cousub')],
      );
    },

    async teardown() {
      const db = f.server.services.pool;
      await db.query('DELETE FROM authority WHERE jurisdiction_id = ANY($1)', [towns.map((t) => t.id)]);
      await db.query('DELETE FROM jurisdiction WHERE id = ANY($1)', [towns.map((t) => t.id)]);
      await f.server.close();
    },

    get(path: string, query: Query = {}) {
      const qs = new URLSearchParams();
      for (const [k, v] of Object.entries(query)) for (const one of Array.isArray(v) ? v : [v]) qs.append(k, one);
      const s = qs.toString();
      return call(f.server, 'GET', s ? `${path}?${s}` : path, { key: f.key });
    },

    /** Every page of a list, in order; /v1 paths read data/next_cursor. */
    async walk(path: string, query: Record<string, string>) {
      const v1 = path.startsWith('/v1');
      const seen: string[] = [];
      let cursor: string | null = null;
      let pages = 0;
      do {
        const r = await f.get(path, { ...query, ...(cursor ? { cursor } : {}) });
        expect(r.status, JSON.stringify(r.body)).toBe(200);
        seen.push(...(v1 ? r.body.data : r.body.item).map((i: { id: string }) => i.id));
        cursor = v1 ? r.body.next_cursor : r.body.page.next_cursor;
        if (v1) expect(r.body.has_more).toBe(cursor !== null);
        pages++;
      } while (cursor && pages < 50);
      return { seen, pages };
    },

    /** This file's rows in a SQL order, to compare walks with. */
    async sqlIds(orderBy: string): Promise<string[]> {
      const { rows } = await f.server.services.pool.query(`SELECT id FROM jurisdiction j WHERE starts_with(lower(name), lower($1)) ORDER BY ${orderBy}`, [P]);
      return rows.map((r) => r.id);
    },

    /** Credits recorded for one request (by its X-Request-Id). */
    async charged(requestId: string): Promise<number> {
      await f.server.services.meter.flush();
      const { rows } = await f.server.services.pool.query('SELECT credits FROM usage_event WHERE request_id = $1', [requestId]);
      expect(rows).toHaveLength(1);
      return rows[0].credits;
    },
  };
  return f;
}
