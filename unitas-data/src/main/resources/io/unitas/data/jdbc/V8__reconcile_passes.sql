-- Reconciliation by digests (io.unitas.data.merge.DigestReconciler): the last pass of each unit whose copy this
-- region reconciles against its home, what it found and what it left. One row per unit, replaced by each pass and
-- removed once the unit's home is this region. The health agent reads it (unitas-schema: true) so that drift reaches
-- the region's health report and the control plane's console. Portable SQL: PostgreSQL and H2 run it unchanged.
CREATE TABLE unitas_reconcile_passes (
    unit             VARCHAR(200) PRIMARY KEY,
    home             VARCHAR(100) NOT NULL,
    at               BIGINT NOT NULL,
    window_ms        BIGINT NOT NULL,
    ranges_compared  INTEGER NOT NULL,
    ranges_differing INTEGER NOT NULL,
    ranges_pending   INTEGER NOT NULL,
    keys_repaired    INTEGER NOT NULL,
    failure          VARCHAR(2000)
);
