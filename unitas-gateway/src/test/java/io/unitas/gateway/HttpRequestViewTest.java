package io.unitas.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

import io.netty.handler.codec.http.DefaultHttpRequest;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpVersion;

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
}
