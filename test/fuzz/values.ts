// Values the fuzzer sends: plausible ones for each parameter or body field (by its name, its
// schema, and what the harvest found on the live server), and hostile ones (NUL, huge numbers,
// NaN, unicode, very long strings, bad WKT and GeoJSON, impossible dates, bad cursors).
import type { Random } from './random.ts';

type Json = Record<string, any>;

/** What the harvest found: ids by prefix (prc, cit, …) and other real values by kind. */
export type Pool = Record<string, string[]>;

/** A query value already percent-encoded (for bytes no string encodes: bad UTF-8, a lone %). */
export interface Encoded {
  encoded: string;
}

/** A JSON token written as is (1e999, a lone surrogate's escape), which JSON.stringify cannot write. */
export interface RawJson {
  rawJson: string;
}

export type QueryValue = string | Encoded;

const CAMBRIDGE = { lat: 42.3736, lon: -71.1097 };
const ALPHABET = '0123456789abcdefghjkmnpqrstvwxyz';
const PREFIXES: Record<string, string> = {
  citation: 'cit', document: 'doc', change_event: 'chg', answer: 'ans', batch: 'bat', extract: 'ext', zoning_id: 'zon',
  correction: 'cor', invitation_id: 'inv', key_id: 'key', parcel: 'prc', property: 'pty', location_token: 'loc', organization_id: 'org',
};

const USES = ['residential.dwelling.single_family', 'residential.dwelling.two_family', 'residential.dwelling.multifamily', 'commercial.retail', 'institutional', 'use_0000000000000000000a', 'residential'];
const CONTROL_TYPES = ['dimensional.setback_front', 'dimensional.setback_side_interior', 'dimensional.setback_side_street', 'dimensional.setback_rear', 'dimensional.height_max', 'dimensional.lot_area_min'];
const TIMES = ['2024-05-01', '2021-01-01', '2026-01-15', 'last 30 days', 'last 1 days', 'from:2020-01-01 to:2024-12-31', '2024-05-01T10:00:00Z', '2024-05-01T10:00:00-04:00', '1999-06-30'];
const CRS = ['http://www.opengis.net/def/crs/OGC/1.3/CRS84', 'http://www.opengis.net/def/crs/EPSG/0/4326', 'http://www.opengis.net/def/crs/EPSG/0/3857'];
const FILTER_FIELDS = ['name', 'population', 'title', 'recorded_on', 'last_retrieved_at', 'code_normalized', 'code_raw', 'area_m2', 'parcel_key', 'created_at', 'state', 'kind', 'type', 'doc_type', 'version_count', 'effective_from'];
const OPERATORS = ['eq', 'ne', 'in', 'nin', 'lt', 'lte', 'gt', 'gte', 'between', 'prefix', 'contains', 'is_null', 'not_null', 'any', 'all', 'permits', 'forbids'];
const SORTS = ['name', '-name', 'population', '-created_at', 'code_normalized', 'title', 'relevance', 'parcel_key,-area_m2', 'fips', 'recorded_on'];

export const randomId = (r: Random, prefix: string) => `${prefix}_${Array.from({ length: 20 }, () => r.pick([...ALPHABET])).join('')}`;

function near(r: Random, spread = 0.03) {
  return { lat: CAMBRIDGE.lat + (r.next() - 0.5) * spread, lon: CAMBRIDGE.lon + (r.next() - 0.5) * spread };
}

function tileOf(r: Random) {
  const z = r.int(10, 17);
  const { lat, lon } = near(r, 0.05);
  const n = 2 ** z;
  const x = Math.floor(((lon + 180) / 360) * n);
  const y = Math.floor(((1 - Math.log(Math.tan((lat * Math.PI) / 180) + 1 / Math.cos((lat * Math.PI) / 180)) / Math.PI) / 2) * n);
  return { z, x, y };
}

function wkt(r: Random): string {
  const p = near(r);
  const d = 0.0005 + r.next() * 0.003;
  return r.pick([
    `POINT(${p.lon.toFixed(6)} ${p.lat.toFixed(6)})`,
    `POLYGON((${p.lon} ${p.lat},${p.lon + d} ${p.lat},${p.lon + d} ${p.lat + d},${p.lon} ${p.lat + d},${p.lon} ${p.lat}))`,
    `LINESTRING(${p.lon} ${p.lat},${p.lon + d} ${p.lat + d})`,
  ]);
}

