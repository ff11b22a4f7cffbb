package io.unitas.health;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.unitas.config.HealthReportJson;
import io.unitas.config.internal.SecretFiles;
import io.unitas.control.client.ControlClient;
import io.unitas.control.client.internal.ControlResponse;
import io.unitas.control.client.internal.RawClient;
import io.unitas.core.health.HealthReport;

/**
 * Pushes health reports to the control plane with the control plane's own client: {@code PUT} of the report's JSON,
 * on every change and at least every {@link PushConfig#every()}. Only the latest report is ever sent: one that is
 * superseded while a push fails is dropped. Failures are retried with exponential backoff, 250 ms doubling up to
 * 10 s or the push interval, whichever is shorter; the first failure of a run is logged as a warning, the rest of
 * the run at debug level, and the recovery once, so an outage of the control plane is three lines, not one per
 * retry.
 */
final class HealthPusher implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(HealthPusher.class);
    private static final Duration FIRST_RETRY = Duration.ofMillis(250);
    private static final Duration LONGEST_RETRY = Duration.ofSeconds(10);
    private static final Duration TIMEOUT = Duration.ofSeconds(2);

    private final PushConfig config;
    private final RawClient client;
    private final AtomicReference<HealthReport> pending = new AtomicReference<>();
    private final ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "unitas-health-push");
        t.setDaemon(true);
        return t;
    });
    private boolean sending;
    private int failures;
    private volatile String lastError = "";

    /** Refuses, naming it, a URL that would send the token in cleartext to another host, or a bad CA file. */
    HealthPusher(PushConfig config, Supplier<HealthReport> current) {
        this.config = config;
        this.client = client(config);
        long every = config.every().toMillis();
        scheduler.scheduleAtFixedRate(DefaultHealthAgent.surviving("health push", () -> {
            HealthReport report = current.get();
            if (report != null) {
                offer(report);
            }
        }), every, every, TimeUnit.MILLISECONDS);
    }

    /**
     * The control plane's client for {@code config}'s receiver, raw: the report goes to the receiver's URL as
     * configured, which may be another path than the control plane's own.
     */
    static RawClient client(PushConfig config) {
        try {
            return RawClient.of(ControlClient.builder(config.url()).connectTimeout(TIMEOUT).requestTimeout(TIMEOUT)
                                .token(() -> token(config)).ca(config.ca()).allowInsecure(config.allowInsecure())
                                .build());
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(e.getMessage().replace("allow_insecure", "allow-insecure"), e);
        }
    }

    /**
     * The delay before retry number {@code attempt} (1 for the first), at most 10 s and at most the push interval
     * {@code every}: a control plane back from an outage expires regions it has not heard from for its TTL and grace.
     */
    static Duration backoff(int attempt, Duration every) {
        int doublings = Math.min(Math.max(0, attempt - 1), 16);
        Duration delay = FIRST_RETRY.multipliedBy(1L << doublings);
        Duration longest = every.compareTo(LONGEST_RETRY) < 0 ? every : LONGEST_RETRY;
        return delay.compareTo(longest) > 0 ? longest : delay;
    }

    /** Queues {@code report} for pushing, replacing any report not yet sent. */
    void offer(HealthReport report) {
        pending.set(report);
        synchronized (this) {
            if (sending) {
                return;
            }
            sending = true;
        }
        scheduler.execute(this::send);
    }

    /** Why the last push failed, empty when it succeeded. */
    String lastError() {
        return lastError;
    }

    private void send() {
        HealthReport report = pending.getAndSet(null);
        if (report == null) {
            synchronized (this) {
                sending = false;
            }
            return;
        }
        try {
            ControlResponse response = client.send("PUT", config.url().getRawPath(), HealthReportJson.write(report),
                                                   Map.of());
            if (!response.ok()) {
                throw new IOException("HTTP " + response.status() + " from " + config.url() + ": "
                                      + ControlResponse.problemDetail(response.body()));
            }
            if (failures > 0) {
                log.info("push of health reports to {} works again after {} failures", config.url(), failures);
            }
            failures = 0;
            lastError = "";
            scheduler.execute(this::send);
        } catch (IOException | RuntimeException e) {
            failures++;
            Throwable cause = e instanceof UncheckedIOException && e.getCause() != null ? e.getCause() : e;
            lastError = ProbeFailure.reason(cause, config.url().getHost() + ":" + config.url().getPort(), TIMEOUT);
            long retry = backoff(failures, config.every()).toMillis();
            if (failures == 1) {
                log.warn("push of health report {} to {} failed ({}); retrying in {} ms, and quietly until it works",
                         report.sequence(), config.url(), lastError, retry);
            } else {
                log.debug("push of health report {} to {} failed ({}); retrying in {} ms", report.sequence(),
                          config.url(), lastError, retry);
            }
            pending.compareAndSet(null, report);
            scheduler.schedule(this::send, retry, TimeUnit.MILLISECONDS);
        }
    }

    /** What the token file is called where its mode or a link is refused. */
    static final String TOKEN_FILE = "the push token";

    /**
     * The bearer token: the file's (read at each push, so it can be rotated, and checked each time as at start: its
     * owner's only, not a link), or the environment variable's.
     */
    private static String token(PushConfig config) {
        if (config.tokenFile() != null) {
            SecretFiles.checkPrivate(config.tokenFile(), TOKEN_FILE);
            try {
                return Files.readString(config.tokenFile()).trim();
            } catch (IOException e) {
                throw new UncheckedIOException(config.tokenFile() + ": cannot read the token", e);
            }
        }
        return config.tokenEnv() == null ? null : System.getenv(config.tokenEnv());
    }

    @Override
    public void close() {
        scheduler.shutdownNow();
    }
}
