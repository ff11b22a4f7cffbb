package io.unitas.gateway;

import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.unitas.control.client.ControlClient;
import io.unitas.control.client.ControlException;
import io.unitas.core.Region;

/**
 * Tells the control plane, every {@link #EVERY} while it lasts, which peer regions this gateway cannot connect to
 * ({@code POST /api/v1/health/{region}/unreachable}, with the gateway's own token): the evidence that takes a
 * silent region down without waiting out its health grace. Its own region is never reported. Each report is
 * counted by result ({@code sent}, {@code refused} by the control plane, {@code failed} to arrive); a refusal or
 * failure is logged when it starts and shown in {@code /unitas/healthz} while it lasts.
 */
final class UnreachableReporter implements AutoCloseable {

    /** How often the unreachable regions are reported while they are. */
    static final Duration EVERY = Duration.ofMillis(250);

    private static final Logger LOG = LoggerFactory.getLogger(UnreachableReporter.class);

    private final Region self;
    private final Reachability reachability;
    private final ControlClient client;
    private final BiConsumer<Region, String> count;
    private final ScheduledExecutorService loop;
    private volatile String problem = "";

    private UnreachableReporter(Region self, Reachability reachability, ControlClient client,
                                BiConsumer<Region, String> count) {
        this.self = self;
        this.reachability = reachability;
        this.client = client;
        this.count = count;
        this.loop = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "unitas-gateway-unreachable-reports");
            t.setDaemon(true);
            return t;
        });
    }

    /** Starts reporting; {@code count} is told each report's region and result. */
    static UnreachableReporter start(Region self, Reachability reachability, ControlClient client,
                                     BiConsumer<Region, String> count) {
        UnreachableReporter r = new UnreachableReporter(self, reachability, client, count);
        r.loop.scheduleWithFixedDelay(r::reportNow, EVERY.toMillis(), EVERY.toMillis(), TimeUnit.MILLISECONDS);
        return r;
    }

    /** Reports every peer region unreachable now. */
    void reportNow() {
        for (Region region : reachability.unreachable()) {
            if (region.equals(self)) {
                continue; // the control plane ignores a region's word about itself
            }
            String result;
            String why = "";
            try {
                client.reportUnreachable(region.id(), self.id());
                result = "sent";
            } catch (ControlException e) {
                result = "refused";
                why = "refused with " + e.status() + ": " + e.problem().detail();
            } catch (Throwable e) { // Errors too: a scheduled task that throws is never run again, silently
                result = "failed";
                why = "failed: " + e;
            }
            count.accept(region, result);
            if (!why.equals(problem)) {
                if (!why.isEmpty()) {
                    LOG.warn("reporting {} unreachable to the control plane {}", region, why);
                }
                problem = why;
            }
        }
    }

    /** The last report's problem, or empty when it was taken. */
    String problem() {
        return problem;
    }

    @Override
    public void close() {
        loop.shutdownNow();
    }
}
