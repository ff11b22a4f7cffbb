package io.unitas.playground.cli;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Bad options of up, drill and demo: one line naming the option, exit 2, nothing started. */
class DrillCommandTest {

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "drill meteor-strike            | unitas drill: scenario: 'meteor-strike' (expected: one of db-readonly, replication-backlog, region-down, control-plane-down, dns-down, partition, slow-region, saga-crash)",
            "drill db-readonly --duration 3 | unitas drill: --duration: '3' (expected: a duration like 500ms, 5s, 2m or 1h)",
            "drill db-readonly --duration 2s| unitas drill: --duration: 2s (expected: at least 5s)",
            "demo --users 0                 | unitas demo: --users: 0 (expected: 1..1000)",
            "demo --visit-every 1           | unitas demo: --visit-every: '1' (expected: a duration like 500ms, 5s, 2m or 1h)",
            "drill region-down --visit-every 11s | unitas drill: --visit-every: 11s (expected: at most 10s)",
            "up --regions cn                | unitas up: regions: [cn] (expected: at least 2)",
            "up --ports-from 80             | unitas up: ports-from: 80 (expected: 1024..65463 for 3 regions)",
            "up --store mysql               | unitas up: --store: 'mysql' (expected: embedded or postgres)",
            "drill db-readonly --store h2   | unitas drill: --store: 'h2' (expected: embedded or postgres)",
            "up --replication zookeeper     | unitas up: --replication: 'zookeeper' (expected: embedded or kafka)",
            "drill region-down --replication nats | unitas drill: --replication: 'nats' (expected: embedded or kafka)",
            "drill partition --replication nats | unitas drill: --replication: 'nats' (expected: embedded or kafka)",
            "drill slow-region              | unitas drill: slow-region: runs on processes only (expected: --processes)",
    })
    void bad_options_are_one_line_and_exit_2(String args, String message) {
        Cli r = Cli.run(args.trim().split(" +"));

        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.err().lines().filter(l -> l.startsWith("unitas ")).toList()).containsExactly(message);
    }
}
