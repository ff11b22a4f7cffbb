package io.unitas.core.crdt;

/**
 * How two copies of one entity, written concurrently in different regions, become one: the merge a data layer's
 * applier performs when a change arrives for an entity it already holds, instead of overwriting it. Every policy
 * here is a join (a state-based CRDT's merge): commutative, associative and idempotent, so replicas that received
 * the same changes converge whatever order and however often they arrived. A policy that cannot merge two values
 * keeps both and says so ({@link #isConflict}); none drops a write silently.
 *
 * <table>
 *   <caption>The policies and what they keep</caption>
 *   <tr><th>policy</th><th>state</th><th>keeps</th><th>loses</th></tr>
 *   <tr><td>{@link #lastWriterWins()}</td><td>{@link LwwRegister}</td><td>the write that has seen the other;
 *       among concurrent ones the later commit, then the larger region id</td><td>the other concurrent
 *       writes</td></tr>
 *   <tr><td>{@link #counter()}</td><td>{@link PnCounter}</td><td>every increment and decrement</td>
 *       <td>nothing</td></tr>
 *   <tr><td>{@link #orSet()}</td><td>{@link OrSet}</td><td>every add no remove observed (add-wins)</td>
 *       <td>adds a remove observed</td></tr>
 *   <tr><td>{@link #orMap()}</td><td>{@link OrMap}</td><td>keys as the OR-set; concurrent writes of one key
 *       side by side, read through the map's value policy</td><td>writes a put or remove observed</td></tr>
 *   <tr><td>{@link #siblings()}</td><td>{@link Siblings}</td><td>every concurrent write, listed until resolved
 *       </td><td>only writes a later write or resolution has seen</td></tr>
 * </table>
 *
 * <p>Worked example: an applier that looks a policy up per declared entity kind and merges on arrival.
 * <pre>{@code
 * // declared once, next to the entity: a like counter and a delivery address
 * MergePolicy<PnCounter> likes = MergePolicy.counter();
 * MergePolicy<Siblings<String>> address = MergePolicy.siblings();
 *
 * // cn and eu both took writes while they could not reach each other
 * PnCounter inCn = PnCounter.zero().add("cn", 3);
 * PnCounter inEu = PnCounter.zero().add("eu", 2);
 * likes.merge(inCn, inEu).value();                    // 5: every increment counts
 *
 * Siblings<String> cnAddress = Siblings.<String>empty().write("cn", "1 Main St");
 * Siblings<String> euAddress = Siblings.<String>empty().write("eu", "2 Rue Haute");
 * Siblings<String> stored = address.merge(cnAddress, euAddress);
 * address.isConflict(stored);                         // true: listed, both kept with their vectors
 * stored.values();                                    // [1 Main St, 2 Rue Haute]
 * stored.resolve("cn", "2 Rue Haute");                // an explicit choice that has seen both
 * }</pre>
 * Writing {@code stored = policy.merge(stored, incoming)} for every arrival (and storing {@code incoming} when
 * nothing is stored yet) is all an applier does; it counts and lists what {@link #isConflict} reports.
 *
 * @param <S> the replicated state of the entity (one of the types above, or the caller's own join)
 */
@FunctionalInterface
public interface MergePolicy<S> {

    /** The state that has seen both {@code stored} and {@code incoming}. Must be a join (see the class comment). */
    S merge(S stored, S incoming);

    /** Whether {@code state} holds concurrent writes this policy could not merge and that wait to be resolved. */
    default boolean isConflict(S state) {
        return false;
    }

    /** Last writer wins: version vector, then commit timestamp, then region id. See {@link LwwRegister}. */
    static <V> MergePolicy<LwwRegister<V>> lastWriterWins() {
        return LwwRegister::merge;
    }

    /** A PN-counter: every region's increments and decrements count. See {@link PnCounter}. */
    static MergePolicy<PnCounter> counter() {
        return PnCounter::merge;
    }

    /** An add-wins observed-remove set. See {@link OrSet}. */
    static <E> MergePolicy<OrSet<E>> orSet() {
        return OrSet::merge;
    }

    /** An observed-remove map whose values merge by its own value policy. See {@link OrMap}. */
    static <K, V> MergePolicy<OrMap<K, V>> orMap() {
        return new MergePolicy<>() {
            @Override
            public OrMap<K, V> merge(OrMap<K, V> stored, OrMap<K, V> incoming) {
                return stored.merge(incoming);
            }

            @Override
            public boolean isConflict(OrMap<K, V> state) {
                return state.isConflict();
            }
        };
    }

    /** Detect and surface: concurrent writes are kept as siblings and reported. See {@link Siblings}. */
    static <V> MergePolicy<Siblings<V>> siblings() {
        return new MergePolicy<>() {
            @Override
            public Siblings<V> merge(Siblings<V> stored, Siblings<V> incoming) {
                return stored.merge(incoming);
            }

            @Override
            public boolean isConflict(Siblings<V> state) {
                return state.isConflict();
            }
        };
    }
}
