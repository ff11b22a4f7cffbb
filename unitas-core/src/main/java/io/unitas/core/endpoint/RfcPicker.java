package io.unitas.core.endpoint;

import java.util.List;
import java.util.random.RandomGenerator;

import io.unitas.core.internal.Crc32;

/** {@link EndpointPicker}: the eligible group and its running weight sums, computed once. */
final class RfcPicker implements EndpointPicker {

    private final int[] group;
    private final long[] runningSum;
    private final long total;
    private final int zeros;

    RfcPicker(List<Candidate> candidates) {
        int bestTier = Integer.MAX_VALUE;
        int bestPriority = Integer.MAX_VALUE;
        for (Candidate c : candidates) {
            int tier = c.state().tier();
            if (tier < bestTier || tier == bestTier && c.priority() < bestPriority) {
                bestTier = tier;
                bestPriority = c.priority();
            }
        }
        int n = 0;
        for (Candidate c : candidates) {
            if (c.state().tier() == bestTier && c.priority() == bestPriority) {
                n++;
            }
        }
        group = new int[n];
        runningSum = new long[n];
        // RFC 2782: weight-0 records first, so that they are chosen only when the random number is 0.
        int at = 0;
        int zeroCount = 0;
        long sum = 0;
        for (int pass = 0; pass < 2; pass++) {
            for (int i = 0; i < candidates.size(); i++) {
                Candidate c = candidates.get(i);
                boolean zero = c.weight() == 0;
                if (c.state().tier() == bestTier && c.priority() == bestPriority && zero == (pass == 0)) {
                    sum = Math.addExact(sum, c.weight());
                    zeroCount += zero ? 1 : 0;
                    group[at] = i;
                    runningSum[at] = sum;
                    at++;
                }
            }
        }
        total = sum;
        zeros = zeroCount;
    }

    @Override
    public int pick(RandomGenerator random) {
        int n = group.length;
        if (n == 0) {
            return -1;
        }
        if (total == 0) {
            return group[random.nextInt(n)];
        }
        // RFC 2782 draws in [0, total] and gives weight-0 records the draw 0; the positive records then share
        // [1, total] exactly in proportion (the RFC's inclusive draw would give the first one an extra share).
        long r;
        if (zeros > 0) {
            r = random.nextLong(total + 1);
            if (r == 0) {
                return group[random.nextInt(zeros)];
            }
            r--;
        } else {
            r = random.nextLong(total);
        }
        int lo = zeros;
        int hi = n - 1;
        while (lo < hi) { // the first running sum > r
            int mid = (lo + hi) >>> 1;
            if (runningSum[mid] > r) {
                hi = mid;
            } else {
                lo = mid + 1;
            }
        }
        return group[lo];
    }

    @Override
    public int pick(CharSequence key) {
        return group.length == 0 ? -1 : group[Crc32.index(key, group.length)];
    }

    @Override
    public int[] eligible() {
        return group.clone();
    }
}
