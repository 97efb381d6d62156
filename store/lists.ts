// Lists of places (lst_) and their sites (lsi_): rows scoped to an organization, each site's
// parcels with when each joined it, and each site as shown: its parcels as held now, the union of
// their polygons, its area measured on that union (ST_Area over geography), centroid, jurisdiction.
import type { ResourceDef } from '../core/query/index.ts';
import { type Pool, type Queryable, withTransaction } from './db.ts';

export const ITEM_STATUSES = ['new', 'reviewing', 'pursuing', 'passed'] as const;
export type ItemStatus = (typeof ITEM_STATUSES)[number];

export interface ListRow {
  id: string;
  organization_id: string;
  name: string;
  description: string | null;
  version: number;
  item_count: number;
  created_at: Date;
  updated_at: Date;
}

export interface ItemRow {
  id: string;
  list_id: string;
  kind: string;
  name: string | null;
  status: ItemStatus;
  notes: string | null;
  address: string | null;
  filter: Record<string, unknown> | null;
  added_by: string;
  version: number;
  created_at: Date;
  updated_at: Date;
}

/** A parcel of a site as held now (number, area and address null where not held). */
export interface SiteParcel {
  id: string;
  number: string | null;
  address: string | null;
  postal_code: string | null;
  area_m2: number | null;
  jurisdiction_id: string | null;
  added_at: string;
}

export interface ItemView extends ItemRow {
  parcels: SiteParcel[];
  /** GeoJSON of the union of the parcels' polygons; null when none has one */
  geometry: string | null;
  /** area of that union in m² (geography); null when some parcel has no polygon */
  area_m2: number | null;
  lat: number | null;
  lon: number | null;
  jurisdiction: { id: string; name: string; type: string; fips_key: string } | null;
}

const COUNT = '(SELECT count(*)::int FROM list_item i WHERE i.list_id = l.id) AS item_count';

/** The organization's lists, newest first (the route binds organization_id). */
export const LISTS: ResourceDef = {
  name: 'list',
  from: 'list l',
  id: 'l.id',
  select: `l.*, ${COUNT}`,
  defaultSort: '-created_at',
  snapshotColumn: 'l.created_at',
  fields: { created_at: { sql: 'l.created_at', type: 'timestamp', sortable: true, nullable: false } },
};

/** A list's items, newest first (the route binds list_id). */
export const ITEMS: ResourceDef = {
  name: 'list_item',
  from: 'list_item i',
  id: 'i.id',
  select: 'i.id',
  defaultSort: '-created_at',
  snapshotColumn: 'i.created_at',
  fields: {
    created_at: { sql: 'i.created_at', type: 'timestamp', sortable: true, nullable: false },
    status: { sql: 'i.status', type: 'enum', enum: ITEM_STATUSES, nullable: false },
  },
};

export type Outcome<T> = T | 'missing' | 'stale';

/** One of the organization's lists; another organization's is not found. */
export async function getList(db: Queryable, organizationId: string, id: string): Promise<ListRow | null> {
  const { rows } = await db.query(`SELECT l.*, ${COUNT} FROM list l WHERE l.id = $1 AND l.organization_id = $2`, [id, organizationId]);
  return rows[0] ?? null;
}

export async function insertList(db: Queryable, r: { id: string; organizationId: string; name: string; description: string | null }): Promise<ListRow> {
  const { rows } = await db.query('INSERT INTO list (id, organization_id, name, description) VALUES ($1, $2, $3, $4) RETURNING *, 0 AS item_count', [r.id, r.organizationId, r.name, r.description]);
  return rows[0];
}

/** Lock the organization's list and check its version (`expected` null: any). */
async function lockList(c: Queryable, organizationId: string, id: string, expected: number[] | null): Promise<'ok' | 'missing' | 'stale'> {
  const { rows } = await c.query('SELECT version FROM list WHERE id = $1 AND organization_id = $2 FOR UPDATE', [id, organizationId]);
  if (!rows[0]) return 'missing';
  return expected && !expected.includes(rows[0].version) ? 'stale' : 'ok';
}

export async function updateList(pool: Pool, organizationId: string, id: string, expected: number[] | null, change: { name?: string; description?: string | null }): Promise<Outcome<ListRow>> {
  return withTransaction(pool, async (c) => {
    const locked = await lockList(c, organizationId, id, expected);
    if (locked !== 'ok') return locked;
    const { rows } = await c.query(
      `UPDATE list l SET name = COALESCE($2, name), description = CASE WHEN $3 THEN $4 ELSE description END, version = version + 1, updated_at = now()
        WHERE id = $1 RETURNING l.*, ${COUNT}`,
      [id, change.name ?? null, change.description !== undefined, change.description ?? null],
    );
    return rows[0];
  });
}

