package io.unitas.config.internal;

import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Durations as unitas files and commands write them: a whole number and a unit, {@code 500ms}, {@code 5s},
 * {@code 2m}, {@code 1h}. One format everywhere, so a value copied from a file works on the command line.
 */
public final class DurationFormat {

    private static final Pattern TEXT = Pattern.compile("(\\d{1,9})(ms|s|m|h)");

    private DurationFormat() {}

    /** Parses {@code text}, or throws {@link IllegalArgumentException} saying what was expected. */
    public static Duration parse(String text) {
        Matcher m = TEXT.matcher(text == null ? "" : text.trim());
        if (!m.matches()) {
            throw new IllegalArgumentException("'" + text + "' (expected: a duration like 500ms, 5s, 2m or 1h)");
        }
        long n = Long.parseLong(m.group(1));
        return switch (m.group(2)) {
            case "ms" -> Duration.ofMillis(n);
            case "s" -> Duration.ofSeconds(n);
            case "m" -> Duration.ofMinutes(n);
            default -> Duration.ofHours(n);
        };
    }

    /** {@link #parse}, refusing zero: for intervals and timeouts, where 0 would mean "never" or "at once". */
    public static Duration parsePositive(String text) {
        Duration d = parse(text);
        if (d.isZero()) {
            throw new IllegalArgumentException("'" + text + "' (expected: a duration above 0, like 500ms, 5s, 2m or 1h)");
        }
        return d;
    }

    /** The shortest exact text for {@code duration} in this format ({@code 1500ms}, {@code 5s}). */
    public static String format(Duration duration) {
        long ms = duration.toMillis();
        if (ms % 3_600_000 == 0 && ms != 0) {
            return ms / 3_600_000 + "h";
        }
        if (ms % 60_000 == 0 && ms != 0) {
            return ms / 60_000 + "m";
        }
        return ms % 1000 == 0 ? ms / 1000 + "s" : ms + "ms";
    }
}
