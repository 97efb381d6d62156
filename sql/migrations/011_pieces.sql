-- Spatial probes read whole polygons. Some are huge (a city's road parcel: 18,000 vertices over
-- the whole city; zoning districts of a thousand), so a probe would read and test them for every
-- point near them. Such polygons are also kept as small pieces (ST_Subdivide), which probes test
-- instead. Pieces belong to one fact row (fact_id): facts are never changed in place, so pieces
-- never go stale.

-- Parcels: only the huge ones are cut (subdivided); the others are probed as they are.
ALTER TABLE parcel ADD COLUMN subdivided boolean NOT NULL DEFAULT false;
CREATE TABLE parcel_piece (
  fact_id bigint NOT NULL REFERENCES parcel(fact_id),
  geom geometry(Geometry, 4326) NOT NULL
);
CREATE INDEX parcel_piece_geom ON parcel_piece USING gist (geom);
CREATE INDEX parcel_piece_fact ON parcel_piece (fact_id);

-- Mapped district areas: all are cut (a town has hundreds, not millions); district shares of a
-- location are summed over the pieces it touches.
CREATE TABLE district_area_piece (
  fact_id bigint NOT NULL REFERENCES district_area(fact_id),
  geom geometry(Geometry, 4326) NOT NULL
);
CREATE INDEX district_area_piece_geom ON district_area_piece USING gist (geom);
CREATE INDEX district_area_piece_fact ON district_area_piece (fact_id);
