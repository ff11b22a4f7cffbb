package io.unitas.health;

import java.net.URI;
import java.net.URISyntaxException;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.unitas.config.internal.Redact;

/**
 * A probe target written as a URL, {@code scheme://[user[:password]@]host[:port][/path][?k=v&...]}, taken apart.
 * Each probe kind names the schemes it accepts and its default port.
 */
record Endpoint(String user, String password, String host, int port, String path, Map<String, String> query) {

    /**
     * Parses {@code target}, or throws {@link IllegalArgumentException} showing the form that was expected. The
     * query is kept as the URL has it (an HTTP probe sends it as written).
     */
    static Endpoint parse(String target, List<String> schemes, int defaultPort, String form) {
        return parse(target, target, schemes, defaultPort, form, false);
    }

    /**
     * Parses {@code url} (what {@code target}, as the user wrote it, says once a prefix is dropped) whose query
     * holds connection parameters: one host, and a parameter given twice is refused rather than one of its values
     * silently dropped.
     */
    static Endpoint parseWithParameters(String target, String url, List<String> schemes, int defaultPort,
                                        String form) {
        return parse(target, url, schemes, defaultPort, form, true);
    }

    private static Endpoint parse(String target, String url, List<String> schemes, int defaultPort, String form,
                                  boolean parameters) {
        String problem = "target: '" + Redact.url(target) + "' (expected: " + form + ")";
        String authority = url.contains("://") ? url.substring(url.indexOf("://") + 3).split("[/?#]", 2)[0] : "";
        if (parameters && authority.substring(authority.lastIndexOf('@') + 1).contains(",")) {
            throw new IllegalArgumentException("target: '" + Redact.url(target) + "': several hosts (expected: one;"
                                               + " a probe checks one server, give each its own check)");
        }
        URI uri;
        try {
            uri = new URI(url);
        } catch (URISyntaxException e) {
            throw new IllegalArgumentException(problem);
        }
        if (uri.getScheme() == null || !schemes.contains(uri.getScheme()) || uri.getHost() == null
            || uri.getRawFragment() != null) {
            throw new IllegalArgumentException(problem);
        }
        String user = null;
        String password = null;
        if (uri.getRawUserInfo() != null) {
            String[] parts = uri.getRawUserInfo().split(":", 2);
            user = parts[0].isEmpty() ? null : decode(parts[0]);
            password = parts.length > 1 ? decode(parts[1]) : null;
        }
        String path = uri.getRawPath() == null || uri.getRawPath().length() <= 1 ? ""
                                                                                   : decode(uri.getRawPath().substring(1));
        Map<String, String> query = new LinkedHashMap<>();
        if (uri.getRawQuery() != null) {
            for (String pair : uri.getRawQuery().split("&")) {
                if (!pair.isEmpty()) {
                    String[] kv = pair.split("=", 2);
                    if (query.put(decode(kv[0]), kv.length > 1 ? decode(kv[1]) : "") != null && parameters) {
                        throw new IllegalArgumentException("target: parameter '" + decode(kv[0])
                                                           + "' given twice (expected: once)");
                    }
                }
            }
        }
        return new Endpoint(user, password, uri.getHost(), uri.getPort() < 0 ? defaultPort : uri.getPort(), path,
                            Map.copyOf(query));
    }

    /** Parses {@code host:port} or {@code scheme://host:port}; the port is required. */
    static Endpoint parseHostPort(String target, String scheme) {
        String form = "host:port or " + scheme + "://host:port";
        Endpoint endpoint = parse(target.contains("://") ? target : scheme + "://" + target, List.of(scheme), -1,
                                  form);
        if (endpoint.port() < 0) {
            throw new IllegalArgumentException("target: '" + Redact.url(target) + "' (expected: " + form + ")");
        }
        return endpoint;
    }

    /** {@code host:port}, as reasons name the target. */
    String address() {
        return host + ":" + port;
    }

    private static String decode(String s) {
        return URLDecoder.decode(s.replace("+", "%2B"), StandardCharsets.UTF_8);
    }
}
