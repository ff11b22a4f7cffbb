package io.unitas.spring.merged;

import java.sql.PreparedStatement;
import java.util.Optional;

import io.unitas.core.crdt.MergePolicy;
import io.unitas.core.crdt.PnCounter;
import io.unitas.core.crdt.Siblings;
import io.unitas.data.merge.Codec;
import io.unitas.spring.UnitasEntity;
import io.unitas.spring.UnitasMerge;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.annotation.Bean;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

/**
 * A profile service whose users may be written in any region: a user's points are a counter (every increment
 * survives), their delivery address is kept as siblings when two regions set it concurrently (listed, resolved by
 * an operator). The points are also materialized into the service's own table {@code points}.
 */
@SpringBootApplication
public class MergedProfileApp {

    static final Codec<PnCounter> POINTS = Codec.counter();
    static final Codec<Siblings<String>> ADDRESS = Codec.siblings(Codec.utf8());

    @Bean
    UnitasEntity<PnCounter> pointsEntity(UnitasMerge merge) {
        return UnitasEntity.<PnCounter>builder("points", key -> merge.read("points", key))
                           .codec(POINTS::encode, POINTS::decode)
                           .mergePolicy(MergePolicy.counter())
                           .materializedBy((tx, key, state) -> {
                               try (PreparedStatement ps = tx.prepareStatement(
                                       "INSERT INTO points (user_id, n) VALUES (?, ?)"
                                       + " ON CONFLICT (user_id) DO UPDATE SET n = EXCLUDED.n")) {
                                   ps.setString(1, key);
                                   ps.setLong(2, state.value());
                                   ps.executeUpdate();
                               }
                           })
                           .build();
    }

    @Bean
    UnitasEntity<Siblings<String>> addressEntity(UnitasMerge merge) {
        return UnitasEntity.<Siblings<String>>builder("address", key -> merge.read("address", key))
                           .codec(ADDRESS::encode, ADDRESS::decode)
                           .mergePolicy(MergePolicy.siblings())
                           .build();
    }

    /** The service's writes, each in its own transaction. */
    @Service
    public static class Profiles {
        private final UnitasMerge merge;
        private final JdbcTemplate jdbc;

        Profiles(UnitasMerge merge, JdbcTemplate jdbc) {
            this.merge = merge;
            this.jdbc = jdbc;
            jdbc.execute("CREATE TABLE IF NOT EXISTS points (user_id VARCHAR(64) PRIMARY KEY, n BIGINT NOT NULL)");
        }

        /** Adds {@code n} points to {@code userId} in this region; the total as this region knows it. */
        @Transactional
        public long addPoints(UnitasEntity<PnCounter> points, String userId, long n) {
            return merge.write(points, userId, userId, s -> s.orElse(PnCounter.zero()).add(merge.region(), n))
                        .value();
        }

        /** Sets the address of {@code userId}, having seen what this region holds. */
        @Transactional
        public void setAddress(UnitasEntity<Siblings<String>> address, String userId, String value) {
            merge.write(address, userId, userId, s -> s.orElse(Siblings.empty()).write(merge.region(), value));
        }

        /** The points in the service's own table. */
        public Optional<Long> pointsRow(String userId) {
            return jdbc.query("SELECT n FROM points WHERE user_id = ?", (r, i) -> r.getLong(1), userId).stream()
                       .findFirst();
        }
    }
}
