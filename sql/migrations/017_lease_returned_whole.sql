-- A lease whose whole amount went back unspent (every call it served failed or was refused)
-- shrinks to zero: that is a returned lease, not an invalid one (the old CHECK refused it, and
-- the refusal ended the API process).
ALTER TABLE credit_lease DROP CONSTRAINT credit_lease_amount_check;
ALTER TABLE credit_lease ADD CONSTRAINT credit_lease_amount_check CHECK (amount >= 0);
