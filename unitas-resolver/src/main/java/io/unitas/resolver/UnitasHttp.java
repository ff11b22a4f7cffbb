package io.unitas.resolver;

import java.io.IOException;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.http.HttpClient;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;

/**
 * Sends {@code java.net.http} requests to a service through a {@link UnitasResolver}: each request goes to an
 * endpoint picked for it (sticky when it carries a key, such as the user id), its URI's host and port replaced by
 * the endpoint's; a refused or timed-out connection is reported to the resolver, so the endpoint's state follows the
 * calls as well as the probes. The request's path, query, headers and body are kept.
 */
public final class UnitasHttp {

    private final HttpClient client;
    private final UnitasResolver resolver;

    private UnitasHttp(HttpClient client, UnitasResolver resolver) {
        this.client = client;
        this.resolver = resolver;
    }

    /** A helper sending with {@code client} to endpoints picked by {@code resolver}. */
    public static UnitasHttp of(HttpClient client, UnitasResolver resolver) {
        return new UnitasHttp(client, resolver);
    }

    /** Sends {@code request} to an endpoint of {@code service}; {@code key} (nullable) keeps a user on one endpoint. */
    public <T> CompletableFuture<HttpResponse<T>> sendAsync(ServiceName service, HttpRequest request, CharSequence key,
                                                            HttpResponse.BodyHandler<T> handler) {
        CompletableFuture<InetSocketAddress> picked = key == null ? resolver.pick(service) : resolver.pick(service, key);
        return picked.thenCompose(address -> client.sendAsync(to(request, address), handler).whenComplete((r, t) -> {
            Throwable cause = t instanceof CompletionException && t.getCause() != null ? t.getCause() : t;
            if (r != null) {
                resolver.report(address, true);
            } else if (cause instanceof ConnectException || cause instanceof HttpConnectTimeoutException) {
                resolver.report(address, false);
            }
        }));
    }

    /** {@link #sendAsync}, waiting for the response. */
    public <T> HttpResponse<T> send(ServiceName service, HttpRequest request, CharSequence key,
                                    HttpResponse.BodyHandler<T> handler) throws IOException, InterruptedException {
        try {
            return sendAsync(service, request, key, handler).get();
        } catch (ExecutionException e) {
            Throwable c = e.getCause();
            if (c instanceof IOException io) {
                throw io;
            }
            if (c instanceof RuntimeException re) {
                throw re;
            }
            throw new IOException(c);
        }
    }

    private static HttpRequest to(HttpRequest request, InetSocketAddress address) {
        URI u = request.uri();
        String host = address.getAddress().getHostAddress();
        try {
            URI target = new URI(u.getScheme(), u.getUserInfo(), host, address.getPort(), u.getPath(), u.getQuery(),
                    u.getFragment());
            return HttpRequest.newBuilder(request, (name, value) -> true).uri(target).build();
        } catch (URISyntaxException e) {
            throw new IllegalArgumentException("uri: " + u + " (expected: a URI whose host can be replaced)", e);
        }
    }
}
