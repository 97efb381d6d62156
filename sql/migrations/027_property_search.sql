-- GET /property?owner_name= and GET /transaction?party_name= look names up exactly across every
-- jurisdiction held: names are compared folded (upper case, runs of spaces as one, trimmed), and
-- each table indexes its folded names (GIN over a text[]), so a name is a few index probes however
-- many towns are held. GET /transaction pages a scope's instruments by recording date.

-- A public-record name as compared: case and runs of spaces do not matter, punctuation does.
CREATE FUNCTION record_name(name text) RETURNS text
  LANGUAGE sql IMMUTABLE PARALLEL SAFE RETURNS NULL ON NULL INPUT
  AS $$ SELECT upper(btrim(regexp_replace(name, '\s+', ' ', 'g'))) $$;

-- The folded names of a JSON array of strings (a roll's owners).
CREATE FUNCTION record_names(names jsonb) RETURNS text[]
  LANGUAGE sql IMMUTABLE PARALLEL SAFE
  AS $$ SELECT coalesce(array_agg(record_name(x)) FILTER (WHERE x IS NOT NULL AND btrim(x) <> ''), '{}')
          FROM jsonb_array_elements_text(CASE WHEN jsonb_typeof(names) = 'array' THEN names ELSE '[]'::jsonb END) x $$;

-- The folded names of a JSON array of parties ({name, role}), of every role.
CREATE FUNCTION record_party_names(parties jsonb) RETURNS text[]
  LANGUAGE sql IMMUTABLE PARALLEL SAFE
  AS $$ SELECT coalesce(array_agg(record_name(x->>'name')) FILTER (WHERE btrim(coalesce(x->>'name', '')) <> ''), '{}')
          FROM jsonb_array_elements(CASE WHEN jsonb_typeof(parties) = 'array' THEN parties ELSE '[]'::jsonb END) x $$;

CREATE INDEX property_owner_names ON property USING gin (record_names(ownership->'owners'));
CREATE INDEX transaction_party_names ON transaction USING gin (record_party_names(parties->'parties'));
CREATE INDEX transaction_jurisdiction_recorded ON transaction (jurisdiction_id, recorded_on);
CREATE INDEX property_jurisdiction_label ON property (jurisdiction_id, label, id);
-- the properties on parcels (a location's parcels, a parcel's accounts) by parcel id
CREATE INDEX property_parcel_ids ON property USING gin (parcel_ids);
