package io.unitas.resolver;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.time.Instant;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import java.util.stream.Collectors;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.unitas.resolver.DnsResponder.Mode;
import io.unitas.resolver.DnsResponder.Srv;
import io.unitas.testkit.Await;
import io.unitas.testkit.MutableClock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** The resolver against a real DNS peer on loopback, every timing on a controlled clock. */
class ResolverTest {

    static final ServiceName API = ServiceName.srv("_api._tcp.shop.example", 8443);
    static final ServiceName WWW = ServiceName.host("www.shop.example", 8080);

    @TempDir
    Path dir;

    final MutableClock clock = new MutableClock(Instant.parse("2026-01-01T00:00:00Z"));
    final SimpleMeterRegistry meters = new SimpleMeterRegistry();
    DnsResponder dns;
    DefaultResolver resolver;

    @BeforeEach
    void start() throws Exception {
        dns = new DnsResponder()
                .srv("_api._tcp.shop.example",
                        new Srv(10, 60, 8443, "gw1.cn.shop.example"), new Srv(10, 40, 8444, "gw2.cn.shop.example"),
                        new Srv(20, 100, 8445, "gw1.eu.shop.example"))
                .a("gw1.cn.shop.example", ip("127.0.0.1"))
                .a("gw2.cn.shop.example", ip("127.0.0.2"))
                .a("gw1.eu.shop.example", ip("127.0.0.3"))
                .a("www.shop.example", ip("127.0.0.1"), ip("::1"));
    }

    @AfterEach
    void stop() {
        if (resolver != null) {
            resolver.close();
        }
        dns.close();
    }

    DefaultResolver resolver(UnitasResolver.Builder b) {
        resolver = (DefaultResolver) b.dnsServer(dns.address()).clock(clock).meterRegistry(meters)
                .tick(Duration.ofHours(1)) // the tests run the ticks themselves
                .build();
        return resolver;
    }

    DefaultResolver resolver() {
        return resolver(UnitasResolver.builder());
    }

    @Test
    void srv_givesEachTargetsAddressPortPriorityAndWeight() {
        Resolution r = resolver().resolve(API).join();
        assertThat(r.source()).isEqualTo(Source.DNS);
        assertThat(r.endpoints()).extracting(e -> e.address().getPort() + "/" + e.priority() + "/" + e.weight())
                .containsExactlyInAnyOrder("8443/10/60", "8444/10/40", "8445/20/100");
        assertThat(r.endpoints()).filteredOn(e -> e.address().getPort() == 8445)
                .extracting(e -> e.address().getAddress()).containsExactly(ip("127.0.0.3"));
    }

    @Test
    void srv_picksOnlyTheLowestPriority_inProportionToWeight() {
        resolver().resolve(API).join();
        int first = 0;
        for (int i = 0; i < 4000; i++) {
            int port = resolver.pick(API).join().getPort();
            assertThat(port).isIn(8443, 8444);
            first += port == 8443 ? 1 : 0;
        }
        assertThat(first / 4000.0).isBetween(0.55, 0.65);
    }

    @Test
    void srv_readsTheTargetsAddressesFromTheAdditionalSection_whenGiven() {
        dns.glue(true);
        assertThat(resolver().resolve(API).join().endpoints()).hasSize(3);
        assertThat(dns.asked()).containsExactly("SRV _api._tcp.shop.example.");
    }

    @Test
    void aTruncatedUdpAnswer_isAskedAgainOverTcp() {
        dns.truncateUdp(true);
        assertThat(resolver().resolve(API).join().endpoints()).hasSize(3);
        assertThat(dns.tcpQueries()).isGreaterThanOrEqualTo(4); // SRV, then A and AAAA of three targets
    }

    @Test
    void aClientSubnet_isSentWithEveryQuery_itsStrayBitsCleared() {
        Resolution r = resolver(UnitasResolver.builder().clientSubnet(ip("10.1.2.3"), 16)).resolve(API).join();
        assertThat(r.endpoints()).hasSize(3);
        assertThat(dns.lastSubnet()).isEqualTo("10.1.0.0/16");
    }

    @Test
    void withoutAClientSubnet_queriesCarryNone() {
        resolver().resolve(API).join();
        assertThat(dns.lastSubnet()).isEmpty();
    }

    @Test
    void aClientSubnetPrefixLongerThanItsAddress_isRefused() {
        assertThatThrownBy(() -> UnitasResolver.builder().clientSubnet(ip("10.1.2.3"), 33))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("clientSubnet: /33 (expected: a prefix from /0 to /32)");
    }

