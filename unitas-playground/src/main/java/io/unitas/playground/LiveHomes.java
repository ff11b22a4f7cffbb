package io.unitas.playground;

import io.unitas.control.client.state.RoutingState;
import io.unitas.control.client.state.StateFeed;
import io.unitas.control.client.state.StateHolder;
import io.unitas.control.client.state.StateSource;
import io.unitas.core.Region;
import io.unitas.core.fence.Writes;
import io.unitas.core.rules.Unit;
import java.net.URI;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.Optional;
import java.util.function.Function;

/**
 * The control plane's live unit-to-region map, followed on the same feed as the gateways follow it: after a
 * switchover or a promotion the shops find a moved unit's accounts, sessions and idempotency records in its new
 * home, not the one the starting rules named. Until the first state arrives it answers nothing, which leaves the
 * rules' home in force; while the control plane is away it answers what it last knew.
 */
final class LiveHomes implements Function<Unit, Optional<Region>>, AutoCloseable {

    private final StateHolder holder = new StateHolder(System::nanoTime, Clock.systemUTC(), Duration.ZERO);
    private final StateFeed feed;

    private LiveHomes(StateFeed feed) {
        this.feed = feed;
        feed.start(holder);
    }

    /**
     * Follows the control plane at {@code control} with a viewer's {@code token}, keeping its last good state in
     * {@code stateFile}.
     */
    static LiveHomes follow(URI control, String token, Path stateFile) {
        return new LiveHomes(new StateSource.ControlPlane(control.toString(), token, null, stateFile, null, false)
                                     .feed(Writes.DEFAULT));
    }

    @Override
    public Optional<Region> apply(Unit unit) {
        RoutingState state = holder.get();
        Unit live = state == null || state.rules() == null ? null : state.rules().unit(unit.id());
        return live == null ? Optional.empty() : Optional.of(live.home());
    }

    @Override
    public void close() {
        feed.close();
    }
}
