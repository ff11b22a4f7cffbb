package io.unitas.control;

import io.unitas.core.endpoint.PoolFormat;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import com.linecorp.armeria.common.TlsKeyPair;
import com.linecorp.armeria.server.Server;
import com.linecorp.armeria.server.ServerBuilder;
import com.linecorp.armeria.server.ServiceRequestContext;
import io.unitas.config.internal.DurationFormat;
import io.unitas.config.internal.SecretFiles;
import io.unitas.server.bounds.ConnectionBounds;

/** The control plane wired together: store, service, watch hub, HTTP server and the leader's tick loop. */
final class DefaultControlServer implements ControlServer {

    private static final Logger log = LoggerFactory.getLogger(DefaultControlServer.class);

    private final StateStore store;
    private final WatchHub hub;
    private final Server server;
    private final ScheduledExecutorService ticker;
    private final ControlToken generated;
    private final Path generatedFile;
    private final boolean tls;

    private DefaultControlServer(StateStore store, WatchHub hub, Server server, ScheduledExecutorService ticker,
                                 ControlToken generated, Path generatedFile, boolean tls) {
        this.tls = tls;
        this.store = store;
        this.hub = hub;
        this.server = server;
        this.ticker = ticker;
        this.generated = generated;
        this.generatedFile = generatedFile;
    }

    /** The address of the client whose request this thread serves (the API's executors carry it), or empty. */
    private static String clientAddress() {
        ServiceRequestContext ctx = ServiceRequestContext.currentOrNull();
        return ctx == null ? "" : ctx.remoteAddress().getAddress().getHostAddress(); // as the guess throttle counts
    }

