package io.unitas.health;

import java.time.Duration;
import java.util.Arrays;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * What one probe asks of its target and what it expects back.
 *
 * @param kind         which protocol to speak
 * @param target       where the target is, in the kind's URL form ({@code postgresql://user@host:5432/db})
 * @param role         the role a database must have ({@link Role#ANY}: whichever it has, it must meet that role's
 *                     expectations)
 * @param maxLag       the largest replication lag a standby may have, or {@link Duration#ZERO} for no limit
 * @param heartbeat    PostgreSQL primary: write a heartbeat row on every probe (a canary write that standbys
 *                     measure their lag against)
 * @param status       HTTP: the accepted status codes, as ranges ({@code 200-299,304})
 * @param bodyContains HTTP: a string that the first 5120 bytes of the body must contain, or empty
 * @param service      gRPC: the service name to {@code Check} ({@code ""} for the whole server)
 * @param unitasSchema PostgreSQL primary: the database holds unitas's tables; read the region's replication positions
 *                     from them on every probe (what it has written and applied, per unit) and report them, so that
 *                     the control plane can compute every unit's lag ({@code unitas-schema: true} in health.yaml)
 */
public record ProbeConfig(Kind kind, String target, Role role, Duration maxLag, boolean heartbeat, String status,
                          String bodyContains, String service, boolean unitasSchema) {

    /** The status codes accepted when none are given, as Route 53 does: 2xx and 3xx. */
    public static final String DEFAULT_STATUS = "200-399";

    /** Requires every part. */
    public ProbeConfig {
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(target, "target");
        Objects.requireNonNull(role, "role");
        Objects.requireNonNull(maxLag, "maxLag");
        Objects.requireNonNull(status, "status");
        Objects.requireNonNull(bodyContains, "bodyContains");
        Objects.requireNonNull(service, "service");
    }

    /** A probe that reads no unitas positions. */
    public ProbeConfig(Kind kind, String target, Role role, Duration maxLag, boolean heartbeat, String status,
                       String bodyContains, String service) {
        this(kind, target, role, maxLag, heartbeat, status, bodyContains, service, false);
    }

    /** A probe of {@code kind} at {@code target} with every option at its default. */
    public static ProbeConfig of(Kind kind, String target) {
        return new ProbeConfig(kind, target, Role.ANY, Duration.ZERO, false, DEFAULT_STATUS, "", "");
    }

    /** This probe reading unitas's positions too ({@code unitas-schema: true}). */
    public ProbeConfig withUnitasSchema() {
        return new ProbeConfig(kind, target, role, maxLag, heartbeat, status, bodyContains, service, true);
    }

    /** The protocols a probe speaks. */
    public enum Kind {
        /** PostgreSQL: role, writability, replication lag. */
        POSTGRES("org.postgresql.Driver", "org.postgresql:postgresql"),
        /** MySQL or MariaDB: {@code read_only}, {@code super_read_only}, replica lag. */
        MYSQL("org.mariadb.jdbc.Driver", "org.mariadb.jdbc:mariadb-java-client"),
        /** Redis: {@code PING}, {@code ROLE}, the replica's link and offset. */
        REDIS("io.lettuce.core.RedisClient", "io.lettuce:lettuce-core"),
        /** HTTP(S): status code and an optional body match. */
        HTTP(null, null),
        /** A TCP connect. */
        TCP(null, null),
        /** The gRPC Health Checking Protocol's {@code Check}. */
        GRPC(null, null);

        private final String driverClass;
        private final String driverArtifact;

        Kind(String driverClass, String driverArtifact) {
            this.driverClass = driverClass;
            this.driverArtifact = driverArtifact;
        }

        /**
         * The driver's Maven coordinates when this kind needs one that is not on the class path: the drivers are
         * optional dependencies, so an application embedding the agent carries only those it probes with.
         */
        public Optional<String> missingDriver() {
            if (driverClass == null) {
                return Optional.empty();
            }
            try {
                Class.forName(driverClass, false, Kind.class.getClassLoader());
                return Optional.empty();
            } catch (ClassNotFoundException e) {
                return Optional.of(driverArtifact);
            }
        }

        /** The lowercase name used in files and commands. */
        public String id() {
            return name().toLowerCase(Locale.ROOT);
        }

        /** Whether the kind is a database with roles and replication. */
        public boolean hasRoles() {
            return this == POSTGRES || this == MYSQL || this == REDIS;
        }

        /** The kind named {@code id}, if any. */
        public static Optional<Kind> of(String id) {
            return Arrays.stream(values()).filter(k -> k.id().equals(id)).findFirst();
        }

        /** Every id, for messages ({@code postgres, mysql, ...}). */
        public static String ids() {
            return Arrays.stream(values()).map(Kind::id).collect(Collectors.joining(", "));
        }
    }

    /** The role a database must have. */
    public enum Role {
        /** Must be the primary, and writable. */
        PRIMARY,
        /** Must be a standby (a replica), replicating, within {@code max-lag}. */
        STANDBY,
        /** Either; a primary must then be writable and a standby within {@code max-lag}. */
        ANY;

        /** The lowercase name used in files and commands. */
        public String id() {
            return name().toLowerCase(Locale.ROOT);
        }

        /** The role named {@code id}; {@code replica} is accepted for {@code standby}. */
        public static Optional<Role> of(String id) {
            if ("replica".equals(id)) {
                return Optional.of(STANDBY);
            }
            return Arrays.stream(values()).filter(r -> r.id().equals(id)).findFirst();
        }
    }
}
