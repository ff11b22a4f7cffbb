package io.unitas.gateway;

import io.unitas.control.client.state.StateFeed;
import io.unitas.control.client.state.StateHolder;
import io.unitas.core.HealthSnapshot;
import io.unitas.core.fence.WriteFences;
import io.unitas.core.rules.UnitRules;

/** A feed the test drives by hand: publishes what it is given, when it is given it. */
final class FixedFeed implements StateFeed {

    private StateHolder holder;
    private long revision;
    private UnitRules rules;
    private HealthSnapshot health;
    private WriteFences fences = WriteFences.none();

    FixedFeed(UnitRules rules, HealthSnapshot health) {
        this.rules = rules;
        this.health = health;
    }

    @Override
    public void start(StateHolder holder) {
        this.holder = holder;
        publish();
    }

    void health(HealthSnapshot health) {
        this.health = health;
        publish();
    }

    void rules(UnitRules rules) {
        this.rules = rules;
        publish();
    }

    void fences(WriteFences fences) {
        this.fences = fences;
        publish();
    }

    private void publish() {
        if (holder != null) {
            holder.publish(++revision, rules, health, fences);
        }
    }

    @Override
    public void close() {
    }
}
