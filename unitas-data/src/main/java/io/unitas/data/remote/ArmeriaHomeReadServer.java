package io.unitas.data.remote;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.Predicate;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import com.linecorp.armeria.common.HttpHeaderNames;
import com.linecorp.armeria.common.HttpRequest;
import com.linecorp.armeria.common.HttpResponse;
import com.linecorp.armeria.common.HttpStatus;
import com.linecorp.armeria.common.MediaType;
import com.linecorp.armeria.common.ResponseHeaders;
import com.linecorp.armeria.common.ResponseHeadersBuilder;
import com.linecorp.armeria.server.Server;
import com.linecorp.armeria.server.ServerBuilder;
import com.linecorp.armeria.server.ServiceRequestContext;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;

import io.unitas.config.ProblemJson;
import io.unitas.core.ProblemDetail;
import io.unitas.core.Region;

/** {@link HomeReadServer} on Armeria: token, then parameters, then ownership, then the reader on a blocking thread. */
final class ArmeriaHomeReadServer implements HomeReadServer {

    private static final Logger log = LoggerFactory.getLogger(ArmeriaHomeReadServer.class);
    private static final MediaType PROBLEM_JSON = MediaType.parse(ProblemJson.MEDIA_TYPE);
    private static final String BEARER = "Bearer ";

    private final Region region;
    private final Predicate<String> owns;
    private final Predicate<String> authenticator;
    private final Map<String, EntityReader> readers;
    private final MeterRegistry meters;
    private final java.util.function.LongSupplier ticker;
    private final long requestTimeoutMillis;
    private final boolean tls;
    private Server server;

    private ArmeriaHomeReadServer(HomeReadServer.Builder b) {
        this.region = b.region;
        this.owns = b.owns;
        this.authenticator = b.authenticator;
        this.readers = Map.copyOf(b.readers);
        this.meters = b.meters;
        this.ticker = b.ticker;
        this.requestTimeoutMillis = b.requestTimeout.toMillis();
        this.tls = b.tlsCert != null;
    }

    static HomeReadServer start(HomeReadServer.Builder b) {
        InetSocketAddress address = new InetSocketAddress(b.host, b.port);
        if (address.isUnresolved()) {
            throw new IllegalArgumentException("listen " + b.host + ": cannot resolve (expected: an address or a host "
                                               + "name of this machine)");
        }
        if (b.tlsCert == null && !b.allowPlaintext && !address.getAddress().isLoopbackAddress()) {
            throw new IllegalArgumentException("listen " + b.host + ": not a loopback address, without TLS "
                    + "(expected: tls(cert, key), or allowPlaintext() behind a proxy that terminates TLS)");
        }
        ArmeriaHomeReadServer s = new ArmeriaHomeReadServer(b);
        ServerBuilder sb = com.linecorp.armeria.server.Server.builder();
        if (b.tlsCert != null) {
            try {
                sb.https(address).tls(b.tlsCert.toFile(), b.tlsKey.toFile());
            } catch (RuntimeException e) {
                throw new IllegalArgumentException("tls: " + b.tlsCert + ", " + b.tlsKey + ": " + e.getMessage(), e);
            }
        } else {
            sb.http(address);
        }
        sb.requestTimeout(b.requestTimeout)
          .blockingTaskExecutor(b.blockingThreads)
          .gracefulShutdownTimeout(Duration.ZERO, Duration.ZERO)
          .route().get(HomeReadWire.PATH).build(s::serve);
        try {
            s.server = sb.build();
            s.server.start().join();
        } catch (RuntimeException e) {
            throw new IllegalArgumentException("home read server of " + b.region + " on " + b.host + ":" + b.port
                                               + ": cannot start: " + rootMessage(e), e);
        }
        log.info("home reads of region {} served on {} for entity types {}", s.region, s.uri(), s.readers.keySet());
        return s;
    }

    private HttpResponse serve(ServiceRequestContext ctx, HttpRequest req) {
        long arrived = ticker.getAsLong();
        String authorization = req.headers().get(HttpHeaderNames.AUTHORIZATION);
        if (authorization == null || !authorization.regionMatches(true, 0, BEARER, 0, BEARER.length())
            || !authenticator.test(authorization.substring(BEARER.length()).strip())) {
            return problem(null, "unauthenticated", ProblemDetail.of(401, HomeReadWire.UNAUTHENTICATED,
                    authorization == null ? "no bearer token (expected: Authorization: Bearer <token>)"
                                          : "bearer token not accepted by region " + region));
        }
        String unit = ctx.queryParam("unit");
        String type = ctx.queryParam("type");
        String key = ctx.queryParam("key");
        if (unit == null || unit.isEmpty() || type == null || type.isEmpty() || key == null || key.isEmpty()) {
            return problem(type, "bad_request", ProblemDetail.of(400, HomeReadWire.BAD_REQUEST,
                    "query: unit '" + unit + "', type '" + type + "', key '" + key + "' (expected: all three)"));
        }
        EntityReader reader = readers.get(type);
        if (reader == null) {
            return problem(null, "unknown_type", ProblemDetail.of(404, HomeReadWire.UNKNOWN_ENTITY_TYPE,
                    "entity type '" + type + "': no reader in region " + region + " (expected: one of "
                    + readers.keySet() + ")"));
        }
        if (!owns.test(unit)) {
            return notHome(type, unit);
        }
        long timeLeftMillis = timeLeftMillis(req.headers().get(HomeReadWire.TIMEOUT_HEADER));
        return HttpResponse.of(CompletableFuture.supplyAsync(
                () -> read(ctx, arrived, timeLeftMillis, reader, unit, type, key), ctx.blockingTaskExecutor()));
    }

