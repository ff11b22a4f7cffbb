package io.unitas.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;

import org.junit.jupiter.api.Test;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandler;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http.DefaultHttpRequest;
import io.netty.handler.codec.http.DefaultHttpResponse;
import io.netty.handler.codec.http.DefaultLastHttpContent;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpRequestEncoder;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpResponseEncoder;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.LastHttpContent;

/**
 * A message's head and its end relayed as one message ({@code ProxyHandler.whole}): the same bytes on the wire as
 * the two messages give, in one buffer for a short body; never when the end carries trailers.
 */
class WholeMessageTest {

    private static HttpResponse response(boolean chunked) {
        HttpResponse res = new DefaultHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.OK);
        res.headers().set("x-unitas-served-by", "cn");
        if (chunked) {
            res.headers().set(HttpHeaderNames.TRANSFER_ENCODING, HttpHeaderValues.CHUNKED);
        } else {
            res.headers().set(HttpHeaderNames.CONTENT_LENGTH, 5);
        }
        return res;
    }

    private static LastHttpContent end(String body) {
        return new DefaultLastHttpContent(Unpooled.copiedBuffer(body, StandardCharsets.US_ASCII));
    }

    /** What {@code encoder} writes for {@code messages}, one entry per buffer it writes. */
    private static List<String> encoded(Supplier<ChannelHandler> encoder, Object... messages) {
        EmbeddedChannel ch = new EmbeddedChannel(encoder.get());
        for (Object m : messages) {
            ch.writeOutbound(m);
        }
        List<String> out = new ArrayList<>();
        ByteBuf b;
        while ((b = ch.readOutbound()) != null) {
            if (b.isReadable()) {
                out.add(b.toString(StandardCharsets.US_ASCII));
            }
            b.release();
        }
        ch.finishAndReleaseAll();
        return out;
    }

    @Test
    void aFixedLengthAnswerAndItsEndAreTheSameBytesInOneBuffer() {
        List<String> apart = encoded(HttpResponseEncoder::new, response(false), end("hello"));
        List<String> whole = encoded(HttpResponseEncoder::new, ProxyHandler.whole(response(false), end("hello")));

        assertThat(apart).hasSize(2);
        assertThat(whole).containsExactly(String.join("", apart));
        assertThat(whole.get(0)).startsWith("HTTP/1.1 200 OK\r\n").endsWith("\r\n\r\nhello");
    }

    @Test
    void aChunkedAnswerWithoutTrailersIsTheSameBytes() {
        String apart = String.join("", encoded(HttpResponseEncoder::new, response(true), end("abc")));
        String whole = String.join("", encoded(HttpResponseEncoder::new, ProxyHandler.whole(response(true), end("abc"))));

        assertThat(whole).isEqualTo(apart).endsWith("\r\n\r\n3\r\nabc\r\n0\r\n\r\n");
    }

    @Test
    void aRequestWithoutBodyAndItsEmptyEndAreOneMessage() {
        Supplier<HttpRequest> get = () -> {
            HttpRequest req = new DefaultHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.GET, "/orders?id=1");
            req.headers().set("x-unitas-region", "cn");
            return req;
        };
        List<String> apart = encoded(HttpRequestEncoder::new, get.get(), LastHttpContent.EMPTY_LAST_CONTENT);
        List<String> whole = encoded(HttpRequestEncoder::new,
                                     ProxyHandler.whole(get.get(), LastHttpContent.EMPTY_LAST_CONTENT));

        assertThat(whole).containsExactly(String.join("", apart));
        assertThat(whole.get(0)).isEqualTo("GET /orders?id=1 HTTP/1.1\r\nx-unitas-region: cn\r\n\r\n");
    }

    @Test
    void anEndWithTrailersStaysAMessageOfItsOwn() {
        LastHttpContent withTrailers = end("abc");
        withTrailers.trailingHeaders().set("grpc-status", "0");

        assertThat(ProxyHandler.whole(response(true), withTrailers)).isNull();
        assertThat(ProxyHandler.whole(new DefaultHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.POST, "/"),
                                      withTrailers)).isNull();
        withTrailers.release();
    }
}
