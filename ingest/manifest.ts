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
  'meeting_feed', // meetings of the bodies that decide: agendas and decisions
  'ordinance_text', // one ordinance's own text (found through an amendment_list, or named here)
] as const;
export type SourceKind = (typeof SOURCE_KINDS)[number];

export const FORMATS = ['markdown', 'html', 'pdf', 'text', 'csv', 'json', 'geojson', 'topojson', 'shapefile_zip', 'gpkg'] as const;
export type Format = (typeof FORMATS)[number];

export interface SourceManifest {
  key: string;
  kind: SourceKind;
  title: string;
  url: string; // where the bytes are fetched: http(s)://, file:// or file:{shared}/… (resolved by the fetcher)
  /** the publisher's public page for the document, cited in answers; else the url when it is http(s) */
  public_url?: string | null;
  format: Format;
  published_crs?: string | null;
  cadence: 'daily' | 'weekly' | 'monthly' | 'quarterly' | 'yearly' | 'manual';
  /** the date the published content took effect, when the publisher states it */
  effective_from?: string | null;
  /** field names of the publisher's data (code, key, name, …) or a named mapping */
  fields?: Record<string, string>;
  mapping?: string;
  /** what a code's text cannot tell by itself (a code_text source only) */
  hints?: OrdinanceHints;
  redistribution?: 'allowed' | 'restricted';
  /** the number of the ordinance whose own text this is (an ordinance_text source only) */
  ordinance?: string;
}

/** Legend levels a hint may give a mark (the levels of ingest/types.ts PermissionLevel a legend states). */
export const HINT_LEVELS = ['by_right', 'permitted_with_standards', 'administrative_approval', 'conditional_use', 'prohibited'] as const;

export interface OrdinanceHints {
  /** a legend the document does not state: mark → its level and, for approvals, the process */
  legend?: Record<string, { level: (typeof HINT_LEVELS)[number]; process?: string }>;
  /** other ways the document writes a district code, → the code as the map or list writes it */
  code_aliases?: Record<string, string>;
  /** sections (refs as the document numbers them) whose tables are not zoning tables */
  skip_sections?: string[];
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
          public_url: { type: ['string', 'null'], pattern: '^https?://' },
          format: { enum: [...FORMATS] },
          published_crs: { type: ['string', 'null'] },
          cadence: { enum: ['daily', 'weekly', 'monthly', 'quarterly', 'yearly', 'manual'] },
          effective_from: { type: ['string', 'null'], format: 'date' },
          fields: { type: 'object', additionalProperties: { type: 'string' } },
          mapping: { type: 'string' },
          hints: {
            type: 'object',
            additionalProperties: false,
            properties: {
              legend: {
                type: 'object',
                minProperties: 1,
                additionalProperties: {
                  type: 'object',
                  required: ['level'],
                  additionalProperties: false,
                  properties: { level: { enum: [...HINT_LEVELS] }, process: { type: 'string', minLength: 1 } },
                },
              },
              code_aliases: { type: 'object', additionalProperties: { type: 'string', minLength: 1 } },
              skip_sections: { type: 'array', items: { type: 'string', minLength: 1 } },
            },
          },
          redistribution: { enum: ['allowed', 'restricted'] },
          ordinance: { type: 'string', minLength: 1 },
        },
      },
    },
  },
};

const validate = new Ajv2020({ allErrors: true, strict: false, validateFormats: false }).compile(schema);

/** A manifest that cannot be used: its file and the field at fault, in one line. */
export class ManifestError extends Error {
  constructor(
    readonly file: string,
    readonly field: string,
    problem: string,
  ) {
    super(`manifest ${file}: ${field} ${problem}`);
    this.name = 'ManifestError';
  }
}

type AjvProblem = { instancePath: string; message?: string; params?: Record<string, unknown> };

function describe(e: AjvProblem): { field: string; problem: string } {
  const p = e.params ?? {};
  const field = (e.instancePath || '/') + (typeof p.additionalProperty === 'string' ? `/${p.additionalProperty}` : typeof p.missingProperty === 'string' ? `/${p.missingProperty}` : '');
  if (typeof p.additionalProperty === 'string') return { field, problem: 'is not a manifest field' };
  if (typeof p.missingProperty === 'string') return { field, problem: 'is required' };
  if (Array.isArray(p.allowedValues)) return { field, problem: `must be one of ${p.allowedValues.join(', ')}` };
  return { field, problem: e.message ?? 'is not valid' };
}

/** Parse a manifest file's text; a problem is a ManifestError naming the file and the field. */
export function parseManifestText(text: string, file: string): JurisdictionManifest {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw new ManifestError(file, '/', `is not JSON (${(err as Error).message})`);
  }
  return checkManifest(value, file);
}

/** Check a parsed manifest; the first problem (and how many more) is thrown as a ManifestError. */
export function checkManifest(value: unknown, name: string): JurisdictionManifest {
  if (!validate(value)) {
    const errors = (validate.errors ?? []) as AjvProblem[];
    // a wrong value inside an enumeration reports its enum first; drop ajv's follow-on noise
    const first = describe(errors.find((e) => e.params && 'allowedValues' in e.params) ?? errors[0]);
    const more = errors.length > 1 ? ` (and ${errors.length - 1} more)` : '';
    throw new ManifestError(name, first.field, first.problem + more);
  }
  const m = value as unknown as JurisdictionManifest;
  const keys = new Set<string>();
  m.sources.forEach((s, i) => {
    if (keys.has(s.key)) throw new ManifestError(name, `/sources/${i}/key`, `names ${s.key} again: each source needs its own key`);
    keys.add(s.key);
    if (s.hints && s.kind !== 'code_text') throw new ManifestError(name, `/sources/${i}/hints`, 'are read for code_text sources only');
    if ((s.kind === 'ordinance_text') !== Boolean(s.ordinance)) throw new ManifestError(name, `/sources/${i}/ordinance`, s.ordinance ? 'is read for ordinance_text sources only' : 'names the ordinance whose text an ordinance_text source is');
  });
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