    @Test
    void host_resolvesAAndAaaa() {
        Resolution r = resolver().resolve(WWW).join();
        assertThat(r.endpoints()).extracting(ResolvedEndpoint::address)
                .containsExactlyInAnyOrder(new InetSocketAddress(ip("127.0.0.1"), 8080),
                        new InetSocketAddress(ip("::1"), 8080));
    }

    @Test
    void anAnswerIsKeptForItsTtl_thenServedStaleWhileAskedAgain() {
        dns.ttl(30);
        resolver().resolve(WWW).join();
        int asked = dns.queries();
        clock.advance(Duration.ofSeconds(29));
        assertThat(resolver.resolve(WWW).join().source()).isEqualTo(Source.DNS);
        assertThat(dns.queries()).isEqualTo(asked);
        clock.advance(Duration.ofSeconds(1));
        assertThat(resolver.resolve(WWW).join().source()).isEqualTo(Source.STALE);
        Await.until("DNS answers again", Duration.ofSeconds(10), () -> resolver.resolve(WWW).join().source() == Source.DNS);
        assertThat(dns.queries()).isEqualTo(asked + 2); // A and AAAA once more
    }

    @Test
    void aSubscriberHearsOfTheNewAnswer_whenTheTtlRunsOut_withoutAskingItself() throws Exception {
        dns.ttl(30);
        resolver();
        List<Resolution> heard = new java.util.concurrent.CopyOnWriteArrayList<>();
        try (AutoCloseable sub = resolver.subscribe(WWW, heard::add)) {
            Await.until("the first answer", Duration.ofSeconds(10), () -> !heard.isEmpty());
            dns.a("www.shop.example", ip("127.0.0.9"));
            clock.advance(Duration.ofSeconds(29));
            resolver.tick();
            assertThat(dns.queries()).isEqualTo(2);
            clock.advance(Duration.ofSeconds(1));
            resolver.tick();
            Await.until("the new answer", Duration.ofSeconds(10), () -> heard.get(heard.size() - 1).endpoints()
                    .stream().anyMatch(e -> e.address().getAddress().equals(ip("127.0.0.9"))));
            assertThat(heard.get(heard.size() - 1).endpoints()).hasSize(1);
        }
    }

    @ParameterizedTest
    @EnumSource(value = Mode.class, names = {"NXDOMAIN", "SERVFAIL"})
    void threeFailuresInARow_switchToThePool_andAnAnswerSwitchesBack(Mode failure) throws Exception {
        Path pool = dir.resolve("pool.txt");
        Files.writeString(pool, "# pushed by the control plane\n10.9.0.1\n10.9.0.2\n");
        resolver(UnitasResolver.builder().fallbackPool(pool));
        dns.mode(failure);
        for (int i = 1; i <= 2; i++) {
            assertThatThrownBy(() -> resolver.resolve(WWW).join())
                    .isInstanceOf(CompletionException.class).cause().isInstanceOf(NoEndpointException.class)
                    .hasMessageContaining(failure.name());
        }
        Resolution r = resolver.resolve(WWW).join();
        assertThat(r.source()).isEqualTo(Source.POOL);
        assertThat(r.endpoints()).extracting(ResolvedEndpoint::address).containsExactly(
                new InetSocketAddress(ip("10.9.0.1"), 8080), new InetSocketAddress(ip("10.9.0.2"), 8080));
        assertThat(meters.counter("unitas.resolver.fallbacks", "trigger", "failures").count()).isEqualTo(1);

        dns.mode(Mode.ANSWER);
        assertThat(resolver.resolve(WWW).join().source()).as("DNS is asked again once a second").isEqualTo(Source.POOL);
        clock.advance(Duration.ofSeconds(1));
        resolver.tick();
        Await.until("DNS answers again", Duration.ofSeconds(10), () -> resolver.resolve(WWW).join().source() == Source.DNS);
        assertThat(meters.counter("unitas.resolver.recoveries").count()).isEqualTo(1);
    }

