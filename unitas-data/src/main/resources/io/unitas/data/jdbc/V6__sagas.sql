-- Sagas (io.unitas.data.saga): one row per saga, written before and after every step by the coordinator that holds
-- its lease; one row per step execution or compensation; the operators' retries and resolutions of stuck sagas; and,
-- in each store a step writes to, which steps of which saga were applied or compensated there.
-- Portable SQL: PostgreSQL and H2 run it unchanged.

-- state and step are the io.unitas.core.saga.SagaStatus; owner, lease_epoch and lease_until the lease (every write
-- of a coordinator is conditioned on its owner and epoch, so one that lost its lease writes nothing).
CREATE TABLE unitas_sagas (
    id              VARCHAR(64) PRIMARY KEY,
    name            VARCHAR(200) NOT NULL,
    payload         TEXT NOT NULL,
    state           VARCHAR(20) NOT NULL,
    step            INTEGER NOT NULL,
    attempts        INTEGER NOT NULL,
    compensating    BOOLEAN NOT NULL,
    next_attempt_at BIGINT NOT NULL,
    owner           VARCHAR(200),
    lease_epoch     BIGINT NOT NULL,
    lease_until     BIGINT NOT NULL,
    last_error      VARCHAR(2000),
    created_at      BIGINT NOT NULL,
    updated_at      BIGINT NOT NULL
);

-- What recovery scans: the sagas not ended, by when they are due.
CREATE INDEX unitas_sagas_open ON unitas_sagas (state, next_attempt_at);

-- action is execute or compensate; status running (written before the step), succeeded, failed or refused (after).
CREATE TABLE unitas_saga_steps (
    saga_id     VARCHAR(64) NOT NULL,
    step_no     INTEGER NOT NULL,
    action      VARCHAR(10) NOT NULL,
    name        VARCHAR(200) NOT NULL,
    status      VARCHAR(20) NOT NULL,
    attempts    INTEGER NOT NULL,
    started_at  BIGINT NOT NULL,
    finished_at BIGINT,
    error       VARCHAR(2000),
    PRIMARY KEY (saga_id, step_no, action)
);

-- Every retry or resolution of a stuck saga: who, when, why.
CREATE TABLE unitas_saga_interventions (
    saga_id VARCHAR(64) NOT NULL,
    at      BIGINT NOT NULL,
    who     VARCHAR(200) NOT NULL,
    action  VARCHAR(20) NOT NULL,
    reason  VARCHAR(2000) NOT NULL,
    PRIMARY KEY (saga_id, at, action)
);

-- In a store a step writes to: whether step (saga_id, step) was applied and whether it was compensated there. The
-- row is locked by both, so a compensation that ran first makes a late execution a no-op (io.unitas.data.saga.SagaSteps).
CREATE TABLE unitas_saga_applied (
    saga_id        VARCHAR(64) NOT NULL,
    step           VARCHAR(200) NOT NULL,
    executed_at    BIGINT,
    compensated_at BIGINT,
    PRIMARY KEY (saga_id, step)
);
