package io.unitas.playground;

import io.unitas.core.Region;
import java.util.List;
import java.util.SplittableRandom;

/**
 * What one visit of a drill's virtual user does, drawn from the drill's seed, the virtual user and the visit's number
 * alone: a unitas drill and a naive one with the same seed are offered the same visits, so their counts differ by how
 * each setup answers, not by chance.
 *
 * @param returning    whether a returning user of {@code home} visits (when there is one yet), else a new one
 *                     registers
 * @param home         the user's home region: the faulted region half the time, another one otherwise
 * @param item         the item added to the cart
 * @param loseResponse whether the checkout's response is "lost", so the client sends the same key again
 * @param resendAfter  how long after the visit was due the lost checkout is sent again, in milliseconds
 * @param pick         the seed of the draws that pick a returning user
 */
record VisitPlan(boolean returning, Region home, String item, boolean loseResponse, long resendAfter, long pick) {

    /** Checkouts whose response the client "loses". */
    static final double LOST_RESPONSE_RATE = 0.3;

    /**
     * The plan of visit {@code visit} of virtual user {@code virtualUser} in a drill of {@code durationMillis} seeded
     * with {@code seed}, whose faulted region is the first of {@code regions}.
     */
    static VisitPlan draw(long seed, int virtualUser, long visit, List<Region> regions, long durationMillis) {
        SplittableRandom random = random(seed, virtualUser, visit);
        boolean returning = random.nextBoolean();
        Region home = random.nextBoolean() ? regions.get(0) : regions.get(1 + random.nextInt(regions.size() - 1));
        String item = "item-" + random.nextInt(1000);
        boolean lose = random.nextDouble() < LOST_RESPONSE_RATE;
        long resendAfter = 1000 + random.nextLong(Math.max(1000, durationMillis / 5));
        return new VisitPlan(returning, home, item, lose, resendAfter, random.nextLong());
    }

    /** When virtual user {@code virtualUser}'s first visit is due, within {@code visitEveryMillis} of the start. */
    static long firstDue(long seed, int virtualUser, long visitEveryMillis) {
        return random(seed, virtualUser, -1).nextLong(visitEveryMillis + 1);
    }

    private static SplittableRandom random(long seed, int virtualUser, long visit) {
        return new SplittableRandom((seed * 1_000_003L + virtualUser) * 1_000_000_007L + visit);
    }
}
