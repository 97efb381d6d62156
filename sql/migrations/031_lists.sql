-- Lists of places (spec 2.8, 4.9): an organization's saved lists (lst_) of sites (lsi_), each a
-- site of one or more parcels. list_item_parcel keeps when each parcel joined its site, so a
-- monitor can watch a place added later from when it was added.
CREATE TABLE list (
  id text PRIMARY KEY,                              -- lst_
  organization_id text NOT NULL REFERENCES organization(id),
  name text NOT NULL,
  description text,
  version integer NOT NULL DEFAULT 1,               -- raised by every change to its own fields; the ETag carries it
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX list_org ON list (organization_id, created_at DESC, id DESC);

CREATE TABLE list_item (
  id text PRIMARY KEY,                              -- lsi_
  list_id text NOT NULL REFERENCES list(id) ON DELETE CASCADE,
  kind text NOT NULL DEFAULT 'site' CHECK (kind = 'site'),
  name text,
  status text NOT NULL DEFAULT 'new' CHECK (status IN ('new', 'reviewing', 'pursuing', 'passed')),
  notes text,
  address text,                                     -- as given when added by address; cleared when the parcel set is replaced
  filter jsonb CHECK (filter IS NULL OR jsonb_typeof(filter) = 'object'),
  added_by text NOT NULL,                           -- usr_ (a person's session) or the credential's key_/cln_ id
  version integer NOT NULL DEFAULT 1,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX list_item_list ON list_item (list_id, created_at DESC, id DESC);

-- The parcels of a site, in the order given. parcel.id is not unique (bitemporal rows), so no
-- foreign key: ids are checked against the parcels held when written.
CREATE TABLE list_item_parcel (
  item_id text NOT NULL REFERENCES list_item(id) ON DELETE CASCADE,
  parcel_id text NOT NULL,
  position integer NOT NULL,
  added_at timestamptz NOT NULL DEFAULT now(),      -- kept while the parcel stays in the site
  PRIMARY KEY (item_id, parcel_id)
);
CREATE INDEX list_item_parcel_parcel ON list_item_parcel (parcel_id);
