package io.unitas.data;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.unitas.core.Region;
import io.unitas.data.outbox.ChangeApplier;
import io.unitas.data.outbox.ChangeHandler;
import io.unitas.data.outbox.InProcessTransport;
import io.unitas.data.outbox.Outbox;
import io.unitas.data.outbox.OutboxShipper;
import io.unitas.data.remote.HomeReadClient;
import io.unitas.data.remote.HomeReadServer;
import io.unitas.data.store.StoredResponse;
import io.unitas.testkit.MutableClock;
import java.io.File;
import java.net.MalformedURLException;
import java.net.URI;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.Test;

/**
 * Armeria is optional in unitas-data: on a class path without Armeria's, Netty's and unitas-server-bounds's jars, the
 * outbox ships a change to another region's applier and idempotency runs an action once and replays it; home reads,
 * which run on them, name the dependencies to add instead of failing with a {@code NoClassDefFoundError}.
 */
class OptionalArmeriaTest {

    /** How the jars (and the reactor's classes directory) that carry Armeria start. */
    private static final List<String> HIDDEN = List.of("armeria-", "netty-", "unitas-server-bounds");

    @Test
    void theOutboxTheApplierAndIdempotency_runWithoutArmeria() throws Exception {
        assertThat(withoutArmeria(Replication.class)).isEqualTo(List.of("e-1 alice 10"));
        assertThat(withoutArmeria(Idempotent.class)).isEqualTo(List.of("EXECUTED 201", "REPLAYED 201", "ran 1"));
    }

    @Test
    void homeReadsWithoutArmeria_nameTheDependenciesToAdd() throws Exception {
        assertThat(withoutArmeria(HomeReads.class)).isEqualTo(List.of(
                "HomeReadClient.build(): Armeria is not on the class path (expected: com.linecorp.armeria:armeria as a"
                + " dependency of the application)",
                "HomeReadServer.start(): Armeria and unitas-server-bounds are not on the class path (expected:"
                + " com.linecorp.armeria:armeria and io.unitas:unitas-server-bounds as dependencies of the"
                + " application)"));
    }

    /** A change written in cn with its outbox row, shipped in process and applied in eu: eu's rows. */
    public static final class Replication implements Callable<List<String>> {
        @Override
        public List<String> call() throws Exception {
            Region cn = Region.of("cn");
            Region eu = Region.of("eu");
            MutableClock clock = new MutableClock(Instant.parse("2026-03-03T09:00:00Z"));
            DataSource cnDb = h2("cn");
            DataSource euDb = h2("eu");
            Outbox outbox = Outbox.jdbc(cn, cnDb, clock);
            ChangeHandler entries = (tx, change) -> {
                String[] fields = new String(change.payload(), StandardCharsets.UTF_8).split(" ");
                try (PreparedStatement insert = tx.prepareStatement("INSERT INTO entries VALUES (?, ?, ?)")) {
                    insert.setString(1, change.key());
                    insert.setString(2, fields[0]);
                    insert.setLong(3, Long.parseLong(fields[1]));
                    insert.executeUpdate();
                }
            };
            InProcessTransport transport = InProcessTransport.create();
            // the transport delivers only between regions it has receivers for: the writing one is one too
            for (Map.Entry<Region, DataSource> region : Map.of(cn, cnDb, eu, euDb).entrySet()) {
                transport.receiver(ChangeApplier.jdbc(region.getKey(), region.getValue(), Map.of("entry", entries),
                                                      clock, new SimpleMeterRegistry()));
            }
            try (OutboxShipper shipper = OutboxShipper.create(outbox, transport, List.of(eu), clock,
                                                              new SimpleMeterRegistry(), Duration.ofSeconds(30))) {
                try (Connection tx = cnDb.getConnection()) {
                    tx.setAutoCommit(false);
                    try (PreparedStatement insert = tx.prepareStatement("INSERT INTO entries VALUES ('e-1', ?, 10)")) {
                        insert.setString(1, "alice");
                        insert.executeUpdate();
                    }
                    outbox.append(tx, "u-1", "entry", "e-1", "alice 10".getBytes(StandardCharsets.UTF_8));
                    tx.commit();
                }
                shipper.shipDue();
            } finally {
                transport.close();
            }
            List<String> rows = new ArrayList<>();
            try (Connection c = euDb.getConnection(); Statement s = c.createStatement();
                 ResultSet rs = s.executeQuery("SELECT id, account, amount FROM entries ORDER BY id")) {
                while (rs.next()) {
                    rows.add(rs.getString(1) + " " + rs.getString(2) + " " + rs.getLong(3));
                }
            }
            return rows;
        }
    }

