-- Place batches: up to 500 locations resolved together; each item can be overridden later.
CREATE TABLE place_batch (
  id text PRIMARY KEY,
  organization_id text NOT NULL REFERENCES organization(id),
  created_at timestamptz NOT NULL DEFAULT now(),
  item_count integer NOT NULL
);

CREATE TABLE place_batch_item (
  batch_id text NOT NULL REFERENCES place_batch(id),
  ref text NOT NULL,
  ordinal integer NOT NULL,
  input jsonb NOT NULL,
  resolution jsonb NOT NULL,
  answer jsonb,
  overridden_at timestamptz,
  override jsonb,
  PRIMARY KEY (batch_id, ref)
);
