package io.unitas.core.crdt;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * The laws every {@link MergePolicy} keeps, over random histories of three replicas ({@code cn}, {@code eu},
 * {@code us}) that write and exchange states in random order: merge is commutative, associative and idempotent,
 * and replicas that received the same states in any order, with duplicates, are equal. A subclass says how its
 * type is written and adds what its policy promises not to lose.
 *
 * @param <S> the replicated state
 */
abstract class MergeLawsContract<S> {

    static final List<String> REPLICAS = List.of("cn", "eu", "us");

    /**
     * One step of a history: replica {@code at} either merges the state of {@code from}, or applies operation
     * {@code op} (its meaning is the subclass's) on {@code key} with {@code amount} at clock {@code clock}.
     */
    record Step(boolean merge, int at, int from, int op, int key, int amount, long clock) {}

    /** One operation as it happened: who made it, and the replica's state before and after. */
    record Event<S>(Step step, String replica, S before, S after) {}

    /** A history replayed: the three replicas' final states and every state an operation produced. */
    final class Replay {
        final List<S> replicas = new ArrayList<>();
        final List<Event<S>> events = new ArrayList<>();
        /** Every state any replica held, in the order they came about. */
        final List<S> states = new ArrayList<>();

        Replay(List<Step> steps) {
            for (int i = 0; i < REPLICAS.size(); i++) {
                replicas.add(initial());
            }
            states.add(initial());
            for (Step step : steps) {
                S at = replicas.get(step.at());
                if (step.merge()) {
                    replicas.set(step.at(), policy().merge(at, replicas.get(step.from())));
                } else {
                    S after = apply(at, REPLICAS.get(step.at()), step);
                    events.add(new Event<>(step, REPLICAS.get(step.at()), at, after));
                    replicas.set(step.at(), after);
                }
                states.add(replicas.get(step.at()));
            }
        }

        /** Every replica's state merged: what all of them hold once replication has caught up. */
        S mergedAll() {
            return policy().merge(policy().merge(replicas.get(0), replicas.get(1)), replicas.get(2));
        }

        /** Every state an operation produced: what a replica may ship, each possibly more than once. */
        List<S> shipped() {
            return events.stream().map(Event::after).toList();
        }
    }

    /** The policy under test. */
    abstract MergePolicy<S> policy();

    /** The state every replica starts from. */
    abstract S initial();

    /** The state after {@code replica} applies {@code step}'s operation to {@code state}. */
    abstract S apply(S state, String replica, Step step);

    @Provide
    Arbitrary<List<Step>> histories() {
        Arbitrary<Step> step = Combinators.combine(
                Arbitraries.of(false, false, true),
                Arbitraries.integers().between(0, 2),
                Arbitraries.integers().between(0, 2),
                Arbitraries.integers().between(0, 3),
                Arbitraries.integers().between(0, 3),
                Arbitraries.integers().between(1, 5),
                Arbitraries.longs().between(0, 6))
                .as(Step::new);
        return step.list().ofMaxSize(30);
    }

    @Property
    void merge_isCommutative(@ForAll("histories") List<Step> steps) {
        Replay h = new Replay(steps);
        for (S a : h.replicas) {
            for (S b : h.replicas) {
                assertThat(policy().merge(a, b)).isEqualTo(policy().merge(b, a));
            }
        }
    }

    @Property
    void merge_isAssociative(@ForAll("histories") List<Step> steps) {
        Replay h = new Replay(steps);
        S a = h.replicas.get(0);
        S b = h.replicas.get(1);
        S c = h.replicas.get(2);
        assertThat(policy().merge(policy().merge(a, b), c)).isEqualTo(policy().merge(a, policy().merge(b, c)));
        assertThat(policy().merge(policy().merge(c, a), b)).isEqualTo(policy().merge(c, policy().merge(a, b)));
    }

    /** Not only the final states: any three states held at any point, intermediate ones included. */
    @Property
    void merge_isCommutativeAndAssociative_overEveryStateOfTheHistory(@ForAll("histories") List<Step> steps,
                                                                     @ForAll long seed) {
        Replay h = new Replay(steps);
        Random random = new Random(seed);
        for (int i = 0; i < 30; i++) {
            S a = h.states.get(random.nextInt(h.states.size()));
            S b = h.states.get(random.nextInt(h.states.size()));
            S c = h.states.get(random.nextInt(h.states.size()));
            assertThat(policy().merge(a, b)).as("%s with %s", a, b).isEqualTo(policy().merge(b, a));
            assertThat(policy().merge(policy().merge(a, b), c)).as("(%s with %s) with %s", a, b, c)
                    .isEqualTo(policy().merge(a, policy().merge(b, c)));
        }
    }

    @Property
    void merge_isIdempotent(@ForAll("histories") List<Step> steps) {
        Replay h = new Replay(steps);
        S a = h.replicas.get(0);
        S ab = policy().merge(a, h.replicas.get(1));
        assertThat(policy().merge(a, a)).isEqualTo(a);
        assertThat(policy().merge(ab, a)).isEqualTo(ab);
        assertThat(policy().merge(ab, ab)).isEqualTo(ab);
    }

    @Property
    void replicas_convergeWhateverTheDeliveryOrderAndDuplicates(@ForAll("histories") List<Step> steps,
                                                               @ForAll long seed) {
        Replay h = new Replay(steps);
        S expected = h.mergedAll();
        // every order of the three replicas' states
        for (List<Integer> order : List.of(List.of(0, 1, 2), List.of(0, 2, 1), List.of(1, 0, 2),
                                           List.of(1, 2, 0), List.of(2, 0, 1), List.of(2, 1, 0))) {
            S state = h.replicas.get(order.get(0));
            for (int i : order.subList(1, 3)) {
                state = policy().merge(state, h.replicas.get(i));
            }
            assertThat(state).as("order %s", order).isEqualTo(expected);
        }
        // every shipped state delivered to each replica in a random order, some twice
        Random random = new Random(seed);
        for (S start : h.replicas) {
            List<S> deliveries = new ArrayList<>(h.shipped());
            deliveries.addAll(h.replicas);
            for (S s : h.shipped()) {
                if (random.nextBoolean()) {
                    deliveries.add(s);
                }
            }
            Collections.shuffle(deliveries, random);
            S state = start;
            for (S s : deliveries) {
                state = policy().merge(state, s);
            }
            assertThat(state).isEqualTo(expected);
        }
    }
}
