package io.unitas.spring;

import java.util.Optional;
import java.util.function.Function;

import io.unitas.data.DataReadiness;
import io.unitas.data.ReadinessResult;

/**
 * Readiness helpers for repositories, from the data layer's {@link DataReadiness}: a read of an entity that is served
 * from this region's store when it is here (and fresh enough), read from its key's home region when it is not
 * ({@code io.unitas.data.remote}'s home reads, from {@code unitas.readiness.home-reads}), and otherwise refused with
 * a retryable 503 {@code data-not-ready}, never a "not found" only the home could vouch for. The key's home is the
 * unit rules' (and the routing state's, so a switchover moves it).
 *
 * <pre>{@code
 * DataReadiness<String, Account> accounts = readiness.entity("account", repository::findById, Account::decode)
 *         .freshness((id, a) -> a.syncedAt(), Duration.ofSeconds(30))
 *         .build();
 * Account account = UnitasReadiness.orNotReady(accounts.read(userId)).orElseThrow(NotFound::new);
 * }</pre>
 */
public interface UnitasReadiness {

    /**
     * A {@link DataReadiness} builder for one entity type, keyed by its owner's routing key (a user id), with this
     * region, the homes, the local read, the home read and {@code unitas.readiness.*}'s timeout and wait set: add
     * {@code freshness}, {@code merge} or {@code rebuilds} where they apply, then {@code build()} it once.
     *
     * @param type   the entity type, as the home's read server knows it ({@code [a-z0-9._-]})
     * @param local  the repository's read in this region; an exception counts as this store unavailable
     * @param decode the home's payload (the service's own encoding, as its read server wrote it) to an entity
     */
    <V> DataReadiness.Builder<String, V> entity(String type, Function<String, Optional<V>> local,
                                                Function<byte[], V> decode);

    /**
     * A {@link DataReadiness} builder for an entity declared once as a {@link UnitasEntity} bean: its type name, local
     * read and decoding, the same declaration the home-read server serves it from.
     */
    default <V> DataReadiness.Builder<String, V> entity(UnitasEntity<V> entity) {
        return entity(entity.type(), entity::local, entity::decode);
    }

    /**
     * The entity of a read: present when it was found here or at home, empty when the home says there is none (or a
     * rebuild is due); a {@link DataNotReadyException} (503 {@code data-not-ready}, or 400 {@code no-unit}) when
     * neither could vouch for it, which the starter answers as problem+json with {@code Retry-After}.
     */
    static <V> Optional<V> orNotReady(ReadinessResult<V> result) {
        return switch (result.outcome()) {
            case LOCAL, HOME -> Optional.of(result.value());
            case NOT_FOUND, REBUILD -> Optional.empty();
            case NOT_READY, NO_UNIT -> throw new DataNotReadyException(result.problem().toProblemDetail());
        };
    }
}