    static ControlServer start(ControlServer.Builder b) {
        InetSocketAddress address = listenAddress(b);
        Duration withEvidence = b.healthTtlWithEvidence == null ? b.healthTtl : b.healthTtlWithEvidence;
        if (withEvidence.compareTo(b.healthTtl) > 0) {
            throw new IllegalArgumentException("health ttl with evidence: " + DurationFormat.format(withEvidence)
                                               + " (expected: at most the health ttl, "
                                               + DurationFormat.format(b.healthTtl) + ")");
        }
        Path tokensFile = b.tokens != null ? b.tokens : b.dataDir.resolve("tokens");
        ControlToken generated = b.tokens == null ? firstAdminToken(tokensFile) : null;
        if (b.tlsKey != null) {
            SecretFiles.checkPrivate(b.tlsKey, "the TLS private key");
        }
        TokensFile tokens = new TokensFile(tokensFile);
        ControlMetrics metrics = new ControlMetrics();
        StateStore store = b.etcdEndpoints.isEmpty()
                ? new EmbeddedStore(b.dataDir, EmbeddedStore.Limits.DEFAULT, ChannelOpener.SYSTEM, metrics.meters())
                : new EtcdStore(b.etcdEndpoints, b.etcdPrefix, b.leaderLease, b.etcdAccess);
        ControlService service = new ControlService(store, b.clock, b.healthTtl, b.healthGrace, withEvidence,
                                                     b.cooldown, b.healthClockSkew, b.tick, b.residency, metrics,
                                                     System::nanoTime, DefaultControlServer::clientAddress);
        WatchHub hub = new WatchHub(store, b.clock, b.watchLimits);
        metrics.gauge("unitas_control_watchers", "watch streams open now", hub::watching);
        metrics.count("unitas_control_watch_drops_total", "watchers dropped for reading slower than the changes",
                      hub::droppedSlow);
        metrics.count("unitas_control_watch_events_written_total", "watch events written out to watchers",
                      hub::eventsWritten);
        tokens.onReload(hub::tokensChanged);
        HeaderDeadlines deadlines = new HeaderDeadlines(b.headerTimeout, b.idleTimeout);
        ConnectionBounds bounds = new ConnectionBounds(); // read only while the answers are taken: see there
        ServerBuilder sb = Server.builder();
        Acceptors.stopPromptly(sb);
        if (b.tlsCert != null) {
            try {
                sb.https(address).tls(TlsKeyPair.of(b.tlsKey.toFile(), b.tlsCert.toFile()));
            } catch (RuntimeException e) {
                store.close();
                throw new IllegalArgumentException("tls: " + b.tlsCert + ", " + b.tlsKey + ": " + e.getMessage(), e);
            }
        } else {
            sb.http(address);
        }
        sb.requestTimeout(Duration.ofSeconds(30))
                .idleTimeout(b.idleTimeout)
                .maxNumConnections(b.maxConnections)
                .childChannelPipelineCustomizer(deadlines.pipeline().andThen(bounds.pipeline()))
                .decorator(deadlines::serve)
                .decorator(bounds::serve)
                .gracefulShutdownTimeout(Duration.ZERO, Duration.ofMillis(500))
                .blockingTaskExecutor(4);
        byte[] pool = b.fallbackPool == null ? PoolFormat.encode(java.util.List.of()) : b.fallbackPool;
        ControlApi api = new ControlApi(service, tokens, hub, new GuessThrottle(1, 20,
                () -> TimeUnit.MILLISECONDS.toNanos(b.clock.millis())), pool, b.residency);
        api.bind(sb);
        sb.errorHandler(api.errors());
        Server server;
        try {
            server = sb.build();
        } catch (RuntimeException e) {
            store.close();
            throw b.tlsCert == null ? e : new IllegalArgumentException("tls: " + b.tlsCert + ", " + b.tlsKey + ": "
                                                                       + e.getMessage(), e);
        }
        server.start().join();
        ScheduledExecutorService ticker = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "unitas-control-tick");
            t.setDaemon(true);
            return t;
        });
        ticker.scheduleWithFixedDelay(surviving("control tick", () -> {
            if (store.leader()) {
                service.tick();
            } else {
                service.notLeading();
            }
        }), 0, b.tick.toMillis(), TimeUnit.MILLISECONDS);
        ticker.scheduleWithFixedDelay(surviving("tokens reload", tokens::reloadIfChanged), 1, 1, TimeUnit.SECONDS);
        return new DefaultControlServer(store, hub, server, ticker, generated,
                                        generated == null ? null : secretFile(tokensFile), b.tlsCert != null);
    }

    /**
     * {@code task} as a periodic task that survives whatever one run throws: a scheduled executor cancels a task for
     * good on its first uncaught throwable, so one {@code Error} would have ended health expiry and switchovers (or
     * the tokens reload) while the API kept answering. A failure is logged and the next run tries again; an
     * out-of-memory ends the process instead (the launcher runs the JVM with {@code -XX:+ExitOnOutOfMemoryError}).
     */
    static Runnable surviving(String what, Runnable task) {
        return () -> {
            try {
                task.run();
            } catch (Throwable e) { // NOPMD: see above
                if (Thread.currentThread().isInterrupted()) {
                    return; // stopping: the interrupted store write is the shutdown itself, not a failure
                }
                log.error("{} failed; retrying on the next run", what, e);
            }
        };
    }

    /** The address to listen on; cleartext beyond loopback only when allowed. */
    private static InetSocketAddress listenAddress(ControlServer.Builder b) {
        InetSocketAddress address = new InetSocketAddress(b.host, b.port);
        if (address.isUnresolved()) {
            throw new IllegalArgumentException("listen " + b.host + ": cannot resolve (expected: an address or a "
                                               + "host name of this machine)");
        }
        if (b.tlsCert == null && !b.allowPlaintext && !address.getAddress().isLoopbackAddress()) {
            throw new IllegalArgumentException("listen " + b.host + ": not a loopback address, without TLS "
                    + "(expected: tls(cert, key), or allowPlaintext() behind a proxy that terminates TLS)");
        }
        return address;
    }

    /**
     * Creates the tokens file with one admin token when it does not exist yet, and the token's secret in
     * {@code admin-token} beside it, both readable by their owner only (never printed: terminals and logs keep
     * what is printed). Returns that token.
     */
    private static ControlToken firstAdminToken(Path file) {
        SecretFiles.checkNoLink(file, "the tokens file");
        if (Files.exists(file)) {
            return null;
        }
        SecretFiles.checkNoLink(secretFile(file), "the admin token's file");
        ControlToken token = ControlToken.generate("admin", Role.ADMIN);
        try {
            Files.createDirectories(file.toAbsolutePath().getParent());
            SecretFiles.writePrivate(secretFile(file), token.secret() + "\n");
            SecretFiles.writePrivate(file, "# name role sha256:<hex of SHA-256 of the token> [region:<id>]\n"
                               + token.fileLine() + "\n");
        } catch (IOException e) {
            throw new UncheckedIOException(file + ": cannot write the tokens file", e);
        }
        return token;
    }

    private static Path secretFile(Path tokensFile) {
        return tokensFile.toAbsolutePath().getParent().resolve("admin-token");
    }

    /** The routes served, as {@code METHOD /path/{param}} (for the contract test against the OpenAPI document). */
    java.util.SortedSet<String> routes() {
        java.util.SortedSet<String> routes = new java.util.TreeSet<>();
        server.config().serviceConfigs().forEach(c -> c.route().methods().forEach(m -> routes.add(
                m + " " + c.route().patternString().replaceAll(":([A-Za-z0-9_]+)", "{$1}"))));
        return routes;
    }

    /** The connections open now. */
    int connections() {
        return server.numConnections();
    }

    @Override
    public int port() {
        return server.activeLocalPort();
    }

    @Override
    public InetSocketAddress boundAddress() {
        return server.activePort().localAddress();
    }

    @Override
    public URI uri() {
        java.net.InetAddress bound = server.activePort().localAddress().getAddress();
        String host = bound.isAnyLocalAddress() ? "127.0.0.1"
                      : bound.getHostAddress().contains(":") ? "[" + bound.getHostAddress() + "]"
                      : bound.getHostAddress();
        return URI.create((tls ? "https://" : "http://") + host + ":" + port());
    }

    @Override
    public boolean leader() {
        return store.leader();
    }

    @Override
    public long revision() {
        return store.current().revision();
    }

    @Override
    public Optional<ControlToken> generatedToken() {
        return Optional.ofNullable(generated);
    }

    @Override
    public Optional<Path> generatedTokenFile() {
        return Optional.ofNullable(generatedFile);
    }

    @Override
    public void close() {
        ticker.shutdownNow();
        server.stop().join();
        hub.close();
        store.close();
    }
}
