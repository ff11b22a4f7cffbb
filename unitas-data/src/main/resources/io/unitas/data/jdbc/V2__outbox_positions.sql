-- The outbox without a per-unit counter: every change takes the next value of one sequence, its position, and a
-- unit's changes are its rows in position order. Appending no longer locks a row per unit or writes a second table
-- and index; the shipper reads only positions no open transaction can still commit below (see JdbcOutbox).
-- Portable SQL: PostgreSQL and H2 run it unchanged.

-- Refuses to run while V1's outbox still holds changes not applied everywhere: drain it (let every region apply,
-- the shipper trims) before upgrading, as their per-unit sequences do not carry over.
CREATE TABLE unitas_v2_outbox_drained (pending BIGINT NOT NULL CHECK (pending = 0));
INSERT INTO unitas_v2_outbox_drained SELECT COUNT(*) FROM unitas_outbox;
DROP TABLE unitas_v2_outbox_drained;
DROP TABLE unitas_outbox;
DROP TABLE unitas_outbox_units;

-- Positions start above any per-unit sequence V1 handed out, so a region that applied V1's changes sees V2's as new
-- (and an applier of V1 sees a gap and stops visibly instead of taking them for repeats).
CREATE SEQUENCE unitas_outbox_positions START WITH 1000000000000;

-- The changes written here, kept until every other region has applied them. One index: the position.
CREATE TABLE unitas_outbox (
    position_id BIGINT PRIMARY KEY,
    unit        VARCHAR(200) NOT NULL,
    entity_type VARCHAR(100) NOT NULL,
    entity_key  VARCHAR(300) NOT NULL,
    payload     BYTEA NOT NULL,
    written_at  BIGINT NOT NULL
);

-- H2 only (the embedded default has no snapshot horizon): appends update this one row, so they commit in position
-- order. PostgreSQL never touches it.
CREATE TABLE unitas_outbox_lock (
    id       INTEGER PRIMARY KEY,
    appended BIGINT NOT NULL
);
INSERT INTO unitas_outbox_lock (id, appended) VALUES (1, 0);
