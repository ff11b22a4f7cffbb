package io.unitas.gateway;

import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.QueryStringDecoder;
import io.netty.util.AsciiString;
import io.unitas.core.rules.RequestView;

/**
 * The rules' view of a live HTTP request; reads headers in place and scans the cookie header without parsing it.
 * One view serves every request of a connection (or stream) in turn, pointed at each while it is decided.
 */
final class HttpRequestView implements RequestView {

    /** Header names the rules ask for, hashed once; a rule set names only a handful. */
    private static final ConcurrentHashMap<String, AsciiString> NAMES = new ConcurrentHashMap<>();

    private HttpRequest request;
    private Map<String, List<String>> query; // decoded on first use: most rule sets never ask

    HttpRequestView() {}

    /** This view, now of {@code request}. */
    HttpRequestView of(HttpRequest request) {
        this.request = request;
        this.query = null;
        return this;
    }

    /** Lets go of the request decided, so that a view kept between requests holds none. */
    void clear() {
        this.request = null;
        this.query = null;
    }

    @Override
    public String header(String name) {
        AsciiString ascii = NAMES.get(name);
        if (ascii == null) {
            ascii = NAMES.computeIfAbsent(name, AsciiString::cached);
        }
        return request.headers().get(ascii);
    }

    @Override
    public String cookie(String name) {
        for (String line : request.headers().getAll(HttpHeaderNames.COOKIE)) {
            String value = cookieIn(line, name);
            if (value != null) {
                return value;
            }
        }
        return null;
    }

    /** The value of {@code name} in one {@code Cookie} header line ({@code a=1; b=2}, RFC 6265 section 4.2). */
    static String cookieIn(String line, String name) {
        int i = 0;
        int n = line.length();
        while (i < n) {
            while (i < n && (line.charAt(i) == ' ' || line.charAt(i) == ';')) {
                i++;
            }
            int end = line.indexOf(';', i);
            if (end < 0) {
                end = n;
            }
            int eq = i + name.length();
            if (eq < end && line.charAt(eq) == '=' && line.regionMatches(i, name, 0, name.length())) {
                String value = line.substring(eq + 1, end).trim();
                return value.length() >= 2 && value.charAt(0) == '"' && value.charAt(value.length() - 1) == '"'
                       ? value.substring(1, value.length() - 1) : value;
            }
            i = end + 1;
        }
        return null;
    }

    @Override
    public String query(String name) {
        if (query == null) {
            query = new QueryStringDecoder(request.uri()).parameters();
        }
        List<String> values = query.get(name);
        return values == null || values.isEmpty() ? null : values.get(0);
    }

    /** The {@code Host} header; over HTTP/2 the codec has put {@code :authority} there. */
    @Override
    public String host() {
        return request.headers().get(HttpHeaderNames.HOST);
    }
}
