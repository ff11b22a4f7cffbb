package io.unitas.data.remote;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import com.linecorp.armeria.common.QueryParams;

import io.unitas.core.Region;
import io.unitas.core.reconcile.RangeDigest;
import io.unitas.data.merge.MergeDigests;

/**
 * A home region's copy of the merged entities, read over the network from its {@link HomeReadServer}: digests in one
 * request per unit and type, rows a page of {@link MergeWire#PAGE} at a time for {@link MergeWire#MAX_WHICH} ranges
 * at most per request. Each request blocks its thread until answered or its deadline passes.
 */
final class RemoteMergeDigests implements MergeDigests {

    private final ArmeriaHomeReadClient client;
    private final Region home;

    RemoteMergeDigests(ArmeriaHomeReadClient client, Region home) {
        this.client = client;
        this.home = home;
    }

    @Override
    public Map<Integer, RangeDigest> digests(String unit, String type, int ranges) {
        checkRanges(ranges);
        return client.mergeCall(home, MergeWire.DIGESTS, query(unit, type, ranges).build(),
                                "digests of " + type + " of unit " + unit,
                                body -> MergeWire.decodeDigests(body, unit, type, ranges));
    }

    @Override
    public Map<String, Row> rows(String unit, String type, int ranges, Collection<Integer> which) {
        checkRanges(ranges);
        List<Integer> all = new ArrayList<>(which);
        Map<String, Row> rows = new HashMap<>();
        for (int from = 0; from < all.size(); from += MergeWire.MAX_WHICH) {
            List<Integer> some = all.subList(from, Math.min(all.size(), from + MergeWire.MAX_WHICH));
            Optional<String> after = Optional.of("");
            while (after.isPresent()) {
                Page page = page(unit, type, ranges, some, after.get());
                rows.putAll(page.rows());
                after = page.next();
            }
        }
        return rows;
    }

    @Override
    public Page page(String unit, String type, int ranges, Collection<Integer> which, String after, int limit) {
        checkRanges(ranges);
        if (limit < MergeWire.PAGE) { // the home answers a fixed page; a smaller one is cut from it here
            return MergeDigests.super.page(unit, type, ranges, which, after, limit);
        }
        if (which.isEmpty() || which.size() > MergeWire.MAX_WHICH) {
            throw new IllegalArgumentException("which: " + which.size() + " ranges (expected: 1 to "
                                               + MergeWire.MAX_WHICH + ")");
        }
        return page(unit, type, ranges, which, after);
    }

    private Page page(String unit, String type, int ranges, Collection<Integer> which, String after) {
        QueryParams query = query(unit, type, ranges)
                .add("which", String.join(",", which.stream().map(String::valueOf).toList()))
                .add("after", after).build();
        return client.mergeCall(home, MergeWire.ROWS, query, "rows of " + type + " of unit " + unit + " after '"
                                + after + "'", body -> MergeWire.decodeRows(body, unit, type));
    }

    private static com.linecorp.armeria.common.QueryParamsBuilder query(String unit, String type, int ranges) {
        return QueryParams.builder().add("unit", unit).add("type", type).add("ranges", Integer.toString(ranges));
    }

    private static void checkRanges(int ranges) {
        if (ranges < 1 || ranges > MergeWire.MAX_RANGES) {
            throw new IllegalArgumentException("ranges: " + ranges + " (expected: 1 to " + MergeWire.MAX_RANGES
                                               + ", what a home serves)");
        }
    }

    @Override
    public String toString() {
        return "RemoteMergeDigests{" + home + '}';
    }
}
