package io.unitas.core.health;

/**
 * Anti-flap thresholds of a check: {@code fall} consecutive failures take an up check down, {@code rise}
 * consecutive successes bring a down check back up (HAProxy's words).
 *
 * @param fall consecutive failures needed to go down, at least 1
 * @param rise consecutive successes needed to come back up, at least 1
 */
public record Thresholds(int fall, int rise) {

    /** The defaults: {@code fall 2}, {@code rise 2}. */
    public static final Thresholds DEFAULT = new Thresholds(2, 2);

    /** Rejects counts below 1. */
    public Thresholds {
        if (fall < 1) {
            throw new IllegalArgumentException("fall: " + fall + " (expected: >= 1)");
        }
        if (rise < 1) {
            throw new IllegalArgumentException("rise: " + rise + " (expected: >= 1)");
        }
    }
}
