-- Merge by declared policy (io.unitas.data.merge): each merged entity's replicated state (a CRDT, with its version
-- vectors), the ones whose policy could not merge concurrent writes (siblings, listed until resolved), and every
-- resolution on record. Portable SQL: PostgreSQL and H2 run it unchanged.

-- state is the entity's canonical encoding (io.unitas.data.merge.Codec); written_here_at is when this region last
-- wrote it itself (NULL: only ever received), which tells reconciliation a row on its way home from a stray one.
CREATE TABLE unitas_merge_state (
    entity_type     VARCHAR(100) NOT NULL,
    entity_key      VARCHAR(300) NOT NULL,
    unit            VARCHAR(200) NOT NULL,
    state           BYTEA NOT NULL,
    updated_at      BIGINT NOT NULL,
    written_here_at BIGINT,
    PRIMARY KEY (entity_type, entity_key)
);

-- What reconciliation reads: one unit's entities of one type.
CREATE INDEX unitas_merge_state_unit ON unitas_merge_state (unit, entity_type);

-- Open siblings: entities holding concurrent writes their policy keeps side by side. Written and removed under the
-- state row's lock, in the transaction that stored the state.
CREATE TABLE unitas_siblings (
    entity_type VARCHAR(100) NOT NULL,
    entity_key  VARCHAR(300) NOT NULL,
    unit        VARCHAR(200) NOT NULL,
    versions    INTEGER NOT NULL,
    detail      VARCHAR(2000) NOT NULL,
    detected_at BIGINT NOT NULL,
    updated_at  BIGINT NOT NULL,
    PRIMARY KEY (entity_type, entity_key)
);

-- Every resolution of siblings: who, when, why, what was open and what was chosen.
CREATE TABLE unitas_sibling_resolutions (
    entity_type VARCHAR(100) NOT NULL,
    entity_key  VARCHAR(300) NOT NULL,
    at          BIGINT NOT NULL,
    who         VARCHAR(200) NOT NULL,
    reason      VARCHAR(2000) NOT NULL,
    was         VARCHAR(2000) NOT NULL,
    chosen      VARCHAR(2000) NOT NULL,
    PRIMARY KEY (entity_type, entity_key, at)
);