function geojson(r: Random): Json {
  const p = near(r);
  const d = 0.001;
  return r.pick([
    { type: 'Point', coordinates: [p.lon, p.lat] },
    { type: 'Polygon', coordinates: [[[p.lon, p.lat], [p.lon + d, p.lat], [p.lon + d, p.lat + d], [p.lon, p.lat]]] },
  ]);
}

const bbox = (r: Random) => {
  const p = near(r);
  const d = 0.002 + r.next() * 0.02;
  return [p.lon, p.lat, p.lon + d, p.lat + d].map((n) => n.toFixed(5)).join(',');
};

function fromPool(pool: Pool, r: Random, kind: string, fallback: () => string): string {
  const xs = pool[kind];
  return xs?.length && r.chance(0.85) ? r.pick(xs) : fallback();
}

/** A plausible value for a parameter or field of this name, or null when the name says nothing. */
export function namedValue(name: string, r: Random, pool: Pool): string | null {
  const id = (kind: string) => fromPool(pool, r, kind, () => randomId(r, kind));
  switch (name) {
    case 'id':
    case 'jurisdiction':
      return fromPool(pool, r, r.pick(['slug', 'jur', 'fips_key']), () => 'cambridge-ma');
    case 'district':
      return fromPool(pool, r, r.pick(['district_code', 'dst']), () => 'C-1');
    case 'code':
      return fromPool(pool, r, 'district_code', () => 'C-1');
    case 'featureId':
      return fromPool(pool, r, r.pick(['prc', 'dst', 'jur']), () => randomId(r, 'prc'));
    case 'collectionId':
      return r.pick(['districts', 'overlays', 'parcels', 'jurisdictions']);
    case 'layer':
      return r.pick(['district', 'overlay', 'parcel', 'future_land_use', 'coverage']);
    case 'name':
      return fromPool(pool, r, 'extract_file', () => r.pick(['parcel.jsonl', 'key for the fuzzer', 'A name']));
    case 'file':
      return r.pick(['viewer.js', 'viewer.css', 'maplibre-gl.js', 'maplibre-gl.css', 'index.html']);
    case 'ref':
      return r.pick(['1', '2', 'a']);
    case 'address':
    case 'q':
      return fromPool(pool, r, 'address', () => r.pick(['Massachusetts Ave', 'Cambridge', '1 Main St', 'Broadway']));
    case 'point': {
      const p = near(r);
      return `${p.lat.toFixed(6)},${p.lon.toFixed(6)}`;
    }
    case 'lat':
      return near(r).lat.toFixed(6);
    case 'lon':
      return near(r).lon.toFixed(6);
    case 'geometry':
      return r.chance(0.6) ? wkt(r) : JSON.stringify(geojson(r));
    case 'bbox':
      return bbox(r);
    case 'buffer':
      return String(r.int(0, 300));
    case 'apn':
      return fromPool(pool, r, 'apn', () => '127-123');
    case 'parcel_key':
      return fromPool(pool, r, 'parcel_key', () => '127-123');
    case 'fips':
      return r.pick(['25017', '25', '2501711000', '25025']);
    case 'state':
      return r.pick(['MA', '25', 'ma', 'NY']);
    case 'county':
      return r.pick(['25017', '017', fromPool(pool, r, 'jur', () => '25017')]);
    case 'plss':
      return r.pick(['CO:06:T001S:R068W:12:NE', 'MA:01:T001N:R001E:1']);
    case 'as_of':
    case 'known_as_of':
    case 'datetime':
      return r.pick(TIMES);
    case 'since':
    case 'until':
      return String(r.int(0, Number(pool.max_seq?.[0] ?? 50)));
    case 'use':
      return r.pick(USES);
    case 'control_type':
      return r.pick(CONTROL_TYPES);
    case 'sort':
      return r.pick(SORTS);
    case 'cursor':
      return fromPool(pool, r, 'cursor', () => 'eyJ2IjoxfQ.AAAA');
    case 'crs':
    case 'bbox-crs':
    case 'filter-crs':
      return r.pick(CRS);
    case 'filter':
      return r.pick(["code_raw = 'C-1'", "jurisdiction = 'cambridge-ma'", 'area_m2 > 1000', "S_INTERSECTS(geometry, POINT(-71.11 42.37))", "code_raw LIKE 'R%'"]);
    case 'field':
      return r.pick(['default', 'all', 'default,-geometry', 'id,href', 'all,-provenance']);
    case 'days':
      return String(r.int(1, 365));
    case 'width':
    case 'height':
      return String(r.int(200, 600));
    case 'email':
      return r.pick(['someone@example.test', 'owner@cambridge.test']);
    case 'password':
      return r.pick(['a long enough password', 'short']);
    case 'token':
      return r.pick(['x', 'dGhpcyBpcyBub3QgYSB0b2tlbg']);
    case 'evidence_url':
      return 'https://example.test/ordinance.pdf';
    case 'location_token':
    case 'citation':
    case 'document':
    case 'change_event':
    case 'answer':
    case 'batch':
    case 'extract':
    case 'zoning_id':
    case 'correction':
    case 'invitation_id':
    case 'property':
    case 'organization_id':
      return id(PREFIXES[name]);
    case 'parcel':
      return id('prc');
    case 'key_id':
      // never a harvested key: the fuzzer must not revoke the key it uses
      return randomId(r, 'key');
    default:
      return null;
  }
}