    /** The caller's time left as sent, or this server's request timeout when absent or not a count of ms. */
    private long timeLeftMillis(String header) {
        if (header == null || header.isEmpty() || header.length() > 9 || !header.chars().allMatch(Character::isDigit)) {
            return requestTimeoutMillis;
        }
        return Math.max(1, Long.parseLong(header));
    }

    private HttpResponse read(ServiceRequestContext ctx, long arrived, long timeLeftMillis, EntityReader reader,
                              String unit, String type, String key) {
        long waitedMillis = (ticker.getAsLong() - arrived) / 1_000_000;
        if (ctx.isCancelled() || waitedMillis >= timeLeftMillis) {
            // The caller has given up: spare the store a read nobody will receive (load shedding under a backlog).
            return problem(type, "expired", ProblemDetail.of(503, HomeReadWire.EXPIRED, type + " '" + key
                    + "' of unit " + unit + ": waited " + waitedMillis + " ms in region " + region
                    + " (expected: under the caller's " + timeLeftMillis + " ms)"));
        }
        Optional<StoredEntity> entity;
        try {
            entity = reader.read(unit, key);
        } catch (Exception e) {
            log.warn("home read of {} '{}' of unit {} in region {} failed", type, key, unit, region, e);
            return problem(type, "failed", ProblemDetail.of(500, HomeReadWire.READ_FAILED, type + " '" + key
                    + "' of unit " + unit + ": the reader of region " + region + " failed ("
                    + e.getClass().getSimpleName() + ")"));
        }
        if (!owns.test(unit)) {
            return notHome(type, unit); // the unit moved during the read: what was read may already be stale
        }
        if (entity.isEmpty()) {
            return problem(type, "not_found", ProblemDetail.of(404, HomeReadWire.ENTITY_NOT_FOUND, type + " '" + key
                    + "' of unit " + unit + ": not in region " + region + ", its home"));
        }
        count(type, "found");
        return HttpResponse.of(HttpStatus.OK, MediaType.JSON,
                               HomeReadWire.encode(region.id(), unit, type, key, entity.get()));
    }

    private HttpResponse notHome(String type, String unit) {
        return problem(type, "not_home", ProblemDetail.of(421, HomeReadWire.NOT_HOME_REGION,
                "unit " + unit + ": region " + region + " is not its home now (expected: a read sent to the unit's "
                + "home region)"));
    }

    private HttpResponse problem(String type, String outcome, ProblemDetail problem) {
        count(type, outcome);
        ResponseHeadersBuilder headers = ResponseHeaders.builder(problem.status()).contentType(PROBLEM_JSON);
        if (problem.status() == 401) {
            headers.add(HttpHeaderNames.WWW_AUTHENTICATE, "Bearer");
        }
        return HttpResponse.of(headers.build(), com.linecorp.armeria.common.HttpData.wrap(ProblemJson.encode(problem)));
    }

    private void count(String type, String outcome) {
        // An unknown or absent type is not a tag value: a caller could otherwise create any number of meters.
        String typeTag = type != null && readers.containsKey(type) ? type : "none";
        Counter.builder("unitas.data.home.read.served")
               .description("Home reads this region answered, by entity type and outcome")
               .tag("region", region.id()).tag("type", typeTag).tag("outcome", outcome)
               .register(meters).increment();
    }

    private static String rootMessage(Throwable e) {
        Throwable t = e;
        while (t.getCause() != null && t.getCause() != t) {
            t = t.getCause();
        }
        return t.getMessage() != null ? t.getMessage() : t.getClass().getSimpleName();
    }

    @Override
    public Region region() {
        return region;
    }

    @Override
    public int port() {
        return server.activeLocalPort();
    }

    @Override
    public URI uri() {
        InetAddress bound = server.activePort().localAddress().getAddress();
        String host = bound.isAnyLocalAddress() || bound.isLoopbackAddress() ? "127.0.0.1"
                      : bound.getHostAddress().contains(":") ? "[" + bound.getHostAddress() + "]"
                      : bound.getHostAddress();
        return URI.create((tls ? "https://" : "http://") + host + ":" + port());
    }

    @Override
    public void close() {
        server.stop().join();
    }
}
