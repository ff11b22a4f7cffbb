package io.unitas.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class PostgresServerTest {

    /**
     * Drills take a region's database away as a crash of its server process would: what it acknowledged before must
     * be there when it starts again (a crash of the machine is another matter: the server runs without fsync).
     */
    @Test
    void everyCommitAcknowledgedBeforeAKill_isThereAfterTheRestart() {
        try (PostgresServer pg = PostgresServer.start(Ports.free())) {
            pg.execute("CREATE TABLE acknowledged (v int)");
            for (int i = 1; i <= 20; i++) {
                pg.execute("INSERT INTO acknowledged VALUES (" + i + ")");
            }
            pg.kill();
            pg.restart();

            assertThat(pg.queryOne("SELECT count(*) FROM acknowledged")).isEqualTo("20");
        }
    }
}
