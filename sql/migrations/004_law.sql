-- Law: jurisdictions, sources, documents and versions, citations, and bitemporal law facts.
--
-- Bitemporal facts: every fact row has `valid` (daterange: the law in force, effective_from
-- inclusive, through exclusive) and `known` (tstzrange: when the service held it, detected
-- inclusive, superseded exclusive). Rows are never updated in place except to close `known`;
-- a change closes the old row and inserts new ones. `id` is the fact's stable public id
-- (derived from its natural key); `fact_id` names one row. The exclusion constraint keeps two
-- rows of one fact from overlapping in both times.

CREATE TABLE jurisdiction (
  id text PRIMARY KEY,
  slug text NOT NULL UNIQUE,
  name text NOT NULL,
  legal_name text,
  type text NOT NULL,                          -- city, town, township, county, state, village, borough
  level text NOT NULL CHECK (level IN ('state', 'county', 'cousub', 'place')),
  fips_state char(2) NOT NULL,
  fips_county char(3),
  fips_cousub char(5),
  fips_place char(5),
  fips_key text NOT NULL UNIQUE,               -- us:<level>:<geoid>
  gnis_id text,
  population integer,
  population_year integer,
  lifecycle_status text NOT NULL DEFAULT 'active',
  timezone text NOT NULL DEFAULT 'America/New_York',
  state_postal char(2) NOT NULL,
  parent_id text REFERENCES jurisdiction(id),
  boundary geometry(MultiPolygon, 4326),
  boundary_basis text,                         -- where the boundary came from (e.g. union of parcels)
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX jurisdiction_boundary ON jurisdiction USING gist (boundary);

-- The extent cut into small pieces (ST_Subdivide), so that finding the jurisdiction at a point
-- is an index probe on a small polygon rather than a walk around a large one.
CREATE TABLE jurisdiction_piece (
  jurisdiction_id text NOT NULL REFERENCES jurisdiction(id),
  geom geometry(Polygon, 4326) NOT NULL
);
CREATE INDEX jurisdiction_piece_geom ON jurisdiction_piece USING gist (geom);
CREATE INDEX jurisdiction_piece_jurisdiction ON jurisdiction_piece (jurisdiction_id);
CREATE INDEX jurisdiction_name_trgm ON jurisdiction USING gist (lower(name) gist_trgm_ops);

-- A public source named in a jurisdiction's manifest.
CREATE TABLE source (
  id text PRIMARY KEY,
  jurisdiction_id text NOT NULL REFERENCES jurisdiction(id),
  key text NOT NULL,                           -- the manifest's name for it
  kind text NOT NULL,                          -- code_text, amendment_list, district_map, overlay_map, parcel_layer, assessor_roll, recorder_index, permit_feed
  url text NOT NULL,
  format text NOT NULL,
  published_crs text,
  cadence text,
  manifest jsonb NOT NULL,
  etag text,
  last_modified text,
  last_sha256 text,
  last_fetched_at timestamptz,
  last_changed_at timestamptz,
  last_error text,
  created_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (jurisdiction_id, key)
);

CREATE TABLE document (
  id text PRIMARY KEY,
  jurisdiction_id text REFERENCES jurisdiction(id),
  source_id text REFERENCES source(id),
  title text NOT NULL,
  doc_type text NOT NULL CHECK (doc_type IN ('ordinance', 'code', 'amendment', 'map', 'recorded_instrument', 'roll', 'feed', 'manifest')),
  media_type text NOT NULL,
  authorship text NOT NULL DEFAULT 'published' CHECK (authorship IN ('published', 'elicited', 'authored_by_us')),
  authored_by text,
  elicited_on date,
  url_canonical text,
  first_retrieved_at timestamptz NOT NULL,
  last_retrieved_at timestamptz NOT NULL,
  version_count integer NOT NULL DEFAULT 0
);
CREATE INDEX document_jurisdiction ON document (jurisdiction_id, doc_type);
CREATE INDEX document_title_trgm ON document USING gist (lower(title) gist_trgm_ops);

-- One retrieved state of a document: its bytes live in the blob store under their sha256.
CREATE TABLE document_version (
  id text PRIMARY KEY,
  document_id text NOT NULL REFERENCES document(id),
  number integer NOT NULL,
  sha256 text NOT NULL,
  byte_size bigint NOT NULL,
  media_type text NOT NULL,
  retrieved_at timestamptz NOT NULL,
  url text NOT NULL,
  http_etag text,
  http_last_modified text,
  text_sha256 text,
  loaded_at timestamptz,                       -- set when the version's facts are loaded
  load_summary jsonb,
  UNIQUE (document_id, number),
  UNIQUE (document_id, sha256)
);

-- The text a parser read from a version; citations' quotes are substrings of it.
CREATE TABLE version_text (
  version_id text PRIMARY KEY REFERENCES document_version(id),
  text text NOT NULL
);

-- Citations are immutable: a quote of one version at one place.
CREATE TABLE citation (
  id text PRIMARY KEY,
  jurisdiction_id text REFERENCES jurisdiction(id),
  document_id text NOT NULL REFERENCES document(id),
  version_id text NOT NULL REFERENCES document_version(id),
  quote text NOT NULL,
  quote_sha256 text NOT NULL,
  locator jsonb NOT NULL,                      -- {section, table, row, column, start, end, line}
  section_ref text,
  provenance jsonb NOT NULL DEFAULT '{}',
  adopted_on date,
  effective_from date,
  effective_through date,
  retrieved_at timestamptz NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX citation_version ON citation (version_id);

-- Who governs what, for which subject.
CREATE TABLE authority (
  fact_id bigserial PRIMARY KEY,
  id text NOT NULL,
  content_sha256 text NOT NULL,
  source_id text NOT NULL,                    -- the source (or manifest) that states it
  jurisdiction_id text NOT NULL REFERENCES jurisdiction(id),
  subject text NOT NULL CHECK (subject IN ('zoning', 'subdivision', 'building_code', 'fire_code')),
  governing_jurisdiction_id text NOT NULL REFERENCES jurisdiction(id),
  basis text NOT NULL,
  relationship text,
  legal_name text,
  agency jsonb,
  citation_id text REFERENCES citation(id),
  source_version_id text REFERENCES document_version(id),
  valid daterange NOT NULL,
  known tstzrange NOT NULL,
  EXCLUDE USING gist (id WITH =, source_id WITH =, valid WITH &&, known WITH &&)
);
CREATE INDEX authority_jurisdiction ON authority (jurisdiction_id, subject);

-- Code sections (the section tree of an ordinance).
CREATE TABLE section (
  fact_id bigserial PRIMARY KEY,
  id text NOT NULL,
  content_sha256 text NOT NULL,
  source_id text NOT NULL,                    -- the source (or manifest) that states it
  jurisdiction_id text NOT NULL REFERENCES jurisdiction(id),
  document_id text NOT NULL REFERENCES document(id),
  ref text NOT NULL,                           -- the code's own number, e.g. 3.1.16
  heading text,
  parent_ref text,
  depth integer NOT NULL,
  ordinal integer NOT NULL,
  body text NOT NULL,
  body_sha256 text NOT NULL,
  citation_id text REFERENCES citation(id),
  source_version_id text NOT NULL REFERENCES document_version(id),
  valid daterange NOT NULL,
  known tstzrange NOT NULL,
  EXCLUDE USING gist (id WITH =, source_id WITH =, valid WITH &&, known WITH &&)
);
CREATE INDEX section_jurisdiction ON section (jurisdiction_id, ref);
CREATE INDEX section_body_fts ON section USING gin (to_tsvector('english', coalesce(heading, '') || ' ' || body));

-- A zoning district (base or overlay) and what the code says of it.
CREATE TABLE district (
  fact_id bigserial PRIMARY KEY,
  id text NOT NULL,
  content_sha256 text NOT NULL,
  source_id text NOT NULL,                    -- the source (or manifest) that states it
  jurisdiction_id text NOT NULL REFERENCES jurisdiction(id),
  kind text NOT NULL CHECK (kind IN ('base', 'overlay')),
  code_raw text NOT NULL,
  code_normalized text NOT NULL,
  local_label text,
  type text,                                   -- residential, commercial, mixed_use, industrial, institutional, open_space, special
  subtype text,
  purpose text,
  section_ref text,
  precedence_rank integer,
  citation_id text REFERENCES citation(id),
  source_version_id text REFERENCES document_version(id),
  status text NOT NULL DEFAULT 'stated' CHECK (status IN ('stated', 'conflicting', 'withheld')),
  valid daterange NOT NULL,
  known tstzrange NOT NULL,
  EXCLUDE USING gist (id WITH =, source_id WITH =, valid WITH &&, known WITH &&)
);
CREATE INDEX district_jurisdiction ON district (jurisdiction_id, code_normalized);

-- A version of a published map layer.
CREATE TABLE map_version (
  id text PRIMARY KEY,
  jurisdiction_id text NOT NULL REFERENCES jurisdiction(id),
  layer text NOT NULL CHECK (layer IN ('district', 'overlay', 'future_land_use', 'parcel', 'boundary')),
  version_id text REFERENCES document_version(id),
  document_id text REFERENCES document(id),
  feature_count integer NOT NULL,
  repaired_count integer NOT NULL DEFAULT 0,
  dropped_count integer NOT NULL DEFAULT 0,
  published_crs text,
  geometry_sha256 text NOT NULL,
  effective_from date NOT NULL,
  effective_through date,
  adopted_on date,
  effective_basis text NOT NULL DEFAULT 'stated' CHECK (effective_basis IN ('stated', 'first_observed')),
  report jsonb NOT NULL DEFAULT '{}',          -- e.g. codes on the map but not in the code's list
  known tstzrange NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX map_version_jurisdiction ON map_version (jurisdiction_id, layer);

-- Where each district applies: one row per mapped polygon.
CREATE TABLE district_area (
  fact_id bigserial PRIMARY KEY,
  id text NOT NULL,                            -- stable: jurisdiction, layer, code and geometry hash
  content_sha256 text NOT NULL,
  source_id text NOT NULL,                    -- the source (or manifest) that states it
  jurisdiction_id text NOT NULL REFERENCES jurisdiction(id),
  district_id text NOT NULL,
  kind text NOT NULL CHECK (kind IN ('base', 'overlay', 'future_land_use')),
  code_raw text NOT NULL,
  map_version_id text NOT NULL REFERENCES map_version(id),
  feature_ref text,                            -- the publisher's own feature id, if any
  attributes jsonb NOT NULL DEFAULT '{}',
  geom geometry(MultiPolygon, 4326) NOT NULL,
  geom_sha256 text NOT NULL,
  valid daterange NOT NULL,
  known tstzrange NOT NULL,
  EXCLUDE USING gist (id WITH =, source_id WITH =, valid WITH &&, known WITH &&)
);
CREATE INDEX district_area_geom ON district_area USING gist (geom);
CREATE INDEX district_area_district ON district_area (district_id);
CREATE INDEX district_area_jurisdiction ON district_area (jurisdiction_id, kind);

-- The uses vocabulary (dotted slugs, loaded from vocabulary/uses.json) and local labels.
CREATE TABLE use_term (
  slug text PRIMARY KEY,
  id text NOT NULL UNIQUE,
  name text NOT NULL,
  category text NOT NULL,
  parent_slug text REFERENCES use_term(slug),
  description text
);

CREATE TABLE use_label (
  jurisdiction_id text NOT NULL REFERENCES jurisdiction(id),
  label_normalized text NOT NULL,
  label_raw text NOT NULL,
  use_slug text REFERENCES use_term(slug),     -- null: unmapped, kept raw and flagged
  mapping_basis text NOT NULL DEFAULT 'manifest',
  PRIMARY KEY (jurisdiction_id, label_normalized)
);

-- District x use -> level, as the use table states it.
CREATE TABLE permission (
  fact_id bigserial PRIMARY KEY,
  id text NOT NULL,
  content_sha256 text NOT NULL,
  source_id text NOT NULL,                    -- the source (or manifest) that states it
  jurisdiction_id text NOT NULL REFERENCES jurisdiction(id),
  district_id text NOT NULL,
  use_label_raw text NOT NULL,
  use_label_normalized text NOT NULL,
  use_slug text REFERENCES use_term(slug),
  symbol text NOT NULL,                        -- the code's own mark (P, SP, N, -)
  level text NOT NULL CHECK (level IN ('by_right', 'permitted_with_standards', 'administrative_approval', 'conditional_use', 'prohibited', 'unknown')),
  process text,                                -- e.g. special permit, site plan approval
  conditions text,                             -- footnotes and conditions, kept as text
  table_ref text,
  citation_id text NOT NULL REFERENCES citation(id),
  source_version_id text NOT NULL REFERENCES document_version(id),
  status text NOT NULL DEFAULT 'stated' CHECK (status IN ('stated', 'conflicting', 'withheld')),
  valid daterange NOT NULL,
  known tstzrange NOT NULL,
  EXCLUDE USING gist (id WITH =, source_id WITH =, valid WITH &&, known WITH &&)
);
CREATE INDEX permission_district ON permission (district_id);
CREATE INDEX permission_use ON permission (use_slug);

-- The code's rule for uses its tables never name.
CREATE TABLE unlisted_use_rule (
  fact_id bigserial PRIMARY KEY,
  id text NOT NULL,
  content_sha256 text NOT NULL,
  source_id text NOT NULL,                    -- the source (or manifest) that states it
  jurisdiction_id text NOT NULL REFERENCES jurisdiction(id),
  result text NOT NULL CHECK (result IN ('permitted', 'conditional', 'prohibited', 'unknown')),
  process text,
  citation_id text REFERENCES citation(id),
  source_version_id text REFERENCES document_version(id),
  valid daterange NOT NULL,
  known tstzrange NOT NULL,
  EXCLUDE USING gist (id WITH =, source_id WITH =, valid WITH &&, known WITH &&)
);

-- Dimensional and other numeric controls: {min, max, unit}, conditions kept as text.
CREATE TABLE control (
  fact_id bigserial PRIMARY KEY,
  id text NOT NULL,
  content_sha256 text NOT NULL,
  source_id text NOT NULL,                    -- the source (or manifest) that states it
  jurisdiction_id text NOT NULL REFERENCES jurisdiction(id),
  district_id text NOT NULL,
  control_type text NOT NULL,                  -- e.g. dimensional.setback_front
  building_type text,                          -- tables keyed by building type
  qualifier text,                              -- e.g. "abutting a residential district"
  min_value numeric,
  max_value numeric,
  unit text,
  value_text text NOT NULL,                    -- the cell as printed
  conditions text,
  table_ref text,
  citation_id text NOT NULL REFERENCES citation(id),
  source_version_id text NOT NULL REFERENCES document_version(id),
  status text NOT NULL DEFAULT 'stated' CHECK (status IN ('stated', 'conflicting', 'withheld')),
  valid daterange NOT NULL,
  known tstzrange NOT NULL,
  EXCLUDE USING gist (id WITH =, source_id WITH =, valid WITH &&, known WITH &&)
);
CREATE INDEX control_district ON control (district_id, control_type);

-- Ordinances: amendments, standalone ordinances and moratorium ordinances.
CREATE TABLE ordinance (
  fact_id bigserial PRIMARY KEY,
  id text NOT NULL,
  content_sha256 text NOT NULL,
  source_id text NOT NULL,                    -- the source (or manifest) that states it
  jurisdiction_id text NOT NULL REFERENCES jurisdiction(id),
  number text,
  title text NOT NULL,
  kind text NOT NULL CHECK (kind IN ('text_amendment', 'map_amendment', 'standalone', 'moratorium')),
  status text NOT NULL CHECK (status IN ('proposed', 'introduced', 'adopted', 'failed')),
  subject text[] NOT NULL DEFAULT '{}',
  introduced_on date,
  adopted_on date,
  effective_from date,
  document_id text REFERENCES document(id),
  citation_id text REFERENCES citation(id),
  source_version_id text REFERENCES document_version(id),
  detail jsonb NOT NULL DEFAULT '{}',
  valid daterange NOT NULL,
  known tstzrange NOT NULL,
  EXCLUDE USING gist (id WITH =, source_id WITH =, valid WITH &&, known WITH &&)
);
CREATE INDEX ordinance_jurisdiction ON ordinance (jurisdiction_id);

CREATE TABLE moratorium (
  fact_id bigserial PRIMARY KEY,
  id text NOT NULL,
  content_sha256 text NOT NULL,
  source_id text NOT NULL,                    -- the source (or manifest) that states it
  jurisdiction_id text NOT NULL REFERENCES jurisdiction(id),
  ordinance_id text,
  title text NOT NULL,
  uses text[] NOT NULL DEFAULT '{}',           -- use slugs paused
  use_labels text[] NOT NULL DEFAULT '{}',
  area geometry(MultiPolygon, 4326),           -- null: the whole jurisdiction
  status text NOT NULL,
  citation_id text REFERENCES citation(id),
  source_version_id text REFERENCES document_version(id),
  valid daterange NOT NULL,
  known tstzrange NOT NULL,
  EXCLUDE USING gist (id WITH =, source_id WITH =, valid WITH &&, known WITH &&)
);

-- The change feed. seq is assigned under a transaction-level advisory lock held to commit,
-- so no reader ever sees seq k+1 before seq k is committed.
CREATE SEQUENCE change_event_seq;
CREATE TABLE change_event (
  id text PRIMARY KEY,
  seq bigint NOT NULL UNIQUE,
  jurisdiction_id text NOT NULL REFERENCES jurisdiction(id),
  kind text NOT NULL CHECK (kind IN ('adoption', 'amendment', 'repeal', 'map_change')),
  layer text NOT NULL CHECK (layer IN ('authority', 'district', 'district_map', 'overlay')),
  subject jsonb NOT NULL,
  field_path text NOT NULL,
  previous jsonb,
  current jsonb,
  effective_date date,
  adopted_on date,
  detected_at timestamptz NOT NULL,
  ordinance_id text,
  source_version_id text REFERENCES document_version(id)
);
CREATE INDEX change_event_jurisdiction ON change_event (jurisdiction_id, seq);
CREATE INDEX change_event_detected ON change_event (detected_at, seq);

-- What is held per jurisdiction and layer, from which source, how fresh, and what is not held.
CREATE TABLE coverage (
  jurisdiction_id text NOT NULL REFERENCES jurisdiction(id),
  layer text NOT NULL,
  held boolean NOT NULL,
  tier text NOT NULL DEFAULT 'none',           -- full, partial, none
  source_id text REFERENCES source(id),
  last_retrieved_at timestamptz,
  last_changed_at timestamptz,
  earliest_retained date,
  detail jsonb NOT NULL DEFAULT '{}',          -- counts, problems, what is missing
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (jurisdiction_id, layer)
);

-- Answers kept for replay (GET /answer/{id}).
CREATE TABLE answer (
  id text PRIMARY KEY,
  organization_id text NOT NULL REFERENCES organization(id),
  path text NOT NULL,
  request jsonb NOT NULL,
  body jsonb NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);

-- Each pipeline run and what it did (the CLI summary, kept).
CREATE TABLE ingest_run (
  id text PRIMARY KEY,
  jurisdiction_id text REFERENCES jurisdiction(id),
  source_id text REFERENCES source(id),
  started_at timestamptz NOT NULL DEFAULT now(),
  finished_at timestamptz,
  state text NOT NULL DEFAULT 'running' CHECK (state IN ('running', 'succeeded', 'failed', 'partial')),
  summary jsonb NOT NULL DEFAULT '{}'
);
