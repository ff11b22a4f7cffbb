package io.unitas.spring.boot4replicated;

import java.nio.charset.StandardCharsets;
import java.sql.PreparedStatement;

import io.unitas.spring.UnitasChangeHandler;
import io.unitas.spring.UnitasOutbox;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.context.annotation.Bean;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

/**
 * A Spring Boot 4 service replicated between regions on {@code @Transactional} and {@code JdbcTemplate}: a note
 * written here is appended to the outbox in its transaction, and another region's notes are written by a
 * {@link UnitasChangeHandler} bean, which a region may lack ({@code notes.handler: false}).
 */
@SpringBootApplication
public class Boot4NotesApp {

    @Bean
    @ConditionalOnProperty(name = "notes.handler", matchIfMissing = true)
    UnitasChangeHandler noteChanges() {
        return UnitasChangeHandler.of("note", (tx, change) -> {
            try (PreparedStatement ps = tx.prepareStatement("MERGE INTO note (id, text) KEY (id) VALUES (?, ?)")) {
                ps.setString(1, change.key());
                ps.setString(2, new String(change.payload(), StandardCharsets.UTF_8));
                ps.executeUpdate();
            }
        });
    }

    /** The notes table and its transactions. */
    @Service
    public static class Notes {
        private final JdbcTemplate jdbc;
        private final UnitasOutbox outbox;

        Notes(JdbcTemplate jdbc, UnitasOutbox outbox) {
            this.jdbc = jdbc;
            this.outbox = outbox;
            jdbc.execute("CREATE TABLE IF NOT EXISTS note (id VARCHAR(64) PRIMARY KEY, text VARCHAR(1000) NOT NULL)");
        }

        /** Writes a note of {@code userId} and appends its change. */
        @Transactional
        public void write(String userId, String id, String text) {
            jdbc.update("INSERT INTO note (id, text) VALUES (?, ?)", id, text);
            outbox.append(userId, "note", id, text.getBytes(StandardCharsets.UTF_8));
        }

        /** The note {@code id}, or null. */
        public String read(String id) {
            return jdbc.query("SELECT text FROM note WHERE id = ?", (r, i) -> r.getString(1), id).stream()
                       .findFirst().orElse(null);
        }
    }
}
