package io.unitas.data.merge;

import io.unitas.core.reconcile.RangeDigest;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import javax.sql.DataSource;

/** {@link MergeDigests} computed by PostgreSQL: md5 per row, summed per range in one aggregate. */
final class PostgresMergeDigests implements MergeDigests {

    // The first 31 bits of md5(key): the key's range, modulo the number of ranges.
    static final String RANGE = "((('x' || substr(md5(entity_key), 1, 8))::bit(32)::int & 2147483647) % ?)";
    // The first 64 bits of md5(key, 0, state), as a signed bigint; summed as numeric, taken modulo 2^64 in Java.
    private static final String ROW_HASH =
            "('x' || substr(md5(convert_to(entity_key, 'UTF8') || '\\x00'::bytea || state), 1, 16))::bit(64)::bigint";

    private final DataSource dataSource;

    PostgresMergeDigests(DataSource dataSource) {
        this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
    }

    @Override
    public Map<Integer, RangeDigest> digests(String unit, String type, int ranges) {
        checkRanges(ranges);
        try (Connection c = dataSource.getConnection();
             PreparedStatement ps = c.prepareStatement("SELECT " + RANGE + " AS r, count(*), sum(" + ROW_HASH + ")"
                                                       + " FROM unitas_merge_state WHERE unit = ? AND entity_type = ?"
                                                       + " GROUP BY 1")) {
            ps.setInt(1, ranges);
            ps.setString(2, unit);
            ps.setString(3, type);
            Map<Integer, RangeDigest> digests = new HashMap<>();
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    digests.put(rs.getInt(1), new RangeDigest(rs.getLong(2),
                                                              rs.getBigDecimal(3).toBigInteger().longValue()));
                }
            }
            return digests;
        } catch (SQLException e) {
            throw new IllegalStateException("unitas_merge_state: cannot digest " + type + " of unit " + unit + ": "
                                            + e.getMessage(), e);
        }
    }

    @Override
    public Map<String, Row> rows(String unit, String type, int ranges, Collection<Integer> which) {
        checkRanges(ranges);
        try (Connection c = dataSource.getConnection();
             PreparedStatement ps = c.prepareStatement("SELECT entity_key, state, written_here_at IS NOT NULL"
                                                       + " FROM unitas_merge_state WHERE unit = ? AND entity_type = ?"
                                                       + " AND " + RANGE + " = ANY (?)")) {
            ps.setString(1, unit);
            ps.setString(2, type);
            ps.setInt(3, ranges);
            ps.setArray(4, c.createArrayOf("integer", which.toArray()));
            Map<String, Row> rows = new HashMap<>();
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    rows.put(rs.getString(1), new Row(rs.getBytes(2), rs.getBoolean(3)));
                }
            }
            return rows;
        } catch (SQLException e) {
            throw new IllegalStateException("unitas_merge_state: cannot read ranges " + which + " of " + type
                                            + " of unit " + unit + ": " + e.getMessage(), e);
        }
    }

    @Override
    public Page page(String unit, String type, int ranges, Collection<Integer> which, String after, int limit) {
        checkRanges(ranges);
        if (limit < 1) {
            throw new IllegalArgumentException("limit: " + limit + " (expected: >= 1)");
        }
        // One row more than the page, to know whether another follows; the key order is the database's own, and so
        // is the "after" it is compared with, so pages neither skip nor repeat a key.
        try (Connection c = dataSource.getConnection();
             PreparedStatement ps = c.prepareStatement("SELECT entity_key, state, written_here_at IS NOT NULL"
                                                       + " FROM unitas_merge_state WHERE unit = ? AND entity_type = ?"
                                                       + " AND " + RANGE + " = ANY (?) AND entity_key > ?"
                                                       + " ORDER BY entity_key LIMIT ?")) {
            ps.setString(1, unit);
            ps.setString(2, type);
            ps.setInt(3, ranges);
            ps.setArray(4, c.createArrayOf("integer", which.toArray()));
            ps.setString(5, after);
            ps.setInt(6, limit + 1);
            Map<String, Row> rows = new LinkedHashMap<>();
            String last = after;
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    if (rows.size() == limit) {
                        return new Page(rows, Optional.of(last));
                    }
                    last = rs.getString(1);
                    rows.put(last, new Row(rs.getBytes(2), rs.getBoolean(3)));
                }
            }
            return new Page(rows, Optional.empty());
        } catch (SQLException e) {
            throw new IllegalStateException("unitas_merge_state: cannot read ranges " + which + " of " + type
                                            + " of unit " + unit + " after '" + after + "': " + e.getMessage(), e);
        }
    }

    private static void checkRanges(int ranges) {
        if (ranges < 1) {
            throw new IllegalArgumentException("ranges: " + ranges + " (expected: >= 1)");
        }
    }
}
