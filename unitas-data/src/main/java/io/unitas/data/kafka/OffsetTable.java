package io.unitas.data.kafka;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.HashMap;
import java.util.Map;
import javax.sql.DataSource;
import org.apache.kafka.common.TopicPartition;

/**
 * {@code unitas_kafka_offsets} in the receiving region's database: per partition read, the offset its receiver reads
 * from after a restart. Written after the changes it covers committed, so it never passes a change not applied; a
 * change read again from it is a duplicate the applier skips. PostgreSQL and H2. On PostgreSQL the write commits
 * without waiting for its WAL flush: lost in a crash, the offset before it is read from, and what lies between is read
 * again as duplicates; so a receiving pass waits for one disk flush (its changes'), not two.
 */
final class OffsetTable {

    private final DataSource dataSource;
    private volatile boolean created;
    private volatile boolean postgres;

    OffsetTable(DataSource dataSource) {
        this.dataSource = dataSource;
    }

    private void create(Connection c) throws SQLException {
        if (created) {
            return;
        }
        try (Statement s = c.createStatement()) {
            s.execute("CREATE TABLE IF NOT EXISTS unitas_kafka_offsets (topic VARCHAR(249) NOT NULL,"
                      + " partition_no INT NOT NULL, next_offset BIGINT NOT NULL, PRIMARY KEY (topic, partition_no))");
        }
        postgres = "PostgreSQL".equals(c.getMetaData().getDatabaseProductName());
        created = true;
    }

    Map<TopicPartition, Long> read() {
        try (Connection c = dataSource.getConnection()) {
            c.setAutoCommit(true);
            create(c);
            Map<TopicPartition, Long> offsets = new HashMap<>();
            try (PreparedStatement ps = c.prepareStatement("SELECT topic, partition_no, next_offset"
                                                           + " FROM unitas_kafka_offsets");
                 ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    offsets.put(new TopicPartition(rs.getString(1), rs.getInt(2)), rs.getLong(3));
                }
            }
            return offsets;
        } catch (SQLException e) {
            throw new IllegalStateException("unitas_kafka_offsets: cannot read: " + e.getMessage(), e);
        }
    }

    void write(Map<TopicPartition, Long> offsets) {
        try (Connection c = dataSource.getConnection()) {
            c.setAutoCommit(true);
            create(c);
            c.setAutoCommit(false);
            if (postgres) {
                try (Statement s = c.createStatement()) {
                    s.execute("SET LOCAL synchronous_commit TO OFF");
                }
            }
            try (PreparedStatement update = c.prepareStatement("UPDATE unitas_kafka_offsets SET next_offset = ?"
                                                               + " WHERE topic = ? AND partition_no = ?");
                 PreparedStatement insert = c.prepareStatement("INSERT INTO unitas_kafka_offsets (topic,"
                                                               + " partition_no, next_offset) VALUES (?, ?, ?)")) {
                for (Map.Entry<TopicPartition, Long> o : offsets.entrySet()) {
                    update.setLong(1, o.getValue());
                    update.setString(2, o.getKey().topic());
                    update.setInt(3, o.getKey().partition());
                    if (update.executeUpdate() == 0) {
                        insert.setString(1, o.getKey().topic());
                        insert.setInt(2, o.getKey().partition());
                        insert.setLong(3, o.getValue());
                        insert.executeUpdate();
                    }
                }
                c.commit();
            } catch (SQLException e) {
                c.rollback();
                throw e;
            }
        } catch (SQLException e) {
            throw new IllegalStateException("unitas_kafka_offsets: cannot write: " + e.getMessage(), e);
        }
    }
}
