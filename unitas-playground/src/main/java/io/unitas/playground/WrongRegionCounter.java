package io.unitas.playground;

import io.unitas.example.ServiceCall;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Counts the example services' inbound calls over every instance and restart: all, with a unit, and served in
 * another region than the unit was routed to ({@link ServiceCall#wrongRegion()}); each wrong one is logged with what
 * the service saw, and the latest are kept to say what went wrong.
 */
final class WrongRegionCounter implements Consumer<ServiceCall> {

    private static final Logger LOG = LoggerFactory.getLogger(WrongRegionCounter.class);
    private static final int KEPT = 20;

    private final AtomicLong calls = new AtomicLong();
    private final AtomicLong crossUnit = new AtomicLong();
    private final AtomicLong wrongRegion = new AtomicLong();
    private final ArrayDeque<ServiceCall> wrong = new ArrayDeque<>();

    @Override
    public void accept(ServiceCall call) {
        calls.incrementAndGet();
        if (call.crossUnit()) {
            crossUnit.incrementAndGet();
        }
        if (call.wrongRegion()) {
            wrongRegion.incrementAndGet();
            LOG.warn("example: {} {} served in {} a call of unit {} routed to {}", call.instance(), call.path(),
                     call.region(), call.unit(), call.routedTo());
            synchronized (wrong) {
                wrong.addLast(call);
                if (wrong.size() > KEPT) {
                    wrong.removeFirst();
                }
            }
        }
    }

    /** The totals so far. */
    ExampleCalls counts() {
        return new ExampleCalls(calls.get(), crossUnit.get(), wrongRegion.get());
    }

    /** The latest wrong-region calls (at most 20), oldest first. */
    List<ServiceCall> latestWrong() {
        synchronized (wrong) {
            return new ArrayList<>(wrong);
        }
    }
}
