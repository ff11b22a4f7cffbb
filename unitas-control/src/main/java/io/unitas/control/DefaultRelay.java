package io.unitas.control;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.time.Duration;
import java.util.EnumSet;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.linecorp.armeria.common.HttpResponse;
import com.linecorp.armeria.common.HttpStatus;
import com.linecorp.armeria.common.MediaType;
import com.linecorp.armeria.common.TlsKeyPair;
import com.linecorp.armeria.server.Server;
import com.linecorp.armeria.server.ServerBuilder;
import com.linecorp.armeria.server.ServiceRequestContext;
import io.unitas.config.internal.SecretFiles;
import io.unitas.control.client.ControlClient;
import io.unitas.control.client.WatchStatus;

/** The relay wired together: the upstream watch feeding a {@link WatchHub}, served by the same {@link WatchApi}. */
final class DefaultRelay implements Relay {

    private static final Logger log = LoggerFactory.getLogger(DefaultRelay.class);

    private final WatchHub hub;
    private final ControlClient.Watch watch;
    private final Server server;
    private final ScheduledExecutorService reload;
    private final boolean tls;
    private final int port;
    private final long deadAfterMillis;
    private final AtomicLong badStates;

    private DefaultRelay(WatchHub hub, ControlClient.Watch watch, Server server, ScheduledExecutorService reload,
                         long deadAfterMillis, AtomicLong badStates, boolean tls) {
        this.tls = tls;
        this.port = server.activeLocalPort();
        this.hub = hub;
        this.watch = watch;
        this.server = server;
        this.reload = reload;
        this.deadAfterMillis = deadAfterMillis;
        this.badStates = badStates;
    }

