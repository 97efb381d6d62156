-- GET /permission walks the jurisdictions in scope in order and, for each, its districts in force
-- and their cells of the uses asked:
-- * a state's (or county's) jurisdictions by name, so a page reads the jurisdictions it needs and
--   stops, instead of sorting every jurisdiction of the state first;
-- * a district's cells of one use by one index probe, instead of every cell of the district (a
--   few hundred in a real code, times the districts of every town in scope).
CREATE INDEX jurisdiction_state_name ON jurisdiction (fips_state, name, id);
CREATE INDEX permission_district_use ON permission (district_id, use_slug);
