-- unitas's own tables, beside the service's schema. Portable SQL: PostgreSQL and H2 run it unchanged.
-- Times are epoch milliseconds (BIGINT), so no time-zone rules differ between databases.

-- One record per Idempotency-Key: in flight while response_status is NULL.
CREATE TABLE unitas_idempotency (
    idem_key        VARCHAR(300) PRIMARY KEY,
    user_id         VARCHAR(200) NOT NULL,
    payload_hash    VARCHAR(200) NOT NULL,
    response_status INTEGER,
    response_body   VARCHAR,
    created_at      BIGINT NOT NULL,
    expires_at      BIGINT NOT NULL
);

-- The last sequence written per unit. Appending a change updates this row in the writer's transaction: the row
-- lock orders one unit's writers, so its sequence has no gaps and commits in order.
CREATE TABLE unitas_outbox_units (
    unit     VARCHAR(200) PRIMARY KEY,
    last_seq BIGINT NOT NULL
);

-- The changes written here, kept until every other region has acknowledged them.
CREATE TABLE unitas_outbox (
    unit        VARCHAR(200) NOT NULL,
    seq         BIGINT NOT NULL,
    entity_type VARCHAR(100) NOT NULL,
    entity_key  VARCHAR(300) NOT NULL,
    payload     BYTEA NOT NULL,
    written_at  BIGINT NOT NULL,
    PRIMARY KEY (unit, seq)
);

-- How far this region has applied each other region's changes, per unit: updated in the transaction that applies.
CREATE TABLE unitas_applied (
    origin      VARCHAR(63) NOT NULL,
    unit        VARCHAR(200) NOT NULL,
    applied_seq BIGINT NOT NULL,
    applied_at  BIGINT NOT NULL,
    PRIMARY KEY (origin, unit)
);
