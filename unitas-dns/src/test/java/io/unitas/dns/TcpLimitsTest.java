package io.unitas.dns;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.OutputStream;
import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.unitas.testkit.Await;

/**
 * The standing attacks on DNS over TCP: a client that pipelines queries and never reads an answer must be stopped
 * (backpressure), with the server's memory bounded and every other client answered.
 */
class TcpLimitsTest {

    private static final int A = 1;
    /** What the attacker offers to send: the attack (20 MB sent grew the heap by 319 MB). */
    private static final long ATTACK_BYTES = 20L << 20;

    @TempDir
    Path dir;
    private DnsServer server;
    private RawDns raw;

    @BeforeEach
    void start() {
        server = DnsServer.start(DnsConfig.read(ZoneFiles.write(dir)));
        raw = new RawDns(server.port());
    }

    @AfterEach
    void stop() {
        server.close();
    }

    @Test
    void aClientThatPipelinesAndNeverReads_isStoppedReading_theHeapStaysBounded_andOthersAreAnswered()
            throws Exception {
        long heapBefore = usedHeapAfterGc();
        AtomicLong sent = new AtomicLong();
        try (Socket attacker = new Socket()) {
            attacker.setSendBufferSize(64 << 10);
            attacker.setReceiveBufferSize(64 << 10); // and never read from
            attacker.connect(new java.net.InetSocketAddress(InetAddress.getLoopbackAddress(), server.port()));
            Thread writer = new Thread(() -> pipeline(attacker, sent), "attacker");
            writer.setDaemon(true);
            writer.start();
            // the server stops reading: the attacker's writes block, and what it managed to send stays put
            TcpConnections connections = ((NettyDnsServer) server).connections();
            Await.until("the attacker's connection paused", Duration.ofSeconds(60), () -> connections.paused() >= 1);
            int kib = Await.settled(() -> (int) (sent.get() >> 10), Duration.ofMillis(500), Duration.ofSeconds(60));
            long grown = usedHeapAfterGc() - heapBefore;
            System.out.printf("attack: %,d KiB sent before the server stopped reading; it holds %,d bytes; heap %+,d"
                              + " KiB%n", kib, connections.outstandingBytes(), grown >> 10);
            assertThat((long) kib << 10).as("bytes the server let the attacker send").isLessThan(ATTACK_BYTES);
            assertThat(grown).as("heap grown while the attacker is held").isLessThan(32L << 20);
            // one read of queries, the unsent answers' bound, and the answer that crossed it
            assertThat(connections.outstandingBytes()).as("bytes the server holds")
                    .isLessThanOrEqualTo(DnsConfig.Tcp.MAX_UNSENT_BYTES + (16 << 10) + 2 * 65_537);
            assertThat(metric("unitas_dns_tcp_paused_total")).isGreaterThanOrEqualTo(1);
            byte[] good = RawDns.query(60, "www.shop.example.", A, 0, null, 0);
            assertThat(raw.udp(good).rcode()).isZero();
            assertThat(raw.tcp(good).get(0).id()).isEqualTo(60);
        }
    }

    @Test
    void theConnectionCap_closesTheOneTooMany_andCountsIt_andFreesItsPlaceOnClose() throws Exception {
        restart("tcp: {max_connections: 2}\n", System::nanoTime);
        byte[] q = RawDns.query(62, "www.shop.example.", A, 0, null, 0);
        try (Socket one = open(); Socket two = open()) {
            assertThat(ask(one, q)).isTrue();
            assertThat(ask(two, q)).isTrue();
            try (Socket three = open()) {
                assertThat(closedByServer(three)).isTrue();
            }
            assertThat(metric("unitas_dns_tcp_refused_total")).isEqualTo(1);
            assertThat(raw.udp(q).rcode()).isZero(); // UDP is not held up by the cap
        }
        Await.until("both connections gone", Duration.ofSeconds(10),
                    () -> ((NettyDnsServer) server).connections().connections() == 0);
        assertThat(raw.tcp(q).get(0).id()).isEqualTo(62);
    }

