package io.unitas.core.rules;

import java.util.Map;

/**
 * What unit rules may read from a request, without I/O: the gateway implements it over a live HTTP request, tests
 * and the CLI over maps. Every method returns {@code null} when the value is absent; none may allocate needlessly,
 * since lookups call them on the hot path.
 */
public interface RequestView {

    /** The first value of header {@code name} (case-insensitive, given in lowercase), or {@code null}. */
    String header(String name);

    /** The value of cookie {@code name}, or {@code null}. */
    String cookie(String name);

    /** The first value of query parameter {@code name}, decoded, or {@code null}. */
    String query(String name);

    /** The host the request was sent to, as in the {@code Host} header (maybe with a port), or {@code null}. */
    String host();

    /**
     * The request's path without its query, percent-encoded as sent ({@code /wallets/42}), or {@code null} when the
     * view has none; {@link KeySource#path path} key sources read it.
     */
    default String path() {
        return null;
    }

    /**
     * Whether the header, cookie or query parameter {@code source} reads is given more than once in this request: a
     * routing key given twice is refused ({@link UnitLookup.Outcome#AMBIGUOUS_KEY}), since a service behind the
     * gateway may read another of its values than the one the request was routed by. Views over a live request
     * override it; a view that cannot hold a name twice (a map) keeps the default.
     */
    default boolean repeated(KeySource source) {
        return false;
    }

    /**
     * A view over plain maps, for tests, tools and the CLI. Header names match case-insensitively; the maps are
     * copied.
     */
    static RequestView of(Map<String, String> headers, Map<String, String> cookies, Map<String, String> query,
                          String host) {
        return new MapRequestView(headers, cookies, query, host, null);
    }

    /** A view over plain maps with a path ({@code /wallets/42}, without the query), for tools and tests. */
    static RequestView of(Map<String, String> headers, Map<String, String> cookies, Map<String, String> query,
                          String host, String path) {
        return new MapRequestView(headers, cookies, query, host, path);
    }

    /** A view with nothing but headers. */
    static RequestView ofHeaders(Map<String, String> headers) {
        return of(headers, Map.of(), Map.of(), null);
    }
}
