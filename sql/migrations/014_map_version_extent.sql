-- Where each map version reaches: the box of every feature of its layer held for the source up to
-- and including that version (what it shows and what the versions before it showed). A tile's
-- ETag names the versions whose boxes touch it (tiles/routes.ts), so a cheap index probe tells
-- whether anything in the tile could have changed; a version that removes a feature still
-- touches the tile the feature was in.
ALTER TABLE map_version ADD COLUMN extent geometry(Geometry, 4326);

WITH own AS (
  SELECT m.id, m.document_id, m.jurisdiction_id, m.layer, lower(m.known) AS learnt,
         COALESCE((SELECT ST_Extent(p.geom) FROM parcel p WHERE p.map_version_id = m.id),
                  (SELECT ST_Extent(a.geom) FROM district_area a WHERE a.map_version_id = m.id))::geometry AS box
    FROM map_version m)
UPDATE map_version m SET extent = ST_Envelope(x.box)
  FROM (SELECT o.id, (SELECT ST_Extent(p.box) FROM own p
                       WHERE p.jurisdiction_id = o.jurisdiction_id AND p.layer = o.layer
                         AND p.document_id IS NOT DISTINCT FROM o.document_id AND p.learnt <= o.learnt)::geometry AS box
          FROM own o) x
 WHERE x.id = m.id AND x.box IS NOT NULL;

CREATE INDEX map_version_extent ON map_version USING gist (extent);