    /** One key run twice through idempotency on a JDBC store: both outcomes, and how often the action ran. */
    public static final class Idempotent implements Callable<List<String>> {
        @Override
        public List<String> call() throws Exception {
            Region cn = Region.of("cn");
            MutableClock clock = new MutableClock(Instant.parse("2026-03-03T09:00:00Z"));
            IdempotencyStore store = IdempotencyStore.jdbc(cn, h2("cn"), clock);
            Idempotency idempotency = Idempotency.builder().region(cn).homes(HomeResolver.always(cn))
                                                 .stores(Map.of(cn, store)).clock(clock).build();
            AtomicInteger ran = new AtomicInteger();
            List<String> outcomes = new ArrayList<>();
            for (int i = 0; i < 2; i++) {
                IdempotencyResult result = idempotency.execute("k-1", "alice", Idempotency.fingerprint("POST", "/e"),
                                                               () -> {
                                                                   ran.incrementAndGet();
                                                                   return new StoredResponse(201, "{}");
                                                               });
                outcomes.add(result.outcome().name() + " " + result.response().status());
            }
            outcomes.add("ran " + ran.get());
            return outcomes;
        }
    }

    /** A home-read client and server built as a service would: the message each stops with. */
    public static final class HomeReads implements Callable<List<String>> {
        @Override
        public List<String> call() {
            Region cn = Region.of("cn");
            List<String> messages = new ArrayList<>();
            try {
                HomeReadClient.builder().token("t").endpoint(cn, URI.create("http://127.0.0.1:9")).build().close();
                messages.add("client built");
            } catch (IllegalStateException e) {
                messages.add(e.getMessage());
            }
            try {
                HomeReadServer.builder().region(cn).owns(unit -> true).token("t")
                              .reader("entry", (unit, key) -> Optional.empty()).start().close();
                messages.add("server started");
            } catch (IllegalStateException e) {
                messages.add(e.getMessage());
            }
            return messages;
        }
    }

    /** A fresh in-memory database with the table {@code entries}. */
    static DataSource h2(String region) throws SQLException {
        JdbcDataSource h2 = new JdbcDataSource();
        h2.setURL("jdbc:h2:mem:optional-armeria-" + region + "-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1");
        try (Connection c = h2.getConnection(); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE entries (id VARCHAR(100) PRIMARY KEY, account VARCHAR(100), amount BIGINT)");
        }
        return h2;
    }

    /**
     * {@code scenario} run in a class loader that sees the test class path minus the jars that carry Armeria: the
     * scenario and everything it uses are loaded anew there, so a link to Armeria on its path fails it.
     */
    private static List<?> withoutArmeria(Class<? extends Callable<? extends List<?>>> scenario) throws Exception {
        List<URL> urls = new ArrayList<>();
        List<String> hidden = new ArrayList<>();
        String classPath = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
        for (String entry : classPath.split(File.pathSeparator)) {
            Path path = Path.of(entry);
            String name = path.getFileName().toString();
            if (HIDDEN.stream().anyMatch(h -> name.startsWith(h) || path.toString().contains(File.separator + h))) {
                hidden.add(entry);
            } else {
                urls.add(url(entry));
            }
        }
        assertThat(hidden).as("the jars that carry Armeria on the test class path")
                          .anyMatch(e -> e.contains("armeria-"))
                          .anyMatch(e -> e.contains("unitas-server-bounds"));
        try (URLClassLoader loader = new URLClassLoader(urls.toArray(URL[]::new),
                                                        ClassLoader.getPlatformClassLoader())) {
            for (String absent : List.of("com.linecorp.armeria.common.HttpRequest", "io.netty.channel.Channel",
                                         "io.unitas.server.bounds.ConnectionBounds")) {
                assertThat(loader.getResource(absent.replace('.', '/') + ".class")).as(absent).isNull();
            }
            Class<?> isolated = loader.loadClass(scenario.getName());
            assertThat(isolated.getClassLoader()).isSameAs(loader);
            return (List<?>) ((Callable<?>) isolated.getConstructor().newInstance()).call();
        }
    }

    private static URL url(String entry) {
        try {
            return Path.of(entry).toUri().toURL();
        } catch (MalformedURLException e) {
            throw new IllegalArgumentException(entry, e);
        }
    }
}
