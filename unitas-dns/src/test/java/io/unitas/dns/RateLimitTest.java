package io.unitas.dns;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.SocketTimeoutException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Response-rate limiting through the server: one source's flood of one question is answered at the configured rate,
 * the rest dropped or slipped (truncated, no records), counted; TCP and other networks are not held back.
 */
class RateLimitTest {

    private static final int SRV = 33;

    @TempDir
    Path dir;
    private final FakeTicker ticker = new FakeTicker();
    private NettyDnsServer server;

    @BeforeEach
    void start() {
        DnsConfig config = DnsConfig.read(ZoneFiles.write(dir, ZoneFiles.DNS_YAML
                + "rate_limit: {responses_per_second: 5, slip: 2}\n"));
        server = NettyDnsServer.start(config, config.source().feed(io.unitas.core.fence.Writes.DEFAULT, false),
                                      java.time.Clock.systemUTC(), ticker);
    }

    @AfterEach
    void stop() {
        server.close();
    }

    @Test
    void aFloodFromOneSource_isAnsweredAtTheRate_everyOtherLimitedAnswerSlipped_theRestDropped() throws Exception {
        byte[] srv = RawDns.query(70, "_api._tcp.shop.example.", SRV, 0, null, 0); // the worst amplification
        List<RawDns.Answer> answers = flood(srv, 25);
        List<RawDns.Answer> whole = answers.stream().filter(a -> !a.truncated()).toList();
        List<RawDns.Answer> slipped = answers.stream().filter(RawDns.Answer::truncated).toList();
        assertThat(whole).hasSize(5).allSatisfy(a -> assertThat(a.answers()).hasSize(4));
        assertThat(slipped).hasSize(10).allSatisfy(a -> {
            assertThat(a.answers()).isEmpty();
            assertThat(a.size()).isLessThanOrEqualTo(srv.length); // no amplification
        });
        String metrics = metrics();
        assertThat(metrics).contains("unitas_dns_rate_limited_total{action=\"dropped\"} 10.0")
                           .contains("unitas_dns_rate_limited_total{action=\"slipped\"} 10.0");
        // over TCP the same source is answered in full: its address cannot be forged
        assertThat(new RawDns(server.port()).tcp(srv).get(0).answers()).hasSize(4);
        ticker.advance(Duration.ofSeconds(1)); // a second later, a second's worth again
        assertThat(flood(srv, 6).stream().filter(a -> !a.truncated()).count()).isEqualTo(5);
    }

    /** Sends {@code n} copies of {@code query} from one socket, then takes every answer until 1 s passes without one. */
    private List<RawDns.Answer> flood(byte[] query, int n) throws Exception {
        List<RawDns.Answer> out = new ArrayList<>();
        try (DatagramSocket s = new DatagramSocket()) {
            s.setSoTimeout(1_000);
            for (int i = 0; i < n; i++) {
                s.send(new DatagramPacket(query, query.length, InetAddress.getLoopbackAddress(), server.port()));
            }
            DatagramPacket in = new DatagramPacket(new byte[65_535], 65_535);
            while (true) {
                try {
                    s.receive(in);
                } catch (SocketTimeoutException quiet) {
                    return out;
                }
                out.add(RawDns.Answer.read(Arrays.copyOf(in.getData(), in.getLength())));
            }
        }
    }

    private String metrics() throws Exception {
        return java.net.http.HttpClient.newHttpClient().send(
                java.net.http.HttpRequest.newBuilder(java.net.URI.create(
                        "http://127.0.0.1:" + server.metricsPort() + "/metrics")).build(),
                java.net.http.HttpResponse.BodyHandlers.ofString()).body();
    }
}