/** The z, x and y of a tile around Cambridge, together. */
export function tilePath(r: Random): Record<string, string> {
  const t = tileOf(r);
  return { z: String(t.z), x: String(t.x), y: r.chance(0.1) ? `${t.y}.mvt` : String(t.y) };
}

/** A filter[<field>][<op>]=<value> pair (deepObject), plausible or not. */
export function filterPair(r: Random): [string, string] {
  const op = r.pick(OPERATORS);
  const value = ['is_null', 'not_null'].includes(op) ? r.pick(['true', 'false', '']) : op === 'between' ? r.pick(['1,10', '2020-01-01,2024-01-01', 'a,b']) : r.pick(['1', '1000', 'C-1', '2024-01-01', 'a,b', 'true', 'residential']);
  return [`filter[${r.pick(FILTER_FIELDS)}][${op}]`, value];
}

/** A value of a JSON Schema type (as the document gives a parameter's schema). */
export function schemaValue(schema: Json, r: Random, name: string, pool: Pool): unknown {
  if (!schema) return 'x';
  if (schema.anyOf || schema.oneOf) return schemaValue(r.pick(schema.anyOf ?? schema.oneOf), r, name, pool);
  if (schema.const !== undefined) return schema.const;
  if (schema.enum) return r.pick(schema.enum);
  const type = Array.isArray(schema.type) ? r.pick(schema.type.filter((t: string) => t !== 'null').length ? schema.type.filter((t: string) => t !== 'null') : schema.type) : schema.type;
  const named = namedValue(name, r, pool);
  switch (type) {
    case 'integer': {
      const lo = schema.minimum ?? 0;
      const hi = schema.maximum ?? lo + 100;
      // the largest allowed now and then: the heaviest answer an operation gives
      if (schema.maximum !== undefined && r.chance(0.1)) return schema.maximum;
      return r.int(lo, Math.min(hi, lo + 1000));
    }
    case 'number': {
      if (named !== null && Number.isFinite(Number(named))) return Number(named);
      const lo = schema.minimum ?? 0;
      const hi = schema.maximum ?? lo + 100;
      return Math.round((lo + r.next() * (Math.min(hi, lo + 1000) - lo)) * 100) / 100;
    }
    case 'boolean':
      return r.chance(0.5);
    case 'null':
      return null;
    case 'array': {
      const most = schema.maxItems !== undefined && r.chance(0.05);
      const n = most ? schema.maxItems : r.int(schema.minItems ?? 0, Math.min(schema.maxItems ?? 3, 3));
      const out = Array.from({ length: n }, () => schemaValue(schema.items ?? { type: 'string' }, r, name, pool));
      return schema.uniqueItems ? [...new Set(out)] : out;
    }
    case 'object':
      if (name === 'scope' && r.chance(0.8)) return { jurisdiction: r.chance(0.7) ? 'cambridge-ma' : [namedValue('jurisdiction', r, pool)] };
      return objectValue(schema, r, pool);
    default: {
      if (schema.format === 'date') return r.pick(['2024-05-01', '2021-02-28', '2024-02-29']);
      if (schema.format === 'date-time') return '2024-05-01T10:00:00Z';
      if (schema.format === 'email') return 'someone@example.test';
      if (schema.format === 'uri') return 'https://example.test/x';
      if (named !== null) return named;
      return r.pick(['a', 'Cambridge', 'test value', '1']);
    }
  }
}

