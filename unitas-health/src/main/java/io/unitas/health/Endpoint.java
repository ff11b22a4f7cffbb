package io.unitas.health;

import java.net.URI;
import java.net.URISyntaxException;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A probe target written as a URL, {@code scheme://[user[:password]@]host[:port][/path][?k=v&...]}, taken apart.
 * Each probe kind names the schemes it accepts and its default port.
 */
record Endpoint(String user, String password, String host, int port, String path, Map<String, String> query) {

    /**
     * Parses {@code target} (a {@code jdbc:} prefix is dropped), or throws {@link IllegalArgumentException} showing
     * the form that was expected.
     */
    static Endpoint parse(String target, List<String> schemes, int defaultPort, String form) {
        String problem = "target: '" + target + "' (expected: " + form + ")";
        URI uri;
        try {
            uri = new URI(target.startsWith("jdbc:") ? target.substring(5) : target);
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
                    query.put(decode(kv[0]), kv.length > 1 ? decode(kv[1]) : "");
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
            throw new IllegalArgumentException("target: '" + target + "' (expected: " + form + ")");
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
