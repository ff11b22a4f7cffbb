package io.unitas.core.rules;

import java.util.HashMap;
import java.util.Locale;
import java.util.Map;

/** {@link RequestView} over maps; header names are stored in lowercase. */
final class MapRequestView implements RequestView {

    private final Map<String, String> headers;
    private final Map<String, String> cookies;
    private final Map<String, String> query;
    private final String host;
    private final String path;

    MapRequestView(Map<String, String> headers, Map<String, String> cookies, Map<String, String> query,
                   String host, String path) {
        Map<String, String> lower = new HashMap<>();
        headers.forEach((name, value) -> lower.putIfAbsent(name.toLowerCase(Locale.ROOT), value));
        this.headers = Map.copyOf(lower);
        this.cookies = Map.copyOf(cookies);
        this.query = Map.copyOf(query);
        this.host = host;
        this.path = path;
    }

    @Override
    public String header(String name) {
        return headers.get(name);
    }

    @Override
    public String cookie(String name) {
        return cookies.get(name);
    }

    @Override
    public String query(String name) {
        return query.get(name);
    }

    @Override
    public String host() {
        return host;
    }

    @Override
    public String path() {
        return path;
    }

    @Override
    public String toString() {
        return "RequestView{headers=" + headers + ", cookies=" + cookies + ", query=" + query + ", host=" + host
               + ", path=" + path + '}';
    }
}