    static Relay start(Relay.Builder b) {
        InetSocketAddress address = new InetSocketAddress(b.host, b.port);
        if (address.isUnresolved()) {
            throw new IllegalArgumentException("listen " + b.host + ": cannot resolve (expected: an address or a "
                                               + "host name of this machine)");
        }
        if (b.tlsCert == null && !b.allowPlaintext && !address.getAddress().isLoopbackAddress()) {
            throw new IllegalArgumentException("listen " + b.host + ": cleartext beyond loopback (expected: TLS, "
                                               + "or plaintext allowed behind a proxy that terminates TLS)");
        }
        TlsKeyPair keyPair = null;
        if (b.tlsKey != null) {
            SecretFiles.checkPrivate(b.tlsKey, "the TLS private key");
            try {
                keyPair = TlsKeyPair.of(b.tlsKey.toFile(), b.tlsCert.toFile());
            } catch (RuntimeException e) {
                throw new IllegalArgumentException("tls: " + b.tlsCert + ", " + b.tlsKey + ": " + e.getMessage(), e);
            }
        }
        TokensFile tokens = new TokensFile(b.tokens);
        WatchHub hub = new WatchHub(b.clock, b.watchLimits);
        tokens.onReload(hub::tokensChanged);
        GuessThrottle guesses = new GuessThrottle(1, 20, () -> TimeUnit.MILLISECONDS.toNanos(b.clock.millis()));
        ControlClient.Builder upstream = ControlClient.builder(b.upstream).token(b.upstreamToken)
                .allowInsecure(b.allowInsecure).heartbeat(b.heartbeat, b.missedHeartbeats)
                .reconnectBackoff(b.firstBackoff, b.longestBackoff).scheduler(b.scheduler);
        if (b.upstreamCa != null) {
            upstream.ca(b.upstreamCa);
        }
        ControlClient client = upstream.build();

        AtomicLong badStates = new AtomicLong();
        // the upstream watch: every part, so each view is cut here as the control plane cuts it
        ControlClient.Watch watch = client.watch(-1, EnumSet.allOf(ControlClient.Part.class), event -> {
            JsonNode tree;
            try {
                tree = StateJson.MAPPER.readTree(event.json());
            } catch (JsonProcessingException e) {
                tree = null;
            }
            if (!(tree instanceof ObjectNode state)) {
                badStates.incrementAndGet();
                throw new IllegalArgumentException("revision " + event.revision() + ": not a state object");
            }
            hub.offer(event.revision(), () -> state);
        });
        long deadAfterMillis = b.heartbeat.toMillis() * b.missedHeartbeats;
        ControlMetrics metrics = new ControlMetrics().withoutCommits();
        metrics.gauge("unitas_relay_watchers", "watch streams open now", hub::watching);
        metrics.count("unitas_relay_watch_drops_total", "watchers dropped for reading slower than the changes",
                      hub::droppedSlow);
        metrics.count("unitas_relay_watch_events_written_total", "watch events written out to watchers",
                      hub::eventsWritten);
        metrics.gauge("unitas_relay_upstream_connected", "1 while the upstream watch is connected and heard from",
                      () -> healthy(watch.status(), deadAfterMillis) ? 1 : 0);
        metrics.gauge("unitas_relay_upstream_revision", "the newest revision from upstream", hub::latestRevision);
        metrics.gauge("unitas_relay_upstream_last_event_age_seconds", "since the upstream's last event or heartbeat",
                      () -> watch.status().lastEventAgeMillis() / 1000.0);
        metrics.count("unitas_relay_upstream_reconnects_total", "upstream connections replaced",
                      () -> watch.status().reconnects());
        metrics.count("unitas_relay_upstream_bad_states_total", "upstream events that were not a state",
                      badStates::get);

        WatchApi watches = new WatchApi(hub, hub::latestRevision);
        ServerBuilder sb = Server.builder();
        Acceptors.stopPromptly(sb);
        if (b.tlsCert != null) {
            sb.https(address).tls(keyPair);
        } else {
            sb.http(address);
        }
        sb.maxNumConnections(b.maxConnections)
                .requestTimeout(Duration.ofSeconds(30))
                .gracefulShutdownTimeout(Duration.ZERO, Duration.ofMillis(200));
        sb.route().get("/api/v1/watch").build((ctx, req) -> {
            Viewer viewer = authorize(ctx, tokens, guesses);
            if (viewer.refusal() != null) {
                return ControlApi.respond(Outcome.problem(viewer.refusal()));
            }
            return watches.serve(ctx, req, viewer.name(), viewer.secret());
        });
        sb.route().get("/metrics").build((ctx, req) -> {
            Refusal refusal = authorize(ctx, tokens, guesses).refusal();
            if (refusal != null) {
                return ControlApi.respond(Outcome.problem(refusal));
            }
            return HttpResponse.of(HttpStatus.OK, MediaType.parse("text/plain; version=0.0.4; charset=utf-8"),
                                   metrics.scrape());
        });
        sb.route().get("/healthz").build((ctx, req) -> {
            WatchStatus status = watch.status();
            boolean ok = healthy(status, deadAfterMillis);
            return HttpResponse.of(ok ? HttpStatus.OK : HttpStatus.SERVICE_UNAVAILABLE, MediaType.PLAIN_TEXT_UTF_8,
                                   healthLine(status, ok) + "\n");
        });
        ScheduledExecutorService reload = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "unitas-relay-tokens");
            t.setDaemon(true);
            return t;
        });
        Server server;
        try {
            server = sb.build();
            server.start().join();
        } catch (RuntimeException e) {
            watch.close();
            reload.shutdownNow();
            hub.close();
            throw e;
        }
        reload.scheduleWithFixedDelay(DefaultControlServer.surviving("tokens reload", tokens::reloadIfChanged), 1, 1,
                                      TimeUnit.SECONDS);
        DefaultRelay relay = new DefaultRelay(hub, watch, server, reload, deadAfterMillis, badStates,
                                              b.tlsCert != null);
        log.info("unitas relay listening on {}, watching {}", server.activeLocalPort(), b.upstream);
        return relay;
    }

    /** A caller: its token's name and secret, or why it may not watch. */
    private record Viewer(String name, String secret, Refusal refusal) {
        static Viewer refused(Refusal.Kind kind, String detail) {
            return new Viewer(null, null, Refusal.of(kind, detail));
        }
    }

    /** The caller's viewer token, as the control plane checks it (bearer or {@code access_token}, throttled). */
    private static Viewer authorize(ServiceRequestContext ctx, TokensFile tokens, GuessThrottle guesses) {
        String secret = WatchApi.secret(ctx);
        if (secret == null || secret.isEmpty()) {
            return Viewer.refused(Refusal.Kind.UNAUTHENTICATED, "no bearer token (expected: Authorization: Bearer "
                                                                + "<token>)");
        }
        InetAddress client = ctx.remoteAddress().getAddress();
        if (guesses.blocked(client)) {
            return Viewer.refused(Refusal.Kind.TOO_MANY_GUESSES, "too many wrong tokens from "
                                  + client.getHostAddress() + " (expected: a valid token, after Retry-After)");
        }
        TokenTable.Principal principal = tokens.current().authenticate(secret).orElse(null);
        if (principal == null) {
            guesses.failed(client);
            return Viewer.refused(Refusal.Kind.UNAUTHENTICATED, "unknown bearer token");
        }
        if (!principal.role().allows(Role.VIEWER)) {
            return Viewer.refused(Refusal.Kind.FORBIDDEN, "role " + principal.role().jsonName()
                                                          + " (expected: viewer or above)");
        }
        return new Viewer(principal.name(), secret, null);
    }

    /** One line for {@code /healthz}: the upstream watch's state. */
    static String healthLine(WatchStatus s, boolean healthy) {
        String state = healthy ? "ok" : s.connected() ? "upstream stalled" : "upstream down";
        return state + ": " + s.describe();
    }

    /** Connected, and heard from (an event or a heartbeat) within the deadline: a half-open stream is not. */
    static boolean healthy(WatchStatus s, long deadAfterMillis) {
        return s.connected() && s.lastEventAgeMillis() >= 0 && s.lastEventAgeMillis() <= deadAfterMillis;
    }

    @Override
    public boolean healthy() {
        return healthy(watch.status(), deadAfterMillis);
    }

    @Override
    public int port() {
        return port;
    }

    @Override
    public URI uri() {
        return URI.create((tls ? "https" : "http") + "://127.0.0.1:" + port());
    }

    @Override
    public long revision() {
        return hub.latestRevision();
    }

    @Override
    public WatchStatus upstream() {
        return watch.status();
    }

    /** Upstream events that did not read as a state, since start. */
    long badStates() {
        return badStates.get();
    }

    @Override
    public void close() {
        watch.close();
        reload.shutdownNow();
        server.stop().join();
        hub.close();
    }
}
