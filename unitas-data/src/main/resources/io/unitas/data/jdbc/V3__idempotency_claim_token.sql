-- The claim token: a random id the claimant chose for one claim attempt, kept with the record, so that the same
-- claim sent again after its answer was lost is granted again instead of answered "in flight" until the TTL ends.
-- NULL for records claimed before this version, and for claims without a token: those are never granted twice.
-- Portable SQL: PostgreSQL and H2 run it unchanged.
ALTER TABLE unitas_idempotency ADD COLUMN claim_token VARCHAR(64);
