package io.unitas.control.client;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ConnectException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Iterator;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import java.util.stream.Stream;

/** {@link ControlClient} on the JDK's HTTP client. */
final class HttpControlClient implements ControlClient {

    private static final Duration RECONNECT = Duration.ofMillis(500);

    private final URI server;
    private final String token;
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5))
                                              .version(HttpClient.Version.HTTP_1_1).build();

    HttpControlClient(URI server, String token) {
        this.server = server;
        this.token = token;
    }

    private HttpRequest.Builder request(String path) {
        HttpRequest.Builder b = HttpRequest.newBuilder(server.resolve(path));
        if (token != null && !token.isEmpty()) {
            b.header("Authorization", "Bearer " + token);
        }
        return b;
    }

    @Override
    public ControlResponse send(String method, String path, String json, Map<String, String> headers) {
        HttpRequest.Builder b = request(path).timeout(Duration.ofSeconds(30)).method(method, json == null
                ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(json));
        if (json != null && headers.keySet().stream().noneMatch("content-type"::equalsIgnoreCase)) {
            b.header("Content-Type", "application/json");
        }
        headers.forEach(b::header);
        try {
            HttpResponse<String> res = http.send(b.build(), HttpResponse.BodyHandlers.ofString());
            String etag = res.headers().firstValue("etag").orElse("").replace("\"", "");
            return new ControlResponse(res.statusCode(), res.body(), etag.matches("\\d+") ? Long.parseLong(etag) : 0);
        } catch (ConnectException e) {
            throw new UncheckedIOException(server + ": cannot connect (is the control plane running?)", e);
        } catch (IOException e) {
            throw new UncheckedIOException(server + path + ": " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }

    @Override
    public AutoCloseable watch(long since, Consumer<WatchEvent> onState) {
        AtomicBoolean open = new AtomicBoolean(true);
        AtomicLong last = new AtomicLong(since);
        AtomicReference<Stream<String>> current = new AtomicReference<>();
        Thread thread = new Thread(() -> {
            while (open.get()) {
                String query = last.get() < 0 ? "" : "?since=" + last.get();
                try {
                    HttpResponse<Stream<String>> res = http.send(request("/api/v1/watch" + query).build(),
                                                                 HttpResponse.BodyHandlers.ofLines());
                    current.set(res.body());
                    if (res.statusCode() != 200) {
                        res.body().close();
                        throw new IOException("watch: HTTP " + res.statusCode());
                    }
                    readEvents(res.body().iterator(), event -> {
                        last.set(event.revision());
                        onState.accept(event);
                    });
                } catch (IOException | UncheckedIOException e) {
                    // dropped or refused: try again shortly, resuming after the last delivered revision
                } catch (InterruptedException e) {
                    return;
                }
                try {
                    Thread.sleep(RECONNECT.toMillis());
                } catch (InterruptedException e) {
                    return;
                }
            }
        }, "unitas-watch");
        thread.setDaemon(true);
        thread.start();
        return () -> {
            open.set(false);
            Stream<String> s = current.get();
            if (s != null) {
                s.close();
            }
            thread.interrupt();
        };
    }

    /** Parses server-sent events (WHATWG HTML, "server-sent events"): fields up to a blank line make an event. */
    static void readEvents(Iterator<String> lines, Consumer<WatchEvent> onEvent) {
        String id = null;
        String event = "message";
        StringBuilder data = new StringBuilder();
        while (lines.hasNext()) {
            String line = lines.next();
            if (line.isEmpty()) {
                if (data.length() > 0 && "state".equals(event) && id != null) {
                    onEvent.accept(new WatchEvent(Long.parseLong(id), data.toString()));
                }
                id = null;
                event = "message";
                data.setLength(0);
            } else if (line.startsWith("id:")) {
                id = line.substring(3).strip();
            } else if (line.startsWith("event:")) {
                event = line.substring(6).strip();
            } else if (line.startsWith("data:")) {
                if (data.length() > 0) {
                    data.append('\n');
                }
                data.append(line.substring(line.startsWith("data: ") ? 6 : 5));
            }
        }
    }
}
