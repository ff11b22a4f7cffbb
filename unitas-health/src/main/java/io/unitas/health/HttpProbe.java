package io.unitas.health;

import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.unitas.core.RegionHealth;
import io.unitas.core.health.ProbeResult;

/**
 * Probes an HTTP(S) URL with a GET: the status code must be in the accepted ranges and, when a string is given,
 * the first 5120 bytes of the body must contain it (Route 53's string matching). Redirects are not followed: a
 * 3xx is judged as it is. One client per probe, kept between runs (each client has a selector thread of its own)
 * and released by {@link #close()}.
 */
final class HttpProbe implements Probe {

    /** How much of the body a string match reads, as Route 53 does. */
    static final int BODY_BYTES = 5120;
    private static final String FORM = "http[s]://host[:port][/path]";

    private final ProbeConfig config;
    private final URI uri;
    private final List<int[]> accepted;
    private HttpClient client;
    private Duration clientTimeout;

    HttpProbe(ProbeConfig config) {
        this.config = config;
        Endpoint endpoint = Endpoint.parse(config.target(), List.of("http", "https"), 80, FORM);
        this.uri = URI.create(config.target());
        this.accepted = statusRanges(config.status());
        if (endpoint.host().isEmpty()) {
            throw new IllegalArgumentException("target: '" + config.target() + "' (expected: " + FORM + ")");
        }
    }

    /** Parses {@code 200-299,304} into ranges, or throws saying what was expected. */
    static List<int[]> statusRanges(String text) {
        List<int[]> ranges = new ArrayList<>();
        for (String part : text.split(",")) {
            String[] bounds = part.trim().split("-", 2);
            try {
                int low = Integer.parseInt(bounds[0].trim());
                int high = bounds.length > 1 ? Integer.parseInt(bounds[1].trim()) : low;
                if (low < 100 || high > 599 || low > high) {
                    throw new NumberFormatException();
                }
                ranges.add(new int[] {low, high});
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("status: '" + text
                        + "' (expected: codes or ranges between 100 and 599, like 200-299,304)");
            }
        }
        return ranges;
    }

    /** The client, built on first use; again only if the connect timeout changes (a check's timeout is fixed). */
    private synchronized HttpClient client(Duration timeout) {
        if (client == null || !timeout.equals(clientTimeout)) {
            release();
            client = HttpClient.newBuilder().connectTimeout(timeout).followRedirects(HttpClient.Redirect.NEVER)
                    .build();
            clientTimeout = timeout;
        }
        return client;
    }

    @Override
    public synchronized void close() {
        release();
    }

    private void release() {
        // From Java 21 a client can be closed, which stops its selector thread now; before, dropping the last
        // reference lets the thread end once the client is collected.
        if (client instanceof AutoCloseable closeable) {
            try {
                closeable.close();
            } catch (Exception e) {
                // Closing a client that has no exchange in flight does not fail; nothing to report otherwise.
            }
        }
        client = null;
    }

    @Override
    public ProbeResult probe(Duration timeout) {
        long start = Latency.start();
        Map<String, Object> seen = new LinkedHashMap<>();
        String address = uri.getHost() + ":" + (uri.getPort() < 0 ? ("https".equals(uri.getScheme()) ? 443 : 80)
                                                                   : uri.getPort());
        HttpClient client = client(timeout);
        HttpRequest request = HttpRequest.newBuilder(uri).timeout(timeout).header("User-Agent", "unitas-probe")
                .GET().build();
        try {
            HttpResponse<InputStream> response = client.send(request, HttpResponse.BodyHandlers.ofInputStream());
            String body;
            try (InputStream in = response.body()) {
                body = new String(in.readNBytes(BODY_BYTES), StandardCharsets.UTF_8);
            }
            int status = response.statusCode();
            seen.put("status", status);
            if (accepted.stream().noneMatch(r -> status >= r[0] && status <= r[1])) {
                return ProbeResult.down(Latency.since(start), "HTTP " + status + " (expected: " + config.status()
                                        + ")", RegionHealth.UNKNOWN_LAG, seen);
            }
            if (!config.bodyContains().isEmpty() && !body.contains(config.bodyContains())) {
                return ProbeResult.down(Latency.since(start), "HTTP " + status + ", body does not contain '"
                        + config.bodyContains() + "' in its first " + BODY_BYTES + " bytes", RegionHealth.UNKNOWN_LAG,
                        seen);
            }
            return ProbeResult.up(Latency.since(start), "HTTP " + status, RegionHealth.UNKNOWN_LAG, seen);
        } catch (IOException e) {
            return ProbeResult.down(Latency.since(start), ProbeFailure.reason(e, address, timeout),
                                    RegionHealth.UNKNOWN_LAG, seen);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return ProbeResult.down(Latency.since(start), "interrupted", RegionHealth.UNKNOWN_LAG, seen);
        }
    }
}
