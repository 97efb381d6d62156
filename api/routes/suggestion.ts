// GET /place/suggestion (spec 4.2): typeahead over jurisdictions (place, then county, then
// county subdivision), addresses, parcels and districts held. Each suggestion carries the query
// that asks about it.
import { invalid } from '../../core/errors.ts';
import { stateFips } from '../../core/states.ts';
import { normalizeAddress } from '../../core/address.ts';
import { issueToken } from '../location/token.ts';
import { defineRoutes } from '../route.ts';

const TYPES = ['jurisdiction', 'address', 'parcel', 'district'] as const;

export const suggestionRoutes = defineRoutes([
  {
    id: 'suggestPlaces',
    method: 'GET',
    path: '/place/suggestion',
    summary: 'Typeahead: jurisdictions, addresses, parcels and districts matching what was typed',
    tag: 'Ask about a place',
    credential: 'key',
    scope: 'place:read',
    form: 'plain',
    collection: true,
    price: { credits: 0, per: 'call', note: 'Free: typeahead is called on every keystroke.' },
    params: [
      { name: 'q', in: 'query', type: 'string', required: true, description: 'What was typed (2 characters or more).' },
      { name: 'type', in: 'query', type: 'array', items: { type: 'string', enum: TYPES } },
      { name: 'state', in: 'query', type: 'string', description: 'Postal code or FIPS of the state to search within.' },
      { name: 'size', in: 'query', type: 'integer', min: 1, max: 50, default: 10 },
    ],
    handler: async (req) => {
      const q = String(req.params.q).trim();
      if (q.length < 2) throw invalid('q', 'type at least 2 characters');
      const types = new Set<string>(req.params.type ?? TYPES);
      const state = req.params.state ? stateFips(req.params.state, 'state') : null;
      const size: number = req.params.size;
      const db = req.services.pool;
      const out: Array<Record<string, unknown>> = [];
      const jref = (r: { jurisdiction_id: string; jname: string }) => ({ id: r.jurisdiction_id, name: r.jname, href: `/jurisdiction/${r.jurisdiction_id}` });
      if (types.has('jurisdiction')) {
        const { rows } = await db.query(
          `SELECT id AS jurisdiction_id, name AS jname, name, level, state_postal, slug FROM jurisdiction
            WHERE (lower(name) LIKE lower($1) || '%' OR lower(name) % lower($1)) AND ($2::text IS NULL OR fips_state = $2)
            ORDER BY CASE level WHEN 'place' THEN 0 WHEN 'county' THEN 1 WHEN 'cousub' THEN 2 ELSE 3 END, similarity(lower(name), lower($1)) DESC LIMIT $3`,
          [q, state, size],
        );
        for (const r of rows) out.push({ label: `${r.name}, ${r.state_postal}`, type: 'jurisdiction', query: { jurisdiction: r.slug }, location_token: null, jurisdiction: jref(r) });
      }
      if (types.has('address')) {
        const key = normalizeAddress(q).normalized;
        const { rows } = await db.query(
          `SELECT DISTINCT ON (a.raw) a.raw, a.parcel_id, a.jurisdiction_id, j.name AS jname FROM address_point a JOIN jurisdiction j ON j.id = a.jurisdiction_id
            WHERE a.normalized LIKE $1 || '%' AND ($2::text IS NULL OR j.fips_state = $2) ORDER BY a.raw LIMIT $3`,
          [key, state, size],
        );
        for (const r of rows) out.push({ label: r.raw, type: 'address', query: { address: r.raw }, location_token: null, jurisdiction: jref(r) });
      }
      if (types.has('parcel')) {
        const { rows } = await db.query(
          `SELECT p.id, p.parcel_key, p.jurisdiction_id, j.name AS jname, ST_AsGeoJSON(p.geom) AS g FROM parcel p JOIN jurisdiction j ON j.id = p.jurisdiction_id
            WHERE p.parcel_key LIKE $1 || '%' AND upper_inf(p.known) AND upper_inf(p.valid) AND p.geom IS NOT NULL AND ($2::text IS NULL OR j.fips_state = $2)
            ORDER BY p.parcel_key LIMIT $3`,
          [q, state, size],
        );
        for (const r of rows) {
          const token = issueToken(req.services.secret, { geojson: r.g, parcels: [r.id], jurisdiction: r.jurisdiction_id, grain: 'parcel', input: `parcel ${r.id}` });
          out.push({ label: `Parcel ${r.parcel_key}, ${r.jname}`, type: 'parcel', query: { parcel: [r.id] }, location_token: token.token, jurisdiction: jref(r) });
        }
      }
      if (types.has('district')) {
        const { rows } = await db.query(
          `SELECT DISTINCT ON (d.id) d.id, d.code_normalized, d.local_label, d.jurisdiction_id, j.name AS jname, j.slug FROM district d JOIN jurisdiction j ON j.id = d.jurisdiction_id
            WHERE (d.code_normalized LIKE upper($1) || '%' OR lower(d.local_label) LIKE '%' || lower($1) || '%') AND upper_inf(d.known) AND upper_inf(d.valid)
              AND ($2::text IS NULL OR j.fips_state = $2)
            ORDER BY d.id LIMIT $3`,
          [q, state, size],
        );
        for (const r of rows) out.push({ label: `${r.code_normalized}${r.local_label ? ` (${r.local_label})` : ''}, ${r.jname}`, type: 'district', query: { jurisdiction: r.slug, district: r.code_normalized }, location_token: null, jurisdiction: jref(r) });
      }
      const item = out.slice(0, size);
      return { item, page: { size: item.length, next_cursor: null } };
    },
  },
]);