/** Delete a list and with it its items (and their parcels). */
export async function deleteList(pool: Pool, organizationId: string, id: string, expected: number[] | null): Promise<Outcome<'deleted'>> {
  return withTransaction(pool, async (c) => {
    const locked = await lockList(c, organizationId, id, expected);
    if (locked !== 'ok') return locked;
    await c.query('DELETE FROM list WHERE id = $1', [id]);
    return 'deleted';
  });
}

/** The parcels held now among `ids`, with their jurisdiction. */
export async function heldParcels(db: Queryable, ids: string[]): Promise<Map<string, string>> {
  const { rows } = await db.query('SELECT DISTINCT ON (id) id, jurisdiction_id FROM parcel WHERE id = ANY($1::text[]) AND known @> now() ORDER BY id, fact_id DESC', [ids]);
  return new Map(rows.map((r) => [r.id as string, r.jurisdiction_id as string]));
}

/** One item of the organization's list; an item of another list, or another organization's, is not found. */
export async function getItem(db: Queryable, organizationId: string, listId: string, id: string): Promise<ItemRow | null> {
  const { rows } = await db.query('SELECT i.* FROM list_item i JOIN list l ON l.id = i.list_id WHERE i.id = $1 AND i.list_id = $2 AND l.organization_id = $3', [id, listId, organizationId]);
  return rows[0] ?? null;
}

/** Make the site's parcel set `parcels` (in this order): parcels kept keep when they joined. */
async function writeParcels(c: Queryable, itemId: string, parcels: string[]) {
  await c.query('DELETE FROM list_item_parcel WHERE item_id = $1 AND parcel_id <> ALL($2::text[])', [itemId, parcels]);
  await c.query(
    `INSERT INTO list_item_parcel (item_id, parcel_id, position)
     SELECT $1, p.id, p.n FROM unnest($2::text[]) WITH ORDINALITY AS p(id, n)
     ON CONFLICT (item_id, parcel_id) DO UPDATE SET position = EXCLUDED.position`,
    [itemId, parcels],
  );
}

export interface NewItem {
  id: string;
  listId: string;
  name: string | null;
  status: ItemStatus;
  notes: string | null;
  address: string | null;
  filter: Record<string, unknown> | null;
  addedBy: string;
  parcels: string[];
}

/** Add a site to the organization's list; `missing` when the list is gone. */
export async function insertItem(pool: Pool, organizationId: string, it: NewItem): Promise<Outcome<ItemRow>> {
  return withTransaction(pool, async (c) => {
    const locked = await lockList(c, organizationId, it.listId, null);
    if (locked !== 'ok') return locked;
    const { rows } = await c.query(
      `INSERT INTO list_item (id, list_id, name, status, notes, address, filter, added_by) VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING *`,
      [it.id, it.listId, it.name, it.status, it.notes, it.address, it.filter === null ? null : JSON.stringify(it.filter), it.addedBy],
    );
    await writeParcels(c, it.id, it.parcels);
    await c.query('UPDATE list SET updated_at = now() WHERE id = $1', [it.listId]);
    return rows[0];
  });
}

/** Fields to change; undefined leaves a field as it is, null clears it. */
export interface ItemChange {
  name?: string | null;
  status?: ItemStatus;
  notes?: string | null;
  filter?: Record<string, unknown> | null;
  /** the whole new parcel set; replacing it drops the address the site was added by */
  parcels?: string[];
}

export async function updateItem(pool: Pool, organizationId: string, listId: string, id: string, expected: number[] | null, ch: ItemChange): Promise<Outcome<ItemRow>> {
  return withTransaction(pool, async (c) => {
    const { rows: held } = await c.query(
      'SELECT i.version FROM list_item i JOIN list l ON l.id = i.list_id WHERE i.id = $1 AND i.list_id = $2 AND l.organization_id = $3 FOR UPDATE OF i',
      [id, listId, organizationId],
    );
    if (!held[0]) return 'missing';
    if (expected && !expected.includes(held[0].version)) return 'stale';
    const set = (v: unknown) => v !== undefined;
    const { rows } = await c.query(
      `UPDATE list_item SET
         name = CASE WHEN $2 THEN $3 ELSE name END,
         status = COALESCE($4, status),
         notes = CASE WHEN $5 THEN $6 ELSE notes END,
         filter = CASE WHEN $7 THEN $8::jsonb ELSE filter END,
         address = CASE WHEN $9 THEN NULL ELSE address END,
         version = version + 1, updated_at = now()
       WHERE id = $1 RETURNING *`,
      [id, set(ch.name), ch.name ?? null, ch.status ?? null, set(ch.notes), ch.notes ?? null, set(ch.filter), ch.filter ? JSON.stringify(ch.filter) : null, set(ch.parcels)],
    );
    if (ch.parcels) await writeParcels(c, id, ch.parcels);
    return rows[0];
  });
}

