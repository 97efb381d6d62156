-- Indexes of lookups on the answering path (with many towns, a scan by time range would read
-- every town's rows): a jurisdiction's unlisted-use rule and moratoriums by the jurisdiction,
-- and an address by its normalized form, looked up exactly before any fuzzy match.
CREATE INDEX unlisted_use_rule_jurisdiction ON unlisted_use_rule (jurisdiction_id);
CREATE INDEX moratorium_jurisdiction ON moratorium (jurisdiction_id);
CREATE INDEX address_point_normalized ON address_point (normalized);
