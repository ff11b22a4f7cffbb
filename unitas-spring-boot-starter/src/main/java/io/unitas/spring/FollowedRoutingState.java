package io.unitas.spring;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;

import io.unitas.client.RoutingSnapshot;
import io.unitas.control.client.WatchStatus;
import io.unitas.control.client.state.RoutingState;
import io.unitas.control.client.state.StateFeed;
import io.unitas.control.client.state.StateHolder;
import io.unitas.control.client.state.StateSource;
import io.unitas.core.fence.Writes;
import org.springframework.core.io.Resource;
import org.springframework.core.io.ResourceLoader;

/**
 * Routing state that follows a feed shared with the gateway and the DNS server: the control plane's watch, or
 * {@code file:} state files reloaded when they change. Until the feed's first state with unit rules arrives, the
 * snapshot read at start is served; a later state replaces it whole, keeping the token buckets of unchanged throttles.
 */
final class FollowedRoutingState implements UnitasRoutingState, AutoCloseable {

    private final StateHolder holder = new StateHolder(System::nanoTime, Clock.systemUTC(), Duration.ZERO);
    private final StateFeed feed;
    private volatile Followed followed;

    FollowedRoutingState(RoutingSnapshot initial, StateFeed feed) {
        this.followed = new Followed(null, initial);
        this.feed = feed;
        feed.start(holder);
    }

    /**
     * The source {@code unitas.*} names beyond the files read at start: the control plane when
     * {@code unitas.control-plane.url} is set, else the files when all of them are {@code file:} locations, else
     * {@code null} (nothing to follow).
     */
    static StateSource source(UnitasProperties properties, ResourceLoader loader) {
        StateSource.ControlPlane control = controlPlane(properties);
        if (control != null) {
            return control;
        }
        Path topology = file(loader, properties.getTopology());
        Path rules = file(loader, properties.getRules());
        Path health = file(loader, properties.getHealth());
        Path fences = properties.getFences() == null ? null : file(loader, properties.getFences());
        if (topology == null || rules == null || health == null
            || (properties.getFences() != null && fences == null)) {
            return null;
        }
        return new StateSource.StaticFiles(topology, rules, health, fences, properties.getReloadInterval());
    }

    /** The control plane {@code unitas.control-plane.*} names, or {@code null} when its URL is not set. */
    static StateSource.ControlPlane controlPlane(UnitasProperties properties) {
        UnitasProperties.ControlPlane cp = properties.getControlPlane();
        if (cp.getUrl() == null || cp.getUrl().isBlank()) {
            return null;
        }
        return new StateSource.ControlPlane(cp.getUrl(), cp.getToken(), path(cp.getTokenFile()),
                                            Path.of(cp.getStateFile()), path(cp.getCa()), cp.isAllowInsecure());
    }

    /** Starts following {@code source}, serving {@code initial} until it delivers. */
    static FollowedRoutingState follow(RoutingSnapshot initial, StateSource source) {
        return new FollowedRoutingState(initial, source.feed(Writes.DEFAULT));
    }

    @Override
    public RoutingSnapshot current() {
        RoutingState latest = holder.get();
        Followed f = followed;
        if (latest == f.state || latest == null || latest.rules() == null) {
            return f.snapshot;
        }
        synchronized (this) {
            f = followed;
            if (latest != f.state) {
                f = new Followed(latest, f.snapshot.next(latest.rules(), latest.health(), latest.fences(),
                                                         System::nanoTime));
                followed = f;
            }
            return f.snapshot;
        }
    }

    /** How the control plane's watch is doing, or {@code null} when the files are followed. */
    WatchStatus watchStatus() {
        return feed.watchStatus();
    }

    /** The revision of the followed state in force, or -1 while the snapshot read at start is served. */
    long revision() {
        current();
        Followed f = followed;
        return f.state == null ? -1 : f.state.revision();
    }

    @Override
    public void close() {
        feed.close();
    }

    private static Path path(String location) {
        return location == null || location.isBlank() ? null : Path.of(location);
    }

    private static Path file(ResourceLoader loader, String location) {
        if (location == null || !location.startsWith("file:")) {
            return null;
        }
        Resource resource = loader.getResource(location);
        try {
            return resource.getFile().toPath();
        } catch (IOException e) {
            return null;
        }
    }

    /** The feed's state and the snapshot made of it, swapped together. */
    private record Followed(RoutingState state, RoutingSnapshot snapshot) {}
}
