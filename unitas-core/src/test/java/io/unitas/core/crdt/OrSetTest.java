package io.unitas.core.crdt;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * The laws that make {@link OrSet} a CRDT, over random histories of adds, removes and partial state exchanges
 * between three replicas.
 */
class OrSetTest {

    static final List<String> REPLICAS = List.of("cn", "eu", "us");

    /** One step of a history: replica {@code at} adds or removes {@code element}, or merges {@code from}'s state. */
    record Step(String kind, int at, int from, String element) {}

    /** Replays a history, remembering every add and the context each remove was made under. */
    static final class History {
        final List<OrSet<String>> replicas = new ArrayList<>(
                List.of(OrSet.<String>empty(), OrSet.<String>empty(), OrSet.<String>empty()));
        final List<Step> adds = new ArrayList<>();
        final List<Dot> addDots = new ArrayList<>();
        final List<String> removedElements = new ArrayList<>();
        final List<VersionVector> removeContexts = new ArrayList<>();

        History(List<Step> steps) {
            for (Step step : steps) {
                OrSet<String> at = replicas.get(step.at());
                switch (step.kind()) {
                    case "add" -> {
                        OrSet<String> after = at.add(REPLICAS.get(step.at()), step.element());
                        adds.add(step);
                        addDots.add(after.entries().get(step.element()).iterator().next());
                        replicas.set(step.at(), after);
                    }
                    case "remove" -> {
                        removedElements.add(step.element());
                        removeContexts.add(at.context());
                        replicas.set(step.at(), at.remove(step.element()));
                    }
                    default -> replicas.set(step.at(), at.merge(replicas.get(step.from())));
                }
            }
        }

        OrSet<String> mergedAll() {
            return replicas.get(0).merge(replicas.get(1)).merge(replicas.get(2));
        }
    }

    @Provide
    Arbitrary<List<Step>> histories() {
        Arbitrary<Step> step = Combinators.combine(
                Arbitraries.of("add", "add", "remove", "merge"),
                Arbitraries.integers().between(0, 2),
                Arbitraries.integers().between(0, 2),
                Arbitraries.of("apple", "book", "cup", "desk"))
                .as(Step::new);
        return step.list().ofMaxSize(40);
    }

    @Property
    void merge_isCommutative(@ForAll("histories") List<Step> steps) {
        History h = new History(steps);
        OrSet<String> a = h.replicas.get(0);
        OrSet<String> b = h.replicas.get(1);
        assertThat(a.merge(b)).isEqualTo(b.merge(a));
    }

    @Property
    void merge_isAssociative(@ForAll("histories") List<Step> steps) {
        History h = new History(steps);
        OrSet<String> a = h.replicas.get(0);
        OrSet<String> b = h.replicas.get(1);
        OrSet<String> c = h.replicas.get(2);
        assertThat(a.merge(b).merge(c)).isEqualTo(a.merge(b.merge(c)));
    }

    @Property
    void merge_isIdempotent(@ForAll("histories") List<Step> steps) {
        History h = new History(steps);
        OrSet<String> a = h.replicas.get(0);
        OrSet<String> ab = a.merge(h.replicas.get(1));
        assertThat(a.merge(a)).isEqualTo(a);
        assertThat(ab.merge(a)).isEqualTo(ab);
    }

    @Property
    void anAddNoRemoveObserved_survivesEveryMergeOrder(@ForAll("histories") List<Step> steps,
                                                      @ForAll long seed) {
        History h = new History(steps);
        List<OrSet<String>> states = new ArrayList<>(h.replicas);
        Collections.shuffle(states, new Random(seed));
        OrSet<String> merged = states.get(0).merge(states.get(1)).merge(states.get(2));
        for (int i = 0; i < h.adds.size(); i++) {
            String element = h.adds.get(i).element();
            Dot dot = h.addDots.get(i);
            boolean observedByARemove = false;
            for (int r = 0; r < h.removedElements.size(); r++) {
                observedByARemove |= h.removedElements.get(r).equals(element) && h.removeContexts.get(r).contains(dot);
            }
            if (!observedByARemove) {
                assertThat(merged.contains(element)).as("add %s of %s", dot, element).isTrue();
            }
        }
    }

    @Property
    void replicas_convergeAfterExchangingStatesInAnyOrder(@ForAll("histories") List<Step> steps,
                                                         @ForAll long seed) {
        History h = new History(steps);
        Random random = new Random(seed);
        List<OrSet<String>> finals = new ArrayList<>();
        for (int i = 0; i < REPLICAS.size(); i++) {
            List<OrSet<String>> others = new ArrayList<>(h.replicas);
            Collections.shuffle(others, random);
            OrSet<String> state = h.replicas.get(i);
            for (OrSet<String> other : others) {
                state = state.merge(other);
            }
            finals.add(state);
        }
        assertThat(finals).allSatisfy(state -> assertThat(state).isEqualTo(h.mergedAll()));
    }

    @Property
    void everyLiveDot_isInTheContext(@ForAll("histories") List<Step> steps) {
        OrSet<String> merged = new History(steps).mergedAll();
        merged.entries().values().forEach(dots -> dots.forEach(
                dot -> assertThat(merged.context().contains(dot)).isTrue()));
        assertThat(OrSet.of(merged.entries(), merged.context())).isEqualTo(merged);
    }

    @Example
    void contains_isTrueOnlyForAnElementAddedAndNotRemoved() {
        OrSet<String> set = OrSet.<String>empty().add("cn", "apple").add("cn", "book").remove("book");

        assertThat(set.contains("apple")).isTrue();
        assertThat(set.contains("book")).isFalse();
        assertThat(set.contains("cup")).isFalse();
    }
}