    @Test
    void aConnectionTricklingBytes_isClosedAtTheIdleDeadline_whileOneCompletingQueriesStaysOpen() throws Exception {
        FakeTicker ticker = new FakeTicker();
        restart("tcp: {idle_timeout: 10s}\n", ticker);
        TcpConnections connections = ((NettyDnsServer) server).connections();
        byte[] q = RawDns.query(63, "www.shop.example.", A, 0, null, 0);
        try (Socket trickler = open(); Socket worker = open()) {
            Await.until("both connections open", Duration.ofSeconds(10), () -> connections.connections() == 2);
            OutputStream drip = trickler.getOutputStream();
            drip.write(0); // the first byte of a query's length; one more every 5 s
            for (int i = 0; i < 2; i++) {
                ticker.advance(Duration.ofSeconds(5));
                drip.write(q.length);
                assertThat(ask(worker, q)).isTrue(); // whole queries: the worker's deadline moves, 10 s from each
                connections.checkDeadlines();
            }
            ticker.advance(Duration.ofSeconds(1)); // 11 s since the trickler opened, 6 since the worker's last query
            drip.write(0);
            connections.checkDeadlines();
            assertThat(closedByServer(trickler)).isTrue();
            assertThat(ask(worker, q)).isTrue();
            assertThat(metric("unitas_dns_tcp_idle_closed_total")).isEqualTo(1);
            ticker.advance(Duration.ofSeconds(10));
            connections.checkDeadlines();
            assertThat(closedByServer(worker)).isTrue(); // and the worker, once it too goes 10 s without one
        }
    }

    private void restart(String tcpYaml, java.util.function.LongSupplier ticker) {
        server.close();
        DnsConfig config = DnsConfig.read(ZoneFiles.write(dir, ZoneFiles.DNS_YAML + tcpYaml));
        server = NettyDnsServer.start(config, config.source().feed(io.unitas.core.fence.Writes.DEFAULT, false),
                                      java.time.Clock.systemUTC(), ticker);
        raw = new RawDns(server.port());
    }

    private Socket open() throws IOException {
        Socket s = new Socket(InetAddress.getLoopbackAddress(), server.port());
        s.setSoTimeout(10_000);
        return s;
    }

    /** Sends one query on {@code s} and reads its answer; whether it came. */
    private static boolean ask(Socket s, byte[] query) throws IOException {
        java.io.DataOutputStream out = new java.io.DataOutputStream(s.getOutputStream());
        out.writeShort(query.length);
        out.write(query);
        out.flush();
        java.io.DataInputStream in = new java.io.DataInputStream(s.getInputStream());
        byte[] answer = new byte[in.readUnsignedShort()];
        in.readFully(answer);
        return RawDns.Answer.read(answer).id() == RawDns.Answer.read(query).id();
    }

    /** Whether the server closed {@code s}: its next read ends the stream (or is reset) instead of timing out. */
    private static boolean closedByServer(Socket s) {
        try {
            return s.getInputStream().read() == -1;
        } catch (java.net.SocketTimeoutException stillOpen) {
            return false;
        } catch (IOException reset) {
            return true;
        }
    }

    private double metric(String name) {
        try {
            String body = java.net.http.HttpClient.newHttpClient().send(
                    java.net.http.HttpRequest.newBuilder(java.net.URI.create(
                            "http://127.0.0.1:" + server.metricsPort() + "/metrics")).build(),
                    java.net.http.HttpResponse.BodyHandlers.ofString()).body();
            return body.lines().filter(l -> l.startsWith(name + " ")).mapToDouble(
                    l -> Double.parseDouble(l.substring(name.length() + 1))).findFirst().orElse(-1);
        } catch (IOException | InterruptedException e) {
            throw new AssertionError(e);
        }
    }

    /** Writes pipelined queries, whole frames in 64 KiB blocks, until {@link #ATTACK_BYTES} or the socket fails. */
    private static void pipeline(Socket s, AtomicLong sent) {
        byte[] q = RawDns.query(61, "www.shop.example.", A, 0, null, 0);
        int frame = q.length + 2;
        ByteBuffer block = ByteBuffer.allocate((64 << 10) / frame * frame);
        while (block.hasRemaining()) {
            block.putShort((short) q.length).put(q);
        }
        try {
            OutputStream out = s.getOutputStream();
            while (sent.get() < ATTACK_BYTES) {
                out.write(block.array());
                sent.addAndGet(block.capacity());
            }
        } catch (IOException closed) {
            // the test closed the socket, or the server did
        }
    }

    private static long usedHeapAfterGc() {
        for (int i = 0; i < 3; i++) {
            System.gc(); // a full collection on the default collectors; three, so finalized buffers go too
        }
        return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
    }
}
