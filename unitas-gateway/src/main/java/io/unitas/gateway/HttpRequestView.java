package io.unitas.gateway;

import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.QueryStringDecoder;
import io.netty.util.AsciiString;
import io.unitas.core.rules.KeySource;
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
        return request.headers().get(name(name));
    }

    private static AsciiString name(String name) {
        AsciiString ascii = NAMES.get(name);
        return ascii != null ? ascii : NAMES.computeIfAbsent(name, AsciiString::cached);
    }

    @Override
    public String cookie(String name) {
        for (String line : request.headers().getAll(HttpHeaderNames.COOKIE)) {
            int at = cookieAt(line, name, 0);
            if (at >= 0) {
                return cookieValue(line, name, at);
            }
        }
        return null;
    }

    /** The value of {@code name} in one {@code Cookie} header line ({@code a=1; b=2}, RFC 6265 section 4.2). */
    static String cookieIn(String line, String name) {
        int at = cookieAt(line, name, 0);
        return at < 0 ? null : cookieValue(line, name, at);
    }

    /** Where the pair {@code name=...} starts in {@code line} at or after {@code from}, or -1. */
    private static int cookieAt(String line, String name, int from) {
        int i = from;
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
                return i;
            }
            i = end + 1;
        }
        return -1;
    }

    /** The value of the pair {@code name=...} at {@code at}, without the quotes of a quoted value. */
    private static String cookieValue(String line, String name, int at) {
        int end = line.indexOf(';', at);
        String value = line.substring(at + name.length() + 1, end < 0 ? line.length() : end).trim();
        return value.length() >= 2 && value.charAt(0) == '"' && value.charAt(value.length() - 1) == '"'
               ? value.substring(1, value.length() - 1) : value;
    }

    @Override
    public String query(String name) {
        if (query == null) {
            query = new QueryStringDecoder(request.uri()).parameters();
        }
        List<String> values = query.get(name);
        return values == null || values.isEmpty() ? null : values.get(0);
    }

    /** The path of the request target, without its query: origin form or, from a forward proxy, absolute form. */
    @Override
    public String path() {
        String uri = request.uri();
        int start = 0;
        if (!uri.startsWith("/")) {
            int scheme = uri.indexOf("://");
            start = scheme < 0 ? -1 : uri.indexOf('/', scheme + 3);
            if (start < 0) {
                return null; // authority or asterisk form: no path
            }
        }
        int end = start;
        while (end < uri.length() && uri.charAt(end) != '?' && uri.charAt(end) != '#') {
            end++;
        }
        return start == 0 && end == uri.length() ? uri : uri.substring(start, end);
    }

    /** Whether the key {@code source} reads appears more than once: as two header fields, cookies or parameters. */
    @Override
    public boolean repeated(KeySource source) {
        return switch (source.kind()) {
            case HEADER -> {
                Iterator<? extends CharSequence> values =
                        request.headers().valueCharSequenceIterator(name(source.name()));
                yield values.hasNext() && values.next() != null && values.hasNext();
            }
            case COOKIE -> {
                int seen = 0;
                for (String line : request.headers().getAll(HttpHeaderNames.COOKIE)) {
                    for (int at = cookieAt(line, source.name(), 0); at >= 0;
                         at = cookieAt(line, source.name(), at + 1)) {
                        if (++seen > 1) {
                            yield true;
                        }
                    }
                }
                yield false;
            }
            case QUERY -> {
                query(source.name());
                List<String> values = query.get(source.name());
                yield values != null && values.size() > 1;
            }
            case PATH, DOMAIN_PREFIX, STRATEGY -> false;
        };
    }

    /** The {@code Host} header; over HTTP/2 the codec has put {@code :authority} there. */
    @Override
    public String host() {
        return request.headers().get(HttpHeaderNames.HOST);
    }
}
