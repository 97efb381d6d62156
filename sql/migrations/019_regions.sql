-- Saved regions (rgn_): a named set of jurisdictions an organization defines, used as a scope
-- (spec 4.0.4). Each membership has a valid-time range, so a region resolves at as_of.
CREATE TABLE region (
  id text PRIMARY KEY,
  organization_id text NOT NULL REFERENCES organization(id),
  name text NOT NULL,
  description text,
  version integer NOT NULL DEFAULT 1,          -- raised by every change; the ETag carries it
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX region_org ON region (organization_id, created_at DESC, id DESC);
CREATE UNIQUE INDEX region_org_name ON region (organization_id, lower(name));

CREATE TABLE region_member (
  region_id text NOT NULL REFERENCES region(id) ON DELETE CASCADE,
  jurisdiction_id text NOT NULL REFERENCES jurisdiction(id),
  valid daterange NOT NULL,                    -- [from, through]; unbounded where not given
  EXCLUDE USING gist (region_id WITH =, jurisdiction_id WITH =, valid WITH &&)
);
CREATE INDEX region_member_jurisdiction ON region_member (jurisdiction_id);

-- Statistical areas (sta_: a CBSA, a county set): public data, only as a public source states
-- them. Nothing is held until a source of them is loaded; membership is bitemporal like law.
CREATE TABLE statistical_area (
  id text PRIMARY KEY,                         -- sta_ from (kind, code)
  kind text NOT NULL,                          -- as the source names it: cbsa, csa, metropolitan_division
  code text NOT NULL,                          -- the source's own code
  name text NOT NULL,
  source_id text NOT NULL,                     -- the source that states it
  source_version_id text REFERENCES document_version(id),
  citation_id text REFERENCES citation(id),
  UNIQUE (kind, code)
);

CREATE TABLE statistical_area_member (
  statistical_area_id text NOT NULL REFERENCES statistical_area(id),
  jurisdiction_id text NOT NULL REFERENCES jurisdiction(id),
  source_version_id text REFERENCES document_version(id),
  valid daterange NOT NULL,
  known tstzrange NOT NULL,
  EXCLUDE USING gist (statistical_area_id WITH =, jurisdiction_id WITH =, valid WITH &&, known WITH &&)
);
CREATE INDEX statistical_area_member_jurisdiction ON statistical_area_member (jurisdiction_id);
