package io.unitas.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import io.netty.handler.codec.http.DefaultHttpRequest;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpVersion;
import io.unitas.core.rules.KeySource;

/** One view reads each request it is pointed at, and nothing of the one before. */
class HttpRequestViewTest {

    private static HttpRequest request(String uri, String... namesAndValues) {
        HttpRequest r = new DefaultHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.GET, uri);
        for (int i = 0; i < namesAndValues.length; i += 2) {
            r.headers().add(namesAndValues[i], namesAndValues[i + 1]);
        }
        return r;
    }

    @Test
    void aReusedViewReadsTheRequestItIsPointedAt() {
        HttpRequestView view = new HttpRequestView();

        view.of(request("/cart?user=7&region=cn", "x-user-id", "42", "cookie", "uid=9; theme=dark", "host", "a"));
        assertThat(view.header("x-user-id")).isEqualTo("42");
        assertThat(view.query("user")).isEqualTo("7");
        assertThat(view.cookie("theme")).isEqualTo("dark");
        assertThat(view.host()).isEqualTo("a");

        view.of(request("/cart?user=8", "cookie", "uid=10"));
        assertThat(view.header("x-user-id")).isNull();
        assertThat(view.query("user")).isEqualTo("8");
        assertThat(view.query("region")).isNull();
        assertThat(view.cookie("uid")).isEqualTo("10");
        assertThat(view.cookie("theme")).isNull();
        assertThat(view.host()).isNull();
    }

    @ParameterizedTest(name = "{0} has path {1}")
    @CsvSource(nullValues = "-", value = {
            "/wallets/42?x=1,                     /wallets/42",
            "/wallets/42#top,                     /wallets/42",
            "/wallets/42,                         /wallets/42",
            "http://shop.example/wallets/42?x=1,  /wallets/42",
            "shop.example:443,                    -",
            "*,                                   -",
    })
    void thePathIsTheTargetsPath_withoutQuery(String uri, String path) {
        assertThat(new HttpRequestView().of(request(uri)).path()).isEqualTo(path);
    }

    @Test
    void aKeyGivenTwice_isSeenAsRepeated_perSource() {
        HttpRequestView view = new HttpRequestView().of(request(
                "/a?user=1&user=1&one=2", "x-user-id", "4500", "X-User-Id", "100", "x-once", "1",
                "cookie", "uid=1; theme=dark", "cookie", "uid=2", "cookie", "solo=3; other=4"));

        assertThat(view.repeated(KeySource.header("x-user-id"))).isTrue();
        assertThat(view.repeated(KeySource.header("x-once"))).isFalse();
        assertThat(view.repeated(KeySource.header("x-absent"))).isFalse();
        assertThat(view.repeated(KeySource.query("user"))).isTrue();
        assertThat(view.repeated(KeySource.query("one"))).isFalse();
        assertThat(view.repeated(KeySource.cookie("uid"))).isTrue();
        assertThat(view.repeated(KeySource.cookie("solo"))).isFalse();
        assertThat(view.repeated(KeySource.path("/a/{id}"))).isFalse();
    }
}
