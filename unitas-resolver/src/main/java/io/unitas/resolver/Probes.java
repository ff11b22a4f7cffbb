package io.unitas.resolver;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.channels.AsynchronousSocketChannel;
import java.nio.channels.CompletionHandler;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/** The TCP and HTTP probes. */
final class Probes {

    private Probes() {}

    static final class Tcp implements EndpointProbe {
        private final Duration timeout;

        Tcp(Duration timeout) {
            this.timeout = timeout;
        }

        @Override
        public CompletableFuture<?> probe(InetSocketAddress address) {
            CompletableFuture<Void> done = new CompletableFuture<>();
            AsynchronousSocketChannel ch;
            try {
                ch = AsynchronousSocketChannel.open();
            } catch (IOException e) {
                return CompletableFuture.failedFuture(e);
            }
            ch.connect(address, null, new CompletionHandler<Void, Void>() {
                @Override
                public void completed(Void result, Void attachment) {
                    done.complete(null);
                }

                @Override
                public void failed(Throwable exc, Void attachment) {
                    done.completeExceptionally(exc);
                }
            });
            return done.orTimeout(timeout.toMillis(), TimeUnit.MILLISECONDS).whenComplete((r, e) -> {
                try {
                    ch.close();
                } catch (IOException ignored) {
                    // closing a probe's socket: nothing to do about it
                }
            });
        }
    }

    static final class Http implements EndpointProbe {
        private final String path;
        private final Duration timeout;
        private final HttpClient client;

        Http(String path, Duration timeout) {
            if (!path.startsWith("/")) {
                throw new IllegalArgumentException("path: '" + path + "' (expected: to start with /)");
            }
            this.path = path;
            this.timeout = timeout;
            this.client = HttpClient.newBuilder().connectTimeout(timeout).build();
        }

        @Override
        public CompletableFuture<?> probe(InetSocketAddress address) {
            String host = address.getAddress().getHostAddress();
            host = host.indexOf(':') >= 0 ? "[" + host + "]" : host;
            HttpRequest request = HttpRequest.newBuilder(URI.create("http://" + host + ":" + address.getPort() + path))
                    .timeout(timeout).GET().build();
            return client.sendAsync(request, HttpResponse.BodyHandlers.discarding()).thenApply(r -> {
                if (r.statusCode() >= 400) {
                    throw new IllegalStateException("GET " + path + ": " + r.statusCode());
                }
                return r;
            });
        }
    }
}