/** An object with its required properties and some of the others. */
export function objectValue(schema: Json, r: Random, pool: Pool): Json {
  const out: Json = {};
  const props = (schema.properties ?? {}) as Record<string, Json>;
  const required = new Set<string>(schema.required ?? []);
  for (const [k, s] of Object.entries(props)) {
    if (required.has(k) || r.chance(0.4)) out[k] = schemaValue(s, r, k, pool);
  }
  const names = Object.keys(props);
  while (Object.keys(out).length < (schema.minProperties ?? 0) && names.length) {
    const k = r.pick(names);
    out[k] = schemaValue(props[k], r, k, pool);
  }
  return out;
}

const long = (n: number) => 'x'.repeat(n);

/** Hostile query values: each a string (percent-encoded when sent) or bytes already encoded. */
export function nastyQuery(r: Random, pool: Pool): QueryValue {
  const cursor = pool.cursor?.length ? r.pick(pool.cursor) : 'eyJ2IjoxfQ.AAAA';
  return r.pick<() => QueryValue>([
    () => 'a\u0000b',
    () => '\u0000',
    () => '',
    () => ' ',
    () => r.pick(['-1', '0', '1e308', '1e309', '-1e309', 'NaN', 'Infinity', '-Infinity', '99999999999999999999999', '1.5', '0x10', '-0', '2147483648', '9223372036854775808']),
    () => r.pick(['2024-02-30', '2023-02-29', '0000-01-01', '9999-12-31', '2024-13-01', '2024-00-10', '2024-02-30T10:00:00Z', '2024-05-01T25:00:00Z', '2024-05-01T10:00:00', 'from:2024-02-30 to:2024-03-01', 'from:2024-03-01 to:2024-02-01', 'last 99999999999 days', 'last 0 days', '10000-01-01', '0', '-1', '1.5']),
    () => long(r.pick([300, 2001, 5000, 12000])),
    () => r.pick(['é', '🏠', '\u202eevil', 'ﷺ', '日本語', 'Ω≈ç√∫', '\u0301', '\t\n', '\u00a0', '\uffff']),
    () => ({ encoded: r.pick(['%ED%A0%80', '%FF', '%C3', '%', '%zz', '%%00', '%E2%80', '%F4%90%80%80']) }),
    () => r.pick(['POINT(', 'POINT(1e400 1)', 'POINT(nan nan)', 'POLYGON((0 0,1 1))', 'POLYGON((0 0,1 0,1 1,0 0)', 'LINESTRING(0 0)', 'GEOMETRYCOLLECTION EMPTY', 'POINT EMPTY', 'SRID=3857;POINT(0 0)', 'MULTIPOLYGON(((0 0,1 0,1 1,0 0)),((0 0,1 0,1 1,0 0)))', 'POINT(200 100)', 'CIRCULARSTRING(0 0,1 1,1 0)']),
    () => r.pick(['{"type":"Point"}', '{"type":"Point","coordinates":[1e999,0]}', '{"type":"Polygon","coordinates":[[[0,0],[1,1]]]}', '{', '{"type":"Nope","coordinates":[]}', '{"type":"Point","coordinates":"x"}', '[]', '{"type":"FeatureCollection","features":[]}']),
    () => r.pick(["' OR 1=1 --", '"; DROP TABLE parcel; --', '../../etc/passwd', `$${'{'}jndi:x}`, '<script>', '\\', '*', '%', '_', '[]', 'true', 'null', 'undefined']),
    () => r.pick([`${cursor}x`, cursor.slice(0, Math.max(1, cursor.length - 5)), cursor.replace(/.$/, (c) => (c === 'A' ? 'B' : 'A')), 'AAAA.BBBB', '.', 'eyJ2IjoxfQ', `${long(3000)}.x`]),
    () => r.pick(['90,180', '-91,0', '42.37,-71.1,5', '42.37', ',', ',,,', '1,2,3,4,5,6,7', '-180,-90,180,90', '10,10,0,0', 'a,b,c,d']),
    () => r.pick(['us:county:25017', 'us:cousub:1', 'jur_', 'prc_!!!!', `dst_${'z'.repeat(20)}`, 'ZZZ', randomId(r, 'prc'), randomId(r, 'cit'), 'us:moon:1']),
    () => Array.from({ length: 150 }, (_, i) => `v${i}`).join(','),
    () => r.pick(['-71.1,42.3', '42.37,-71.1', '0,0', '1e308,1e308']),
    // CQL2 that should not parse, or parses into the unexpected
    () => r.pick(["code_raw = 'a", `${'('.repeat(3000)}code_raw = 'C-1'${')'.repeat(3000)}`, 'S_INTERSECTS(geometry, POLYGON((0 0)))', 'area_m2 > 1e999', "code_raw LIKE '%'", 'NOT NOT NOT NOT area_m2 > 0', "T_INTERSECTS(valid, INTERVAL('2024-02-30','..'))", 'id IN (' + Array.from({ length: 2000 }, (_, i) => `'x${i}'`).join(',') + ')', "CASEI(code_raw) = casei('c-1')", 'nope(1)']),
    // the heaviest values allowed: the largest pages, the whole world, every parcel of the town
    () => r.pick(['10000', '200', '2048', '36500', '365', 'last 36500 days', 'from:1000-01-01 to:2026-01-01']),
    () => r.pick(['POLYGON((-180 -90,180 -90,180 90,-180 90,-180 -90))', 'POLYGON((-71.17 42.35,-71.06 42.35,-71.06 42.41,-71.17 42.41,-71.17 42.35))', '-180,-85,180,85', '-71.17,42.35,-71.06,42.41', 'POINT(-71.11 42.37)']),
  ])();
}

