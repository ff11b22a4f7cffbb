package io.unitas.data.reconcile;

import io.unitas.core.Region;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * The moves of units between homes, as this process saw them, and the rule that tells a change its old home did not
 * ship apart from ordinary replication. Fed by sampling the live unit-to-region map ({@link #observe}) before each
 * replication round, so a move is known before the first change that crosses it is delivered. Thread-safe.
 */
public final class MoveLedger {

    private final Map<String, Region> homes = new LinkedHashMap<>(); // guarded by this
    private final Map<String, List<UnitMove>> moves = new LinkedHashMap<>(); // guarded by this

    /**
     * Records {@code unit}'s home seen at {@code at}; a home other than the last one seen is a move. The first home
     * seen of a unit is its starting point, not a move.
     */
    public synchronized Optional<UnitMove> observe(String unit, Region home, Instant at) {
        Objects.requireNonNull(unit, "unit");
        Objects.requireNonNull(home, "home");
        Region last = homes.put(unit, home);
        if (last == null || last.equals(home)) {
            return Optional.empty();
        }
        UnitMove move = new UnitMove(unit, last, home, at);
        moves.computeIfAbsent(unit, u -> new ArrayList<>()).add(move);
        return Optional.of(move);
    }

    /** Every move of {@code unit} seen, oldest first. */
    public synchronized List<UnitMove> moves(String unit) {
        return List.copyOf(moves.getOrDefault(unit, List.of()));
    }

    /**
     * The move that a change of {@code unit} written in {@code origin} at {@code writtenAt}, and delivered now,
     * crossed: empty for ordinary replication. See {@link #crossed(List, Region, Instant)}.
     */
    public Optional<UnitMove> crossed(String unit, Region origin, Instant writtenAt) {
        return crossed(moves(unit), origin, writtenAt);
    }

    /**
     * The pure rule: a change written in {@code origin} at {@code writtenAt} and delivered after {@code moves}
     * (oldest first) crossed the first move away from {@code origin} that the unit had not come back from by
     * {@code writtenAt}. Delivered after that move, it was not shipped before the unit left (a promotion), or it was
     * written while the unit lived elsewhere; either way its new home decides it, it must not overwrite.
     */
    public static Optional<UnitMove> crossed(List<UnitMove> moves, Region origin, Instant writtenAt) {
        for (int i = 0; i < moves.size(); i++) {
            UnitMove away = moves.get(i);
            if (!away.from().equals(origin)) {
                continue;
            }
            Instant back = null;
            for (int j = i + 1; j < moves.size() && back == null; j++) {
                if (moves.get(j).to().equals(origin)) {
                    back = moves.get(j).at();
                }
            }
            if (back == null || writtenAt.isBefore(back)) {
                return Optional.of(away);
            }
        }
        return Optional.empty();
    }
}