    @Test
    void aQueryUnansweredFor800ms_switchesToThePool() throws Exception {
        Path pool = dir.resolve("pool.bin");
        Files.write(pool, new FallbackPool(List.of(ip("10.9.0.1"))).encodeBinary());
        resolver(UnitasResolver.builder().fallbackPool(pool).queryTimeout(Duration.ofMinutes(1)));
        dns.mode(Mode.SILENT);
        CompletableFuture<Resolution> waiting = resolver.resolve(WWW);
        Await.until("the queries reach the server", Duration.ofSeconds(10), () -> dns.queries() >= 2);
        clock.advance(Duration.ofMillis(799));
        resolver.tick();
        assertThat(waiting).isNotDone();
        clock.advance(Duration.ofMillis(1));
        resolver.tick();
        assertThat(waiting.join().source()).isEqualTo(Source.POOL);
        assertThat(resolver.pick(WWW).join()).isEqualTo(new InetSocketAddress(ip("10.9.0.1"), 8080));
        assertThat(meters.counter("unitas.resolver.fallbacks", "trigger", "slow").count()).isEqualTo(1);
    }

    @Test
    void dnsDown_clientsKeepTheirCachedAnswer_thenThePool_thenDnsAgain() throws Exception {
        Path pool = dir.resolve("pool.txt");
        Files.writeString(pool, "10.9.0.1\n");
        resolver(UnitasResolver.builder().fallbackPool(pool).queryTimeout(Duration.ofMinutes(1)));
        dns.ttl(30);
        InetSocketAddress cached = resolver.pick(WWW, "user-1").join();
        dns.mode(Mode.SILENT);
        clock.advance(Duration.ofSeconds(31));
        Resolution stale = resolver.resolve(WWW).join();
        assertThat(stale.source()).isEqualTo(Source.STALE);
        assertThat(resolver.pick(WWW, "user-1").join()).isEqualTo(cached);
        clock.advance(Duration.ofMillis(800));
        resolver.tick();
        assertThat(resolver.resolve(WWW).join().source()).isEqualTo(Source.POOL);
        assertThat(resolver.pick(WWW, "user-1").join()).isEqualTo(new InetSocketAddress(ip("10.9.0.1"), 8080));

        Await.until("the stale-time query reached the server", Duration.ofSeconds(10), () -> dns.queries() == 4);
        dns.mode(Mode.ANSWER);
        clock.advance(Duration.ofSeconds(1));
        resolver.tick(); // on the pool, DNS is asked again every second; the silent query is abandoned
        Await.until("DNS answers again", Duration.ofSeconds(10), () -> resolver.resolve(WWW).join().source() == Source.DNS);
        assertThat(dns.queries()).isEqualTo(6);
        assertThat(meters.counter("unitas.resolver.resolutions", "outcome", "answer").count()).isEqualTo(2);
    }

    @Test
    void withoutAPool_aSlowFirstQueryIsWaitedFor_ratherThanAnsweredWithNoEndpoint() throws Exception {
        resolver(UnitasResolver.builder().queryTimeout(Duration.ofMinutes(1)));
        dns.mode(Mode.SILENT);
        CompletableFuture<Resolution> waiting = resolver.resolve(WWW);
        Await.until("the queries reach the server", Duration.ofSeconds(10), () -> dns.queries() >= 2);
        clock.advance(Duration.ofMillis(800));
        resolver.tick();

        assertThat(waiting).isNotDone();
        assertThat(meters.counter("unitas.resolver.fallbacks", "trigger", "slow").count()).isZero();
    }

    @Test
    void anAbandonedQueryTimingOutAfterDnsAnsweredAgain_doesNotSendTheClientBackToThePool() throws Exception {
        Path pool = dir.resolve("pool.txt");
        Files.writeString(pool, "10.9.0.1\n");
        resolver(UnitasResolver.builder().fallbackPool(pool).queryTimeout(Duration.ofSeconds(2)));
        dns.mode(Mode.SILENT);
        CompletableFuture<Resolution> waiting = resolver.resolve(WWW);
        Await.until("the silent queries reach the server", Duration.ofSeconds(10), () -> dns.queries() >= 2);
        clock.advance(Duration.ofMillis(800));
        resolver.tick();
        assertThat(waiting.join().source()).isEqualTo(Source.POOL);

        dns.mode(Mode.ANSWER);
        clock.advance(Duration.ofSeconds(1));
        resolver.tick();
        Await.until("DNS answers again", Duration.ofSeconds(10), () -> resolver.resolve(WWW).join().source() == Source.DNS);
        Await.until("the abandoned query times out", Duration.ofSeconds(30),
                () -> meters.counter("unitas.resolver.resolutions", "outcome", "timeout").count() >= 1);

        assertThat(resolver.resolve(WWW).join().source()).isEqualTo(Source.DNS);
        assertThat(meters.counter("unitas.resolver.fallbacks", "trigger", "slow").count()).isEqualTo(1);
    }

