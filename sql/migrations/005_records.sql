-- Public property records: parcels, properties and what assessors, tax collectors and
-- recorders publish about them; permits, cases and applications.
-- Parcels and properties are bitemporal like law facts (valid: on record; known: held by us).

CREATE TABLE parcel (
  fact_id bigserial PRIMARY KEY,
  id text NOT NULL,                            -- stable from jurisdiction and parcel_key
  content_sha256 text NOT NULL,
  source_id text NOT NULL,                    -- the source (or manifest) that states it
  jurisdiction_id text NOT NULL REFERENCES jurisdiction(id),
  parcel_key text NOT NULL,                    -- the publisher's id (e.g. Cambridge map-lot)
  apn text,
  map_version_id text REFERENCES map_version(id),
  attributes jsonb NOT NULL DEFAULT '{}',
  geom geometry(MultiPolygon, 4326),            -- null: the publisher's polygon has no area (kept, flagged)
  geom_sha256 text NOT NULL,
  area_m2 double precision,
  valid daterange NOT NULL,
  known tstzrange NOT NULL,
  EXCLUDE USING gist (id WITH =, source_id WITH =, valid WITH &&, known WITH &&)
);
CREATE INDEX parcel_geom ON parcel USING gist (geom);
CREATE INDEX parcel_key ON parcel (jurisdiction_id, parcel_key);
CREATE INDEX parcel_apn ON parcel (jurisdiction_id, apn);

CREATE TABLE property (
  fact_id bigserial PRIMARY KEY,
  id text NOT NULL,                            -- stable from jurisdiction and account key
  content_sha256 text NOT NULL,
  source_id text NOT NULL,                    -- the source (or manifest) that states it
  jurisdiction_id text NOT NULL REFERENCES jurisdiction(id),
  account_key text NOT NULL,                   -- the assessor's own key
  parcel_key text,
  parcel_ids text[] NOT NULL DEFAULT '{}',     -- prc_ ids joined by parcel_key; empty when unmatched
  county_fips char(5),
  label text NOT NULL,
  addresses jsonb NOT NULL DEFAULT '[]',       -- full-form addresses
  address_normalized text[] NOT NULL DEFAULT '{}',
  legal_summary text,
  land_area jsonb,                             -- {value, unit, source}
  current_use jsonb,                           -- {code, description}
  assessor_zoning jsonb,                       -- {code, official:false}
  assessment jsonb,                            -- fields as the roll states them
  tax jsonb,
  ownership jsonb,
  structure jsonb,
  fiscal_year integer,
  source_version_id text REFERENCES document_version(id),
  valid daterange NOT NULL,
  known tstzrange NOT NULL,
  EXCLUDE USING gist (id WITH =, source_id WITH =, valid WITH &&, known WITH &&)
);
CREATE INDEX property_parcel_key ON property (jurisdiction_id, parcel_key);
CREATE INDEX property_address_trgm ON property USING gin (address_normalized);
CREATE INDEX property_label_trgm ON property USING gist (lower(label) gist_trgm_ops);

-- Addresses held for resolution: normalized, trigram indexed, pointing at parcels.
CREATE TABLE address_point (
  jurisdiction_id text NOT NULL REFERENCES jurisdiction(id),
  normalized text NOT NULL,
  raw text NOT NULL,
  parcel_id text,
  property_id text,
  source text NOT NULL,
  PRIMARY KEY (jurisdiction_id, normalized, raw)
);
CREATE INDEX address_point_trgm ON address_point USING gist (normalized gist_trgm_ops);

-- Recorded instruments are documents (doc_type recorded_instrument) with a recording block.
CREATE TABLE recorded_instrument (
  document_id text PRIMARY KEY REFERENCES document(id),
  jurisdiction_id text NOT NULL REFERENCES jurisdiction(id),
  instrument_type text NOT NULL,
  instrument_number text,
  book text,
  page text,
  recorded_on date,
  parties jsonb NOT NULL DEFAULT '[]',         -- [{name, role}]
  property_ids text[] NOT NULL DEFAULT '{}',
  image_public boolean NOT NULL DEFAULT false,
  source_version_id text REFERENCES document_version(id),
  known tstzrange NOT NULL
);
CREATE INDEX recorded_instrument_book ON recorded_instrument (jurisdiction_id, book, page);

CREATE TABLE transaction (
  fact_id bigserial PRIMARY KEY,
  id text NOT NULL,
  content_sha256 text NOT NULL,
  source_id text NOT NULL,                    -- the source (or manifest) that states it
  jurisdiction_id text NOT NULL REFERENCES jurisdiction(id),
  kind text NOT NULL CHECK (kind IN ('sale', 'transfer', 'mortgage', 'assignment')),
  recorded_on date,
  sale_date date,
  consideration_cents bigint,                  -- null when no public source states it
  document_id text REFERENCES document(id),
  book text,
  page text,
  instrument_number text,
  property_ids text[] NOT NULL DEFAULT '{}',
  parties jsonb NOT NULL DEFAULT '[]',
  source_version_id text REFERENCES document_version(id),
  valid daterange NOT NULL DEFAULT daterange(NULL, NULL),
  known tstzrange NOT NULL,
  EXCLUDE USING gist (id WITH =, source_id WITH =, valid WITH &&, known WITH &&)
);
CREATE INDEX transaction_property ON transaction USING gin (property_ids);

-- Permits, cases and applications (one table: kind says which).
CREATE TABLE land_record (
  fact_id bigserial PRIMARY KEY,
  id text NOT NULL,                            -- pmt_, cas_ or apl_
  content_sha256 text NOT NULL,
  source_id text NOT NULL,                    -- the source (or manifest) that states it
  kind text NOT NULL CHECK (kind IN ('permit', 'case', 'application')),
  jurisdiction_id text NOT NULL REFERENCES jurisdiction(id),
  number text NOT NULL,
  body jsonb NOT NULL,                         -- the record in its served shape, minus ids and hrefs
  parcel_ids text[] NOT NULL DEFAULT '{}',
  published_on date,
  source_version_id text REFERENCES document_version(id),
  valid daterange NOT NULL DEFAULT daterange(NULL, NULL),
  known tstzrange NOT NULL,
  EXCLUDE USING gist (id WITH =, source_id WITH =, valid WITH &&, known WITH &&)
);
CREATE INDEX land_record_parcels ON land_record USING gin (parcel_ids);

-- Every fact table is read by its stable id (one fact, all its rows): a plain b-tree for that,
-- beside the exclusion constraint's GiST index, which is for the overlap check.
CREATE INDEX authority_id ON authority (id);
CREATE INDEX section_id ON section (id);
CREATE INDEX district_id ON district (id);
CREATE INDEX district_area_id ON district_area (id);
CREATE INDEX permission_id ON permission (id);
CREATE INDEX unlisted_use_rule_id ON unlisted_use_rule (id);
CREATE INDEX control_id ON control (id);
CREATE INDEX ordinance_id ON ordinance (id);
CREATE INDEX moratorium_id ON moratorium (id);
CREATE INDEX parcel_id ON parcel (id);
CREATE INDEX property_id ON property (id);
CREATE INDEX transaction_id ON transaction (id);
CREATE INDEX land_record_id ON land_record (id);
