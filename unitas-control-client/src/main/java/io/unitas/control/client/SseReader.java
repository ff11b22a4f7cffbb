package io.unitas.control.client;

/**
 * Reads server-sent events line by line (WHATWG HTML, "server-sent events"): fields up to a blank line make an
 * event; comments (the server's heartbeats) and other event types are skipped. A {@code state} event whose id is
 * not a revision is reported as bad, never thrown: one bad event must not end the stream.
 */
final class SseReader {

    /** Where events go. */
    interface Sink {
        /** A {@code state} event. */
        void state(long revision, String data);

        /** An event skipped, and why. */
        void bad(String why);
    }

    private static final int LONGEST_ID = 19; // digits of Long.MAX_VALUE

    private String id;
    private String event = "message";
    private final StringBuilder data = new StringBuilder();

    /** Takes one line (without its line break). */
    void line(String line, Sink sink) {
        if (line.isEmpty()) {
            dispatch(sink);
        } else if (line.startsWith("id:")) {
            id = value(line, 3);
        } else if (line.startsWith("event:")) {
            event = value(line, 6);
        } else if (line.startsWith("data:")) {
            if (data.length() > 0) {
                data.append('\n');
            }
            data.append(value(line, 5));
        }
    }

    private void dispatch(Sink sink) {
        try {
            if (data.length() == 0 || !"state".equals(event)) {
                return;
            }
            if (id == null || id.isEmpty() || id.length() > LONGEST_ID || !id.chars().allMatch(Character::isDigit)) {
                sink.bad("event id '" + abbreviate(id) + "' (expected: a revision, a whole number >= 0)");
                return;
            }
            long revision;
            try {
                revision = Long.parseLong(id);
            } catch (NumberFormatException e) {
                sink.bad("event id '" + id + "' (expected: a revision, a whole number >= 0)");
                return;
            }
            sink.state(revision, data.toString());
        } finally {
            id = null;
            event = "message";
            data.setLength(0);
        }
    }

    private static String value(String line, int from) {
        return line.length() > from && line.charAt(from) == ' ' ? line.substring(from + 1) : line.substring(from);
    }

    private static String abbreviate(String s) {
        return s == null ? "" : s.length() <= 40 ? s : s.substring(0, 40) + "...";
    }
}
