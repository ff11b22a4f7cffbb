package io.unitas.gateway;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;

/**
 * A control plane's watch endpoint and nothing else ({@code GET /api/v1/watch?since=REV}, server-sent events
 * {@code id: REV / event: state / data: <state JSON>}), on a real socket, so a test can kill it and bring it back.
 */
final class WatchServer implements AutoCloseable {

    private final HttpServer server;
    private volatile long revision;
    private volatile String state;
    private final LinkedBlockingQueue<String> wakeups = new LinkedBlockingQueue<>();

    WatchServer(int port, long revision, String state) throws IOException {
        this.revision = revision;
        this.state = state;
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", port), 0);
        server.setExecutor(Executors.newCachedThreadPool(r -> {
            Thread t = new Thread(r, "watch-server");
            t.setDaemon(true);
            return t;
        }));
        server.createContext("/api/v1/watch", this::watch);
        server.start();
    }

    int port() {
        return server.getAddress().getPort();
    }

    /** Publishes a new whole state at {@code newRevision} to every watcher. */
    void publish(long newRevision, String newState) {
        revision = newRevision;
        state = newState;
        wakeups.add("x");
    }

    private void watch(HttpExchange ex) throws IOException {
        String query = ex.getRequestURI().getQuery();
        long since = query != null && query.startsWith("since=") ? Long.parseLong(query.substring(6)) : 0;
        ex.getResponseHeaders().add("content-type", "text/event-stream");
        ex.sendResponseHeaders(200, 0);
        try (OutputStream out = ex.getResponseBody()) {
            while (true) {
                if (revision > since) {
                    since = revision;
                    out.write(("id: " + since + "\nevent: state\ndata: " + state + "\n\n")
                                      .getBytes(StandardCharsets.UTF_8));
                    out.flush();
                }
                wakeups.take();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Kills it: every watch stream breaks. */
    @Override
    public void close() {
        server.stop(0);
        wakeups.add("x");
    }
}