/** Hostile body values; RawJson for tokens JSON.stringify cannot write. */
export function nastyJson(r: Random): unknown {
  return r.pick<() => unknown>([
    () => 'a\u0000b',
    () => '\u0000',
    () => '',
    () => ' ',
    () => r.pick([-1, 0, 1e308, -1e308, 2 ** 53 + 1, 1.5, -0, 2147483648, 9.999e307]),
    () => ({ rawJson: r.pick(['1e999', '-1e999', '1e-999', '123456789012345678901234567890']) }),
    () => r.pick([true, false, null]),
    () => r.pick([[], {}, [[[[[]]]]], { a: { b: { c: {} } } }, [1, 'a', null]]),
    () => long(r.pick([300, 6000, 100_000])),
    () => r.pick(['🏠', '\u202eevil', 'ﷺ', '日本語', '\uffff', '\u0301']),
    () => ({ rawJson: r.pick(['"\\ud800"', '"a\\udc00b"', '"\\u0000"']) }),
    () => r.pick(['2024-02-30', '2023-02-29T00:00:00Z', '0000-01-01', 'from:2024-03-01 to:2024-02-01', 'last 0 days']),
    () => r.pick(['POINT(', 'POLYGON((0 0,1 1))', '{"type":"Point"}']),
    () => r.pick([{ type: 'Point', coordinates: [1e308, 0] }, { type: 'Polygon', coordinates: [[[0, 0], [1, 1]]] }, { type: 'Nope' }, { type: 'Point', coordinates: 'x' }]),
    () => r.pick(["' OR 1=1 --", '\\', '%00', '../../x']),
  ])();
}

/** A whole body that is not what any operation takes (or not JSON at all). */
export function nastyBodyText(r: Random): string {
  if (r.chance(0.05)) return `{"name":"${'x'.repeat(1_100_000)}"}`;
  return r.pick(['not json', '{', '[]', '"x"', '123', 'null', '{"a":1e999}', `${'['.repeat(3000)}${']'.repeat(3000)}`, '{"a":"\\u0000"}', '\u0000', '{"item":[]}', `{"item":[${Array.from({ length: 600 }, () => '{"address":"1 Main St"}').join(',')}]}`]);
}

/** JSON text of a value, RawJson tokens written as they are. */
export function jsonText(v: unknown): string {
  if (v && typeof v === 'object' && 'rawJson' in (v as object)) return (v as RawJson).rawJson;
  if (Array.isArray(v)) return `[${Array.prototype.map.call(v, jsonText).join(',')}]`;
  if (v && typeof v === 'object') return `{${Object.entries(v).map(([k, x]) => `${JSON.stringify(k)}:${jsonText(x)}`).join(',')}}`;
  return JSON.stringify(v) ?? 'null';
}

/** Every string is percent-encoded byte by byte except unreserved characters. */
export function encodeQuery(v: QueryValue): string {
  if (typeof v !== 'string') return v.encoded;
  return encodeURIComponent(v.replace(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, '\uFFFD')).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}
