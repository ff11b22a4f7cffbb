package io.unitas.data.saga;

import io.unitas.core.saga.SagaStatus;
import java.time.Instant;
import java.util.Optional;

/**
 * A saga as persisted: its id, the saga it runs, its status, the last error of a step and when it last changed.
 *
 * @param owner the coordinator holding its lease, empty when none does
 */
public record SagaRecord(String id, String name, SagaStatus status, Optional<String> lastError,
                         Optional<String> owner, Instant updatedAt) {}
