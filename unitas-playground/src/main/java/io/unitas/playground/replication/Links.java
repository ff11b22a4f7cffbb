package io.unitas.playground.replication;

import java.time.Duration;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.unitas.core.Region;
import io.unitas.playground.store.RegionalStore;

/**
 * A replicator's links, one per direction between two regions, with the controls a drill turns on each (pause,
 * resume, delay): one table for every transport, so each looks a link up and refuses an unknown one alike.
 */
final class Links<L extends Links.Link> {

    /** One direction between two stores, with the settings a drill changes; a transport adds what it measures. */
    abstract static class Link {
        final RegionalStore from;
        final RegionalStore to;
        volatile boolean paused;
        volatile Duration delay;

        Link(RegionalStore from, RegionalStore to, Duration delay) {
            this.from = from;
            this.to = to;
            this.delay = delay;
        }

        abstract LinkStatus status();
    }

    private final Map<List<Region>, L> byPair = new LinkedHashMap<>();

    void add(L link) {
        byPair.put(List.of(link.from.region(), link.to.region()), link);
    }

    Collection<L> all() {
        return byPair.values();
    }

    /** The link from {@code from} to {@code to}; {@code what} names the action in the refusal of an unknown one. */
    L get(Region from, Region to, String what) {
        L link = byPair.get(List.of(from, to));
        if (link == null) {
            throw new IllegalArgumentException(what + " " + from + "->" + to + ": no such link (expected regions: "
                                               + byPair.values().stream().map(l -> l.from.region()).distinct().toList()
                                               + ")");
        }
        return link;
    }

    void pause(Region from, Region to) {
        get(from, to, "pause").paused = true;
    }

    void resume(Region from, Region to) {
        get(from, to, "resume").paused = false;
    }

    void delay(Region from, Region to, Duration delay) {
        if (delay.isNegative()) {
            throw new IllegalArgumentException("delay of " + from + "->" + to + ": " + delay + " (expected: >= 0)");
        }
        get(from, to, "delay").delay = delay;
    }

    LinkStatus status(Region from, Region to) {
        return get(from, to, "link").status();
    }

    List<LinkStatus> statuses() {
        return byPair.values().stream().map(Link::status).toList();
    }
}
