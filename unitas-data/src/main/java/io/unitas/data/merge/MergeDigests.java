package io.unitas.data.merge;

import io.unitas.core.reconcile.RangeDigest;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import javax.sql.DataSource;

/**
 * One region's copy of the merged entities as reconciliation reads it: a unit's rows of one type cut into
 * {@code ranges} hash ranges of the key, each summarised by a {@link RangeDigest}, and the rows of one range.
 * Both sides of a comparison must cut alike, so the range of a key is fixed: the first 31 bits of the MD5 of its
 * UTF-8 bytes, modulo the number of ranges; a row's hash is the first 64 bits of the MD5 of its key, a zero byte and
 * its stored state.
 */
public interface MergeDigests {

    /**
     * One row of a range.
     *
     * @param state       the stored state, as its codec wrote it
     * @param writtenHere whether the region holding the copy wrote it itself
     */
    record Row(byte[] state, boolean writtenHere) {}

    /**
     * Some rows of ranges, in key order, and the key to ask the next page after (empty: this was the last page).
     *
     * @param rows the rows by key, in key order
     * @param next the last key of this page when more may follow
     */
    record Page(Map<String, Row> rows, Optional<String> next) {}

    /**
     * The copy in {@code dataSource}'s {@code unitas_merge_state}, digested by PostgreSQL itself (one aggregate
     * statement per unit and type: the rows never leave the database to be digested).
     */
    static MergeDigests postgres(DataSource dataSource) {
        return new PostgresMergeDigests(dataSource);
    }

    /**
     * The digest of every non-empty range of {@code unit}'s entities of {@code type}.
     *
     * @throws IllegalStateException when the database cannot be read
     */
    Map<Integer, RangeDigest> digests(String unit, String type, int ranges);

    /**
     * The rows in the ranges {@code which} of {@code unit}'s entities of {@code type}, by key: one read of the unit's
     * rows however many ranges differ.
     *
     * @throws IllegalStateException when the database cannot be read
     */
    Map<String, Row> rows(String unit, String type, int ranges, Collection<Integer> which);

    /**
     * At most {@code limit} rows of the ranges {@code which}, in key order, of the keys after {@code after} ("" from
     * the first): what is sent over the network a bounded page at a time. By default the ranges are read whole and
     * cut here; a database that can order and limit does it itself.
     *
     * @throws IllegalStateException when the copy cannot be read
     */
    default Page page(String unit, String type, int ranges, Collection<Integer> which, String after, int limit) {
        if (limit < 1) {
            throw new IllegalArgumentException("limit: " + limit + " (expected: >= 1)");
        }
        TreeMap<String, Row> sorted = new TreeMap<>(rows(unit, type, ranges, which));
        Map<String, Row> page = new LinkedHashMap<>();
        String last = after;
        for (Map.Entry<String, Row> e : sorted.tailMap(after, false).entrySet()) {
            if (page.size() == limit) {
                return new Page(page, Optional.of(last));
            }
            page.put(e.getKey(), e.getValue());
            last = e.getKey();
        }
        return new Page(page, Optional.empty());
    }

    /** The range of {@code key} among {@code ranges}: the first 31 bits of the MD5 of its UTF-8 bytes, modulo. */
    static int range(String key, int ranges) {
        try {
            byte[] md5 = MessageDigest.getInstance("MD5").digest(key.getBytes(StandardCharsets.UTF_8));
            int first = ((md5[0] & 0xff) << 24) | ((md5[1] & 0xff) << 16) | ((md5[2] & 0xff) << 8) | (md5[3] & 0xff);
            return (first & Integer.MAX_VALUE) % ranges;
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("MD5: not in this JVM (every JVM has it)", e);
        }
    }
}
