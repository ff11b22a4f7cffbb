package io.unitas.control.client;

/**
 * How a watch is doing, for metrics and health pages.
 *
 * @param connected          whether a stream is open and its heartbeats arrive
 * @param lastRevision       the last revision delivered ({@code -1} before the first)
 * @param lastEventAgeMillis milliseconds since the last event or heartbeat arrived ({@code -1} before the first)
 * @param reconnects         connections replaced so far (dropped, refused or silent for too long)
 * @param callbackFailures   events whose callback threw
 * @param badEvents          events skipped because they did not read (an id that is not a revision)
 * @param lastError          why the last connection ended or failed, empty when none has
 */
public record WatchStatus(boolean connected, long lastRevision, long lastEventAgeMillis, long reconnects,
                          long callbackFailures, long badEvents, String lastError) {

    /** One line for a health page: {@code connected, revision 42, last event 1.2 s ago, 0 reconnects}. */
    public String describe() {
        StringBuilder b = new StringBuilder(connected ? "connected" : "disconnected");
        b.append(", revision ").append(lastRevision);
        b.append(lastEventAgeMillis < 0 ? ", no event yet"
                                        : String.format(java.util.Locale.ROOT, ", last event %.1f s ago",
                                                        lastEventAgeMillis / 1000.0));
        b.append(", ").append(reconnects).append(" reconnects, ").append(callbackFailures)
         .append(" callback failures");
        if (!lastError.isEmpty()) {
            b.append(", last error: ").append(lastError);
        }
        return b.toString();
    }
}
