-- Monitors (spec 2.8, 4.9): one per list, watching its places for new permits and cases and for
-- changes of the law there. A match is written in the transaction that loads what it matched (the
-- feed's records, the change events), with the webhook event it produced (store/monitors/).
CREATE TABLE monitor (
  id text PRIMARY KEY,                              -- mon_
  organization_id text NOT NULL REFERENCES organization(id),
  list_id text NOT NULL REFERENCES list(id) ON DELETE CASCADE,
  active boolean NOT NULL DEFAULT true,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  deleted_at timestamptz                            -- stopped (DELETE): gone for its organization, its matches kept
);
-- one live monitor per list
CREATE UNIQUE INDEX monitor_list ON monitor (list_id) WHERE deleted_at IS NULL;
CREATE INDEX monitor_org ON monitor (organization_id, created_at DESC, id DESC) WHERE deleted_at IS NULL;

-- What a monitor matched: a permit, application or case (subject pmt_/apl_/cas_) or a change
-- event (chg_, kind law) at a site of its list, and the webhook event that match produced (one
-- each). item_id has no foreign key: a site removed later leaves its matches on record.
CREATE TABLE monitor_match (
  event_id text PRIMARY KEY REFERENCES webhook_event(id),
  monitor_id text NOT NULL REFERENCES monitor(id) ON DELETE CASCADE,
  kind text NOT NULL CHECK (kind IN ('permit', 'case', 'law')),
  subject_id text NOT NULL,
  seq bigint,                                       -- the change event's seq (kind law)
  item_id text NOT NULL,
  parcel_ids text[] NOT NULL,                       -- the site's parcels the subject is about
  matched_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (monitor_id, subject_id, item_id)
);
CREATE INDEX monitor_match_page ON monitor_match (monitor_id, matched_at DESC, event_id DESC);