export async function deleteItem(pool: Pool, organizationId: string, listId: string, id: string, expected: number[] | null): Promise<Outcome<'deleted'>> {
  return withTransaction(pool, async (c) => {
    const { rows } = await c.query(
      'SELECT i.version FROM list_item i JOIN list l ON l.id = i.list_id WHERE i.id = $1 AND i.list_id = $2 AND l.organization_id = $3 FOR UPDATE OF i',
      [id, listId, organizationId],
    );
    if (!rows[0]) return 'missing';
    if (expected && !expected.includes(rows[0].version)) return 'stale';
    await c.query('DELETE FROM list_item WHERE id = $1', [id]);
    await c.query('UPDATE list SET updated_at = now() WHERE id = $1', [listId]);
    return 'deleted';
  });
}

/**
 * Sites as shown, by id: each parcel's row held now (in force today in its jurisdiction's zone
 * first, else its latest), its address and postal code from the newest assessor roll stating
 * them, and the union of the polygons measured over geography.
 */
export async function itemViews(db: Queryable, ids: string[]): Promise<Map<string, ItemView>> {
  const { rows } = await db.query(
    `WITH lp AS (
       SELECT x.item_id, x.parcel_id, x.position, x.added_at, p.parcel_key, p.area_m2, p.geom, p.jurisdiction_id,
              ad.address, pc.postal_code
         FROM list_item_parcel x
         LEFT JOIN LATERAL (
           SELECT p.parcel_key, p.area_m2, p.geom, p.jurisdiction_id FROM parcel p JOIN jurisdiction j ON j.id = p.jurisdiction_id
            WHERE p.id = x.parcel_id AND p.known @> now()
            ORDER BY p.valid @> (now() AT TIME ZONE j.timezone)::date DESC, upper(p.valid) DESC NULLS FIRST, p.fact_id DESC LIMIT 1) p ON true
         LEFT JOIN LATERAL (
           SELECT concat_ws(', ', a->>'street_line_1', NULLIF(concat_ws(' ', a->>'locality', a->>'region'), '')) AS address
             FROM property pr CROSS JOIN jsonb_array_elements(pr.addresses) a
            WHERE pr.parcel_ids @> ARRAY[x.parcel_id] AND pr.known @> now() AND a->>'street_line_1' IS NOT NULL
            ORDER BY upper_inf(pr.valid) DESC, pr.fiscal_year DESC NULLS LAST, a->>'street_line_1' LIMIT 1) ad ON true
         LEFT JOIN LATERAL (
           SELECT a->>'postal_code' AS postal_code
             FROM property pr CROSS JOIN jsonb_array_elements(pr.addresses) a
            WHERE pr.parcel_ids @> ARRAY[x.parcel_id] AND pr.known @> now() AND a->>'postal_code' IS NOT NULL
            ORDER BY upper_inf(pr.valid) DESC, pr.fiscal_year DESC NULLS LAST, a->>'postal_code' LIMIT 1) pc ON true
        WHERE x.item_id = ANY($1::text[])),
     site AS (SELECT item_id, ST_Union(geom) AS geom, bool_and(geom IS NOT NULL) AS whole FROM lp GROUP BY item_id)
     SELECT i.*,
            COALESCE((SELECT json_agg(json_build_object('id', lp.parcel_id, 'number', lp.parcel_key, 'address', lp.address, 'postal_code', lp.postal_code,
                        'area_m2', lp.area_m2, 'jurisdiction_id', lp.jurisdiction_id, 'added_at', lp.added_at) ORDER BY lp.position)
                        FROM lp WHERE lp.item_id = i.id), '[]') AS parcels,
            (SELECT json_build_object('id', j.id, 'name', j.name, 'type', j.type, 'fips_key', j.fips_key)
               FROM lp JOIN jurisdiction j ON j.id = lp.jurisdiction_id WHERE lp.item_id = i.id ORDER BY lp.position LIMIT 1) AS jurisdiction,
            ST_AsGeoJSON(s.geom, 7) AS geometry,
            CASE WHEN s.whole THEN ST_Area(s.geom::geography) END AS area_m2,
            ST_Y(ST_Centroid(s.geom)) AS lat, ST_X(ST_Centroid(s.geom)) AS lon
       FROM list_item i LEFT JOIN site s ON s.item_id = i.id
      WHERE i.id = ANY($1::text[])`,
    [ids],
  );
  return new Map(rows.map((r) => [r.id as string, r as ItemView]));
}
