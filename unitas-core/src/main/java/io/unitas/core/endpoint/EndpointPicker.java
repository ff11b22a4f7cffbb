package io.unitas.core.endpoint;

import java.util.List;
import java.util.random.RandomGenerator;

/**
 * Chooses one endpoint of a snapshot of candidates, as RFC 2782 says for SRV records, after health: only the
 * candidates of the best {@link EndpointState#tier() tier} present are eligible (an evicted endpoint is never
 * chosen while another exists), of those the lowest priority, and within it one at random in proportion to its
 * weight, weight 0 having a very small chance (1 in total weight + 1) when others weigh more, uniform when all weigh 0. Built once per
 * change of the candidates; picking allocates nothing and never throws.
 */
public interface EndpointPicker {

    /**
     * One candidate.
     *
     * @param priority the SRV priority, lower preferred (0 for plain A/AAAA answers)
     * @param weight the weight within its priority, {@code >= 0} (SRV weight times latency weight)
     * @param state its health
     */
    record Candidate(int priority, long weight, EndpointState state) {

        /** Validates the weight. */
        public Candidate {
            if (weight < 0) {
                throw new IllegalArgumentException("weight: " + weight + " (expected: >= 0)");
            }
            if (state == null) {
                throw new IllegalArgumentException("state: null (expected: an EndpointState)");
            }
        }
    }

    /** A picker over {@code candidates}; the indexes it returns are indexes into that list. */
    static EndpointPicker of(List<Candidate> candidates) {
        return new RfcPicker(candidates);
    }

    /** The index of a candidate chosen by weight with {@code random}, or -1 when there are no candidates. */
    int pick(RandomGenerator random);

    /**
     * The index of the candidate {@code key} sticks to, or -1 when there are none: the CRC-32 of the key over the
     * eligible candidates, ignoring weights so that a moving RTT does not move users.
     */
    int pick(CharSequence key);

    /** The indexes of the candidates that {@link #pick} chooses among, in selection order (a copy). */
    int[] eligible();
}
