package io.unitas.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import io.netty.handler.codec.http.DefaultHttpHeadersFactory;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http2.HttpConversionUtil;

/** What the proxy takes off the headers it relays, and the values it stamps on them. */
class ProxyHeadersTest {

    /** Headers as the upstream side parses them: unvalidated, so spaces around values stay. */
    private static HttpHeaders headers(String... namesAndValues) {
        HttpHeaders h = DefaultHttpHeadersFactory.headersFactory().withValidation(false).newHeaders();
        for (int i = 0; i < namesAndValues.length; i += 2) {
            h.add(namesAndValues[i], namesAndValues[i + 1]);
        }
        return h;
    }

    @ParameterizedTest
    @ValueSource(strings = {"Connection", "keep-alive", "Proxy-Connection", "TE", "Trailer", "Upgrade",
                            "HTTP2-Settings", "expect"})
    void eachConnectionScopedHeaderIsRemovedInAnyCase(String name) {
        HttpHeaders h = headers("host", "a.example", name, "x", "x-user-id", "42");

        Proxy.stripHopByHop(h);

        assertThat(h.names()).containsExactlyInAnyOrder("host", "x-user-id");
    }

    @Test
    void headersTheConnectionHeaderNamesAreRemovedWithIt() {
        HttpHeaders h = headers("Connection", " close ,X-Session-Hint,, x-trace\t", "x-session-hint", "1",
                                "X-Trace", "2", "close", "3", "x-user-id", "42", "content-length", "2");

        Proxy.stripHopByHop(h);

        assertThat(h.names()).containsExactlyInAnyOrder("x-user-id", "content-length");
    }

    @Test
    void everyConnectionHeaderCountsWhenThereAreSeveral() {
        HttpHeaders h = headers("connection", "keep-alive", "x-a", "1", "Connection", "x-a, x-b", "x-b", "2",
                                "x-c", "3");

        Proxy.stripHopByHop(h);

        assertThat(h.names()).containsExactly("x-c");
    }

    @Test
    void aMessageWithoutConnectionScopedHeadersIsLeftAsItIs() {
        HttpHeaders h = headers("content-type", "text/plain", "x-keep-alive-hint", "1", "TEA", "green");

        Proxy.stripHopByHop(h);

        assertThat(h.names()).containsExactly("content-type", "x-keep-alive-hint", "TEA");
    }

    @Test
    void theHttp2ConversionsOwnHeadersAreRemoved() {
        HttpHeaders h = headers("x-user-id", "42");
        for (HttpConversionUtil.ExtensionHeaderNames name : HttpConversionUtil.ExtensionHeaderNames.values()) {
            h.add(name.text(), "1");
        }

        Proxy.stripHttp2Extensions(h);

        assertThat(h.names()).containsExactly("x-user-id");
    }

    @Test
    void theHopsValueIsTheNumberWrittenOutFarAndNear() {
        for (int hops : new int[] {0, 1, 7, 31, 32, 1000}) {
            assertThat(Proxy.hops(hops).toString()).isEqualTo(Integer.toString(hops));
        }
        assertThat(Proxy.hops(1)).isSameAs(Proxy.hops(1));
    }
}
