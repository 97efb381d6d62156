// A jurisdiction's manifest: who it is and the public sources that describe it. Adding a
// jurisdiction whose publishers use supported formats takes a manifest, not code.
import { Ajv2020 } from 'ajv/dist/2020.js';

export const SOURCE_KINDS = [
  'code_text', // the zoning code: sections, districts, use tables, dimensional tables
  'district_list', // the publisher's list of district codes and names
  'amendment_list', // ordinances, amendments and moratoriums
  'district_map',
  'overlay_map',
  'parcel_layer',
  'assessor_roll',
  'recorder_index',
  'permit_feed',
  'case_feed',
] as const;
export type SourceKind = (typeof SOURCE_KINDS)[number];

export const FORMATS = ['markdown', 'html', 'pdf', 'csv', 'json', 'geojson', 'topojson', 'shapefile_zip', 'gpkg'] as const;
export type Format = (typeof FORMATS)[number];

export interface SourceManifest {
  key: string;
  kind: SourceKind;
  title: string;
  url: string; // http(s)://, file:// or file:{shared}/… (resolved by the fetcher)
  format: Format;
  published_crs?: string | null;
  cadence: 'daily' | 'weekly' | 'monthly' | 'quarterly' | 'yearly' | 'manual';
  /** the date the published content took effect, when the publisher states it */
  effective_from?: string | null;
  /** field names of the publisher's data (code, key, name, …) or a named mapping */
  fields?: Record<string, string>;
  mapping?: string;
  profile?: string;
  redistribution?: 'allowed' | 'restricted';
}

export interface JurisdictionManifest {
  jurisdiction: {
    slug: string;
    name: string;
    legal_name?: string;
    type: string;
    level: 'state' | 'county' | 'cousub' | 'place';
    fips: { state: string; county?: string; cousub?: string; place?: string };
    state_postal: string;
    timezone: string;
    population?: number;
    population_year?: number;
    gnis_id?: string;
    parent?: string; // fips_key of the containing jurisdiction
  };
  authorities?: Array<{
    subject: 'zoning' | 'subdivision' | 'building_code' | 'fire_code';
    basis: string;
    governing?: string; // fips_key of the governing jurisdiction; default: itself
    legal_name?: string;
    agency?: Record<string, string>;
    relationship?: string;
  }>;
  use_labels?: string; // vocabulary/local/<file>.json
  sources: SourceManifest[];
}

const schema = {
  type: 'object',
  required: ['jurisdiction', 'sources'],
  additionalProperties: false,
  properties: {
    jurisdiction: {
      type: 'object',
      required: ['slug', 'name', 'type', 'level', 'fips', 'state_postal', 'timezone'],
      additionalProperties: false,
      properties: {
        slug: { type: 'string', pattern: '^[a-z0-9]+(-[a-z0-9]+)*$' },
        name: { type: 'string', minLength: 1 },
        legal_name: { type: 'string' },
        type: { enum: ['state', 'county', 'city', 'town', 'township', 'village', 'borough', 'cdp'] },
        level: { enum: ['state', 'county', 'cousub', 'place'] },
        fips: {
          type: 'object',
          required: ['state'],
          additionalProperties: false,
          properties: {
            state: { type: 'string', pattern: '^\\d{2}$' },
            county: { type: 'string', pattern: '^\\d{3}$' },
            cousub: { type: 'string', pattern: '^\\d{5}$' },
            place: { type: 'string', pattern: '^\\d{5}$' },
          },
        },
        state_postal: { type: 'string', pattern: '^[A-Z]{2}$' },
        timezone: { type: 'string' },
        population: { type: 'integer', minimum: 0 },
        population_year: { type: 'integer' },
        gnis_id: { type: 'string' },
        parent: { type: 'string', pattern: '^us:(state|county|cousub|place):\\d+$' },
      },
    },
    authorities: {
      type: 'array',
      items: {
        type: 'object',
        required: ['subject', 'basis'],
        additionalProperties: false,
        properties: {
          subject: { enum: ['zoning', 'subdivision', 'building_code', 'fire_code'] },
          basis: { type: 'string' },
          governing: { type: 'string', pattern: '^us:(state|county|cousub|place):\\d+$' },
          legal_name: { type: 'string' },
          agency: { type: 'object', additionalProperties: { type: 'string' } },
          relationship: { type: 'string' },
        },
      },
    },
    use_labels: { type: 'string' },
    sources: {
      type: 'array',
      items: {
        type: 'object',
        required: ['key', 'kind', 'title', 'url', 'format', 'cadence'],
        additionalProperties: false,
        properties: {
          key: { type: 'string', pattern: '^[a-z0-9]+(-[a-z0-9]+)*$' },
          kind: { enum: [...SOURCE_KINDS] },
          title: { type: 'string' },
          url: { type: 'string', pattern: '^(https?://|file:)' },
          format: { enum: [...FORMATS] },
          published_crs: { type: ['string', 'null'] },
          cadence: { enum: ['daily', 'weekly', 'monthly', 'quarterly', 'yearly', 'manual'] },
          effective_from: { type: ['string', 'null'], format: 'date' },
          fields: { type: 'object', additionalProperties: { type: 'string' } },
          mapping: { type: 'string' },
          profile: { type: 'string' },
          redistribution: { enum: ['allowed', 'restricted'] },
        },
      },
    },
  },
};

const validate = new Ajv2020({ allErrors: true, strict: false, validateFormats: false }).compile(schema);

/** Check a parsed manifest; throws with every problem named. */
export function checkManifest(value: unknown, name: string): JurisdictionManifest {
  if (!validate(value)) {
    const problems = (validate.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message}`);
    throw new Error(`Manifest ${name} is not valid:\n  ${problems.join('\n  ')}`);
  }
  const m = value as unknown as JurisdictionManifest;
  const keys = new Set<string>();
  for (const s of m.sources) {
    if (keys.has(s.key)) throw new Error(`Manifest ${name}: two sources are named ${s.key}`);
    keys.add(s.key);
  }
  return m;
}

/** The fips_key and code of a manifest's jurisdiction (spec 2.1: us:<level>:<geoid>). */
export function fipsKey(j: JurisdictionManifest['jurisdiction']): { key: string; code: string } {
  const f = j.fips;
  const code =
    j.level === 'state' ? f.state
    : j.level === 'county' ? `${f.state}${f.county}`
    : j.level === 'cousub' ? `${f.state}${f.county}${f.cousub}`
    : `${f.state}${f.place}`;
  if (!code || code.includes('undefined')) throw new Error(`Jurisdiction ${j.slug}: fips lacks the ${j.level} code`);
  return { key: `us:${j.level}:${code}`, code };
}

/** Seconds between scheduled runs for a cadence (Temporal Schedules use it). */
export const CADENCE_SECONDS: Record<SourceManifest['cadence'], number | null> = {
  daily: 86_400,
  weekly: 604_800,
  monthly: 2_592_000,
  quarterly: 7_776_000,
  yearly: 31_536_000,
  manual: null,
};
