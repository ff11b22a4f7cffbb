package io.unitas.example;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

/**
 * The inbound calls a service served: counted (all, with a unit, in the wrong region), the latest kept for
 * {@code GET /calls}, each handed to the listeners (the playground's counter).
 */
public final class CallLog {

    private static final int KEPT = 100;

    private final AtomicLong calls = new AtomicLong();
    private final AtomicLong crossUnit = new AtomicLong();
    private final AtomicLong wrongRegion = new AtomicLong();
    private final ArrayDeque<ServiceCall> latest = new ArrayDeque<>();
    private final List<Consumer<ServiceCall>> listeners = new CopyOnWriteArrayList<>();

    /** Counts {@code call}, keeps it among the latest and tells the listeners. */
    public void record(ServiceCall call) {
        calls.incrementAndGet();
        if (call.crossUnit()) {
            crossUnit.incrementAndGet();
        }
        if (call.wrongRegion()) {
            wrongRegion.incrementAndGet();
        }
        synchronized (latest) {
            latest.addLast(call);
            if (latest.size() > KEPT) {
                latest.removeFirst();
            }
        }
        listeners.forEach(l -> l.accept(call));
    }

    /** Tells {@code listener} of every call recorded from now on, on the serving thread. */
    public void listen(Consumer<ServiceCall> listener) {
        listeners.add(Objects.requireNonNull(listener, "listener"));
    }

    /** The latest calls, oldest first (at most 100). */
    public List<ServiceCall> latest() {
        synchronized (latest) {
            return new ArrayList<>(latest);
        }
    }

    /** Every call served. */
    public long calls() {
        return calls.get();
    }

    /** The calls that carried a unit. */
    public long crossUnit() {
        return crossUnit.get();
    }

    /** The calls served in another region than their routing context names. */
    public long wrongRegion() {
        return wrongRegion.get();
    }
}
