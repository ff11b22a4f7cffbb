package io.unitas.playground;

import io.unitas.core.Region;
import io.unitas.core.health.UnitLag;
import io.unitas.core.rules.KeySource;
import io.unitas.core.rules.Unit;
import io.unitas.core.rules.UnitLookup;
import io.unitas.core.rules.UnitRules;
import io.unitas.data.store.StoreResult;
import io.unitas.health.UnitLagSource;
import io.unitas.playground.replication.Replicator;
import io.unitas.playground.store.Change;
import io.unitas.playground.store.RegionalStore;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The per-unit replication lag of one region's store, for its health agent's reports: for each other region, the
 * changes of the origin's log after the position the replicator last applied there, grouped by the unit of the
 * user they belong to; a unit's lag is the age of its oldest such change, 0 when it has none. A change whose user
 * cannot be read holds back every unit (never reported caught up by mistake); a target whose backlog is longer than
 * is read reports only the units seen in it (the others are unknown, not zero); an origin that cannot be read
 * reports nothing for that target.
 */
final class UnitLagMeter implements UnitLagSource {

    /** Changes read per query, and the most queries per target and measurement. */
    private static final int PAGE = 1_000;
    private static final int MAX_PAGES = 20;
    private static final KeySource USER_KEY = KeySource.header(ShopServer.USER_HEADER);

    private final RegionalStore from;
    private final List<Region> regions;
    private final Replicator replicator;
    private final UnitRules rules;
    private final Clock clock;

    UnitLagMeter(RegionalStore from, List<Region> regions, Replicator replicator, UnitRules rules, Clock clock) {
        this.from = from;
        this.regions = List.copyOf(regions);
        this.replicator = replicator;
        this.rules = rules;
        this.clock = clock;
    }

    /** What a target has not applied yet: each unit's oldest pending write (epoch ms), and whether all was read. */
    private record Pending(Map<String, Long> oldest, boolean complete) {}

    @Override
    public List<UnitLag> unitLags() {
        List<UnitLag> lags = new ArrayList<>();
        for (Region to : regions) {
            if (to.equals(from.region())) {
                continue;
            }
            Instant now = clock.instant();
            Pending pending = pending(to);
            if (pending == null) {
                continue;
            }
            for (Unit unit : rules.units()) {
                Long oldest = pending.oldest().get(unit.id());
                if (oldest != null) {
                    lags.add(new UnitLag(unit.id(), to, Math.max(0, now.toEpochMilli() - oldest), now));
                } else if (pending.complete()) {
                    lags.add(new UnitLag(unit.id(), to, 0, now));
                }
            }
        }
        return lags;
    }

    /** The changes {@code to} has not applied, by unit; null when the origin's log cannot be read. */
    private Pending pending(Region to) {
        long after = replicator.link(from.region(), to).appliedSeq();
        Map<String, Long> oldest = new HashMap<>();
        for (int page = 0; page < MAX_PAGES; page++) {
            StoreResult<List<Change>> changes = from.changesSince(after, PAGE);
            if (!changes.isOk()) {
                return null;
            }
            for (Change change : changes.value()) {
                long written = change.writtenAt().toEpochMilli();
                String unit = unitOf(change);
                if (unit == null) {
                    rules.units().forEach(u -> oldest.putIfAbsent(u.id(), written));
                } else {
                    oldest.putIfAbsent(unit, written); // the log is in order: the first seen is the oldest
                }
                after = change.seq();
            }
            if (changes.value().size() < PAGE) {
                return new Pending(oldest, true);
            }
        }
        return new Pending(oldest, false);
    }

    /** The unit of the user a change belongs to, or null when it cannot be told. */
    private String unitOf(Change change) {
        String user = switch (change.kind()) {
            case ACCOUNT, CART -> change.key();
            case SESSION, IDEMPOTENCY, ORDER, COMPENSATION -> field(change.payload(), "user");
        };
        if (user == null) {
            return null;
        }
        UnitLookup lookup = rules.lookupKey(USER_KEY, user);
        return lookup.unit() == null ? null : lookup.unit().id();
    }

    /** The first value of {@code name} in a form-encoded payload ({@code user=alice&unit=u-cn}), or null. */
    private static String field(String payload, String name) {
        for (String pair : payload.split("&")) {
            int eq = pair.indexOf('=');
            if (eq > 0 && pair.substring(0, eq).equals(name)) {
                return URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8);
            }
        }
        return null;
    }
}
