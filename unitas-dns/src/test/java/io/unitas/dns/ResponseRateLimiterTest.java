package io.unitas.dns;

import static io.unitas.dns.ResponseRateLimiter.Verdict.DROP;
import static io.unitas.dns.ResponseRateLimiter.Verdict.SEND;
import static io.unitas.dns.ResponseRateLimiter.Verdict.SLIP;
import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

/** The rate-limit decision alone, on a ticker the test moves. */
class ResponseRateLimiterTest {

    private static final int WWW_A = ResponseRateLimiter.answerKey(Responder.NOERROR, "www.shop.example.", 1);

    private final FakeTicker ticker = new FakeTicker();

    private ResponseRateLimiter limiter(int rate, int slip) {
        return new ResponseRateLimiter(new DnsConfig.RateLimit(rate, slip, 24, 56, 1024), ticker);
    }

    private static List<ResponseRateLimiter.Verdict> ask(ResponseRateLimiter l, String client, int answer, int n) {
        List<ResponseRateLimiter.Verdict> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            out.add(l.check(address(client), answer));
        }
        return out;
    }

    private static InetAddress address(String text) {
        try {
            return InetAddress.getByAddress(GeoMapTest.ip(text));
        } catch (java.net.UnknownHostException e) {
            throw new AssertionError(e);
        }
    }

    @Test
    void aSecondsWorthAtOnce_thenEveryOtherLimitedAnswerSlips_andTheRestAreDropped() {
        ResponseRateLimiter l = limiter(3, 2);
        assertThat(ask(l, "192.0.2.1", WWW_A, 7)).containsExactly(SEND, SEND, SEND, DROP, SLIP, DROP, SLIP);
        ticker.advance(Duration.ofMillis(333)); // not yet a third of a second: no new answer
        assertThat(ask(l, "192.0.2.1", WWW_A, 1)).containsExactly(DROP);
        ticker.advance(Duration.ofMillis(1));
        assertThat(ask(l, "192.0.2.1", WWW_A, 2)).containsExactly(SEND, SLIP);
        ticker.advance(Duration.ofSeconds(5)); // refilled, never above a second's worth
        assertThat(ask(l, "192.0.2.1", WWW_A, 4)).containsExactly(SEND, SEND, SEND, DROP);
    }

    @Test
    void slipZeroDropsEveryLimitedAnswer_slipOneTruncatesEvery() {
        assertThat(ask(limiter(1, 0), "192.0.2.1", WWW_A, 4)).containsExactly(SEND, DROP, DROP, DROP);
        assertThat(ask(limiter(1, 1), "192.0.2.1", WWW_A, 4)).containsExactly(SEND, SLIP, SLIP, SLIP);
    }

    @Test
    void aNetworkSharesOneBucket_otherNetworksAndOtherAnswersHaveTheirOwn() {
        ResponseRateLimiter l = limiter(1, 0);
        assertThat(ask(l, "192.0.2.1", WWW_A, 1)).containsExactly(SEND);
        assertThat(ask(l, "192.0.2.200", WWW_A, 1)).containsExactly(DROP); // the same /24
        assertThat(ask(l, "192.0.3.1", WWW_A, 1)).containsExactly(SEND);
        int srv = ResponseRateLimiter.answerKey(Responder.NOERROR, "_api._tcp.shop.example.", 33);
        assertThat(ask(l, "192.0.2.1", srv, 1)).containsExactly(SEND);
        assertThat(ask(l, "2001:db8:0:ff::1", WWW_A, 1)).containsExactly(SEND);
        assertThat(ask(l, "2001:db8:0:aa::2", WWW_A, 1)).containsExactly(DROP); // the same /56
        assertThat(ask(l, "2001:db8:0:100::1", WWW_A, 1)).containsExactly(SEND);
    }

    @Test
    void everyNxdomainOfTheZoneIsOneAnswer_andEveryErrorAnother() {
        ResponseRateLimiter l = limiter(1, 0);
        int nx1 = ResponseRateLimiter.answerKey(Responder.NXDOMAIN, "a1.shop.example.", 1);
        int nx2 = ResponseRateLimiter.answerKey(Responder.NXDOMAIN, "b2.shop.example.", 28);
        assertThat(nx1).isEqualTo(nx2);
        assertThat(ask(l, "192.0.2.1", nx1, 1)).containsExactly(SEND);
        assertThat(ask(l, "192.0.2.1", nx2, 1)).containsExactly(DROP); // a random-name flood is one answer
        int refused = ResponseRateLimiter.answerKey(Responder.REFUSED, "www.example.org.", 1);
        assertThat(refused).isEqualTo(ResponseRateLimiter.answerKey(Responder.NOTIMP, "x.", 6));
        assertThat(ask(l, "192.0.2.1", refused, 2)).containsExactly(SEND, DROP);
    }

    @Test
    void aFloodOfSpoofedNetworks_fillsAFixedTable_andAKeyPushedOutStartsFull() {
        ResponseRateLimiter l = limiter(1, 0);
        assertThat(ask(l, "192.0.2.1", WWW_A, 2)).containsExactly(SEND, DROP);
        for (int i = 0; i < 70_000; i++) { // far more networks than the table's 1,024 slots
            l.check(address("10." + (i >> 16 & 0xff) + "." + (i >> 8 & 0xff) + ".1"), WWW_A + i);
        }
        assertThat(ask(l, "192.0.2.1", WWW_A, 2)).containsExactly(SEND, DROP);
    }
}
