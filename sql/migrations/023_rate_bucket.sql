-- Token buckets per credential and bucket (api/metering/rate.ts), replacing one-second windows.
-- A bucket is held as the time it is full again (full_at, epoch seconds by the database's clock,
-- so every API process reads one clock); tokens now = burst - (full_at - now) * rate. Processes
-- claim tokens in blocks; granted is what the last claim got. A row past full_at is a full
-- bucket, the same as no row, and is swept.
CREATE UNLOGGED TABLE rate_bucket (
  subject text PRIMARY KEY,
  full_at double precision NOT NULL,
  granted integer NOT NULL
);

DROP TABLE rate_window;
