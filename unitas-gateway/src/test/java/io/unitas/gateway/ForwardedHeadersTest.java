package io.unitas.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.Locale;

import org.junit.jupiter.api.Test;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http.DefaultHttpHeaders;
import io.netty.handler.codec.http.DefaultHttpRequest;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpVersion;
import io.unitas.core.Region;

/** The headers a forwarded request goes upstream with, and those its answer reaches the client with. */
class ForwardedHeadersTest {

    private static final Decision TO_EU = new Decision("u-eu", Region.of("eu"), Region.of("eu"), "home", null, 1,
                                                       null);
    /** As the dispatcher keeps them: the stamps and the rules' key header. */
    private final ForwardedHeaders headers = new ForwardedHeaders(GatewayConfig.Headers.DEFAULTS, "cn", name ->
            name.toString().toLowerCase(Locale.ROOT).startsWith("x-unitas-") || "x-user-id".contentEquals(
                    name.toString().toLowerCase(Locale.ROOT)));

    private static HttpRequest request(HttpVersion version, String... namesAndValues) {
        HttpHeaders h = new DefaultHttpHeaders();
        for (int i = 0; i < namesAndValues.length; i += 2) {
            h.add(namesAndValues[i], namesAndValues[i + 1]);
        }
        return new DefaultHttpRequest(version, HttpMethod.GET, "/a", h);
    }

    @Test
    void aConnectionHeaderNamingTheRoutingKeyOrAStamp_removesNeither() {
        HttpRequest req = request(HttpVersion.HTTP_1_1, "connection", "X-User-Id, x-unitas-origin, x-drop",
                                  "x-user-id", "7000", "x-unitas-origin", "us", "x-drop", "1");

        HttpHeaders up = headers.toUpstream(req, TO_EU, false).headers();

        assertThat(up.get("x-user-id")).isEqualTo("7000");
        assertThat(up.get("x-unitas-origin")).isEqualTo("us");
        assertThat(up.contains("x-drop")).isFalse();
        assertThat(up.contains("connection")).isFalse();
    }

    @Test
    void aForwardedRequestIsStampedWithItsTargetUnitOriginAndOneMoreHop() {
        HttpHeaders up = headers.toUpstream(request(HttpVersion.HTTP_1_1), TO_EU, false).headers();

        assertThat(up.get("x-unitas-region")).isEqualTo("eu");
        assertThat(up.get("x-unitas-unit")).isEqualTo("u-eu");
        assertThat(up.get("x-unitas-origin")).isEqualTo("cn");
        assertThat(up.get("x-unitas-hops")).isEqualTo("2");
    }

    @Test
    void onlyTeTrailersCrosses_andAnHttp10RequestGoesUpAsHttp11() {
        HttpRequest sent = headers.toUpstream(request(HttpVersion.HTTP_1_0, "te", "trailers, deflate"), TO_EU, false);

        assertThat(sent.protocolVersion()).isEqualTo(HttpVersion.HTTP_1_1);
        assertThat(sent.headers().get("te")).isEqualTo("trailers");
    }

    @Test
    void aRequestFromHttp2WithoutLength_goesUpChunked_withoutTheConversionsHeaders() {
        HttpRequest sent = headers.toUpstream(request(HttpVersion.HTTP_1_1, "x-http2-stream-id", "3"), TO_EU, true);

        assertThat(sent.headers().get("transfer-encoding")).isEqualTo("chunked");
        assertThat(sent.headers().contains("x-http2-stream-id")).isFalse();
    }

    @Test
    void anAnswerLosesItsHopByHopHeadersAndIsStampedWithWhoServedItAndTheRoute() {
        HttpHeaders h = new DefaultHttpHeaders().add("connection", "x-hint").add("x-hint", "1").add("etag", "\"1\"");

        headers.toClient(h, TO_EU, false);

        assertThat(h.names()).containsExactlyInAnyOrder("etag", "x-unitas-served-by", "x-unitas-route");
        assertThat(h.get("x-unitas-served-by")).isEqualTo("eu");
        assertThat(h.get("x-unitas-route")).isEqualTo("home");
    }

    @Test
    void anAnswerTakenAsBytesGetsTheSameStampsAndItsBlankLine() {
        ByteBuf head = Unpooled.copiedBuffer("HTTP/1.1 200 OK\r\ncontent-length: 0\r\n", StandardCharsets.US_ASCII);

        headers.toClient(head, TO_EU);

        assertThat(head.toString(StandardCharsets.US_ASCII)).isEqualTo(
                "HTTP/1.1 200 OK\r\ncontent-length: 0\r\nx-unitas-served-by: eu\r\nx-unitas-route: home\r\n\r\n");
        head.release();
    }
}
