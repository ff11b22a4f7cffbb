package io.unitas.control;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;

/**
 * Fans every landed state out to watchers as server-sent events ({@code id: <revision>}, {@code event: state},
 * {@code data: <state JSON>}), keeping the last {@value #RETAINED} so that a watcher reconnecting with
 * {@code since} (or {@code Last-Event-ID}) gets every revision it missed, in order. A watcher further behind than
 * that gets the current state (states are whole snapshots, so nothing is lost but the steps between).
 */
final class WatchHub {

    static final int RETAINED = 4_096;

    private record Event(long revision, String text) {}

    private final Deque<Event> recent = new ArrayDeque<>();
    private final List<Consumer<String>> watchers = new CopyOnWriteArrayList<>();

    WatchHub(StateStore store) {
        publish(store.current());
        store.subscribe(this::publish);
    }

    private synchronized void publish(ControlState state) {
        if (!recent.isEmpty() && state.revision() <= recent.peekLast().revision()) {
            return;
        }
        Event event = new Event(state.revision(), "id: " + state.revision() + "\nevent: state\ndata: "
                                                  + StateJson.write(StateJson.state(state)) + "\n\n");
        recent.addLast(event);
        if (recent.size() > RETAINED) {
            recent.removeFirst();
        }
        watchers.forEach(w -> w.accept(event.text()));
    }

    /**
     * Sends {@code watcher} every retained event after {@code since} (or the newest when none is, or when
     * {@code since} is older than all retained), then every new one; atomic with publishing, so none is skipped
     * or sent twice. Returns what unsubscribes it.
     */
    synchronized Runnable watch(long since, Consumer<String> watcher) {
        Event oldest = recent.peekFirst();
        if (oldest != null && since < oldest.revision() - 1) {
            watcher.accept(recent.peekLast().text());
        } else {
            for (Iterator<Event> it = recent.iterator(); it.hasNext(); ) {
                Event e = it.next();
                if (e.revision() > since) {
                    watcher.accept(e.text());
                }
            }
        }
        watchers.add(watcher);
        return () -> watchers.remove(watcher);
    }
}
