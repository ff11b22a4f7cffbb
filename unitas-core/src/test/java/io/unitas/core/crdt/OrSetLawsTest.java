package io.unitas.core.crdt;

/**
 * {@link OrSet} under the shared merge laws, with deliveries duplicated and reordered ({@link OrSetTest} holds its
 * add-wins property).
 */
class OrSetLawsTest extends MergeLawsContract<OrSet<Integer>> {

    @Override
    MergePolicy<OrSet<Integer>> policy() {
        return MergePolicy.orSet();
    }

    @Override
    OrSet<Integer> initial() {
        return OrSet.empty();
    }

    @Override
    OrSet<Integer> apply(OrSet<Integer> state, String replica, Step step) {
        return step.op() == 0 ? state.remove(step.key()) : state.add(replica, step.key());
    }
}