    @Test
    void aKeySticksToOnePoolAddress_byCrc32() throws Exception {
        Path pool = dir.resolve("pool.txt");
        Files.writeString(pool, "10.9.0.1\n10.9.0.2\n10.9.0.3\n10.9.0.4\n10.9.0.5\n");
        resolver(UnitasResolver.builder().fallbackPool(pool)
                .fallbackTriggers(new FallbackTriggers(Duration.ofMillis(800), 1, Duration.ofSeconds(1))));
        dns.mode(Mode.SERVFAIL);
        assertThat(resolver.resolve(WWW).join().source()).isEqualTo(Source.POOL);
        Set<InetAddress> seen = new HashSet<>();
        for (int u = 0; u < 200; u++) {
            String key = "user-" + u;
            InetSocketAddress a = resolver.pick(WWW, key).join();
            assertThat(a.getAddress()).isEqualTo(resolver.pool().pick(key));
            assertThat(resolver.pick(WWW, key).join()).isEqualTo(a);
            seen.add(a.getAddress());
        }
        assertThat(seen).hasSize(5);
    }

    @Test
    void thePoolFileIsReloadedWhenItChanges_andABadOneIsRefusedWithOneLine() throws Exception {
        Path pool = dir.resolve("dns-fallback.bin");
        Files.write(pool, new FallbackPool(List.of(ip("10.9.0.1"))).encodeBinary());
        resolver(UnitasResolver.builder().fallbackPool(pool));
        assertThat(resolver.pool().addresses()).containsExactly(ip("10.9.0.1"));

        write(pool, new FallbackPool(List.of(ip("10.9.0.7"), ip("10.9.0.8"))).encodeBinary(), 1);
        clock.advance(Duration.ofSeconds(1));
        resolver.tick();
        assertThat(resolver.pool().addresses()).containsExactly(ip("10.9.0.7"), ip("10.9.0.8"));

        List<String> lines = captureLog(() -> {
            byte[] bad = new FallbackPool(List.of(ip("10.9.0.9"))).encodeBinary();
            bad[3] ^= 1;
            write(pool, bad, 2);
            clock.advance(Duration.ofSeconds(1));
            resolver.tick();
            byte[] cut = new FallbackPool(List.of(ip("10.9.0.9"))).encodeBinary();
            write(pool, java.util.Arrays.copyOf(cut, cut.length - 1), 3);
            clock.advance(Duration.ofSeconds(1));
            resolver.tick();
        });
        assertThat(resolver.pool().addresses()).containsExactly(ip("10.9.0.7"), ip("10.9.0.8"));
        assertThat(lines).hasSize(2);
        assertThat(lines.get(0)).startsWith(pool + ": checksum mismatch").endsWith("keeping the previous pool of 2 addresses");
        assertThat(lines.get(1)).startsWith(pool + ": length 9 (expected: 10 for 1 addresses)");
        assertThat(meters.counter("unitas.resolver.pool.reloads", "outcome", "refused").count()).isEqualTo(2);
    }

    static void write(Path file, byte[] data, int second) {
        try {
            Files.write(file, data);
            Files.setLastModifiedTime(file, FileTime.from(Instant.parse("2026-01-01T00:00:00Z").plusSeconds(second)));
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    static List<String> captureLog(Runnable r) {
        Logger logger = Logger.getLogger(UnitasResolver.class.getName());
        List<LogRecord> records = new java.util.concurrent.CopyOnWriteArrayList<>();
        Handler h = new Handler() {
            @Override
            public void publish(LogRecord record) {
                records.add(record);
            }

            @Override
            public void flush() {}

            @Override
            public void close() {}
        };
        logger.addHandler(h);
        try {
            r.run();
        } finally {
            logger.removeHandler(h);
        }
        return records.stream().filter(x -> x.getLevel().intValue() >= java.util.logging.Level.WARNING.intValue())
                .map(x -> new java.util.logging.SimpleFormatter().formatMessage(x)).collect(Collectors.toList());
    }

    static InetAddress ip(String literal) {
        try {
            return InetAddress.getByName(literal);
        } catch (java.net.UnknownHostException e) {
            throw new AssertionError(e);
        }
    }
}
