package io.unitas.health;

import java.io.IOException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;

import io.unitas.config.HealthReportJson;
import io.unitas.core.health.HealthReport;

/**
 * Pushes health reports to the control plane: {@code PUT} of the report's JSON, on every change and at least
 * every {@link PushConfig#every()}. Only the latest report is ever sent: one that is superseded while a push
 * fails is dropped. Failures are retried with exponential backoff, 250 ms doubling up to 10 s.
 */
final class HealthPusher implements AutoCloseable {

    private static final System.Logger LOG = System.getLogger(HealthPusher.class.getName());
    private static final Duration FIRST_RETRY = Duration.ofMillis(250);
    private static final Duration LONGEST_RETRY = Duration.ofSeconds(10);
    private static final Duration TIMEOUT = Duration.ofSeconds(2);

    private final PushConfig config;
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(TIMEOUT).build();
    private final AtomicReference<HealthReport> pending = new AtomicReference<>();
    private final ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "unitas-health-push");
        t.setDaemon(true);
        return t;
    });
    private boolean sending;
    private int failures;
    private volatile String lastError = "";

    HealthPusher(PushConfig config, Supplier<HealthReport> current) {
        this.config = config;
        long every = config.every().toMillis();
        scheduler.scheduleAtFixedRate(() -> offer(current.get()), every, every, TimeUnit.MILLISECONDS);
    }

    /** The delay before retry number {@code attempt} (1 for the first). */
    static Duration backoff(int attempt) {
        int doublings = Math.min(Math.max(0, attempt - 1), 16);
        Duration delay = FIRST_RETRY.multipliedBy(1L << doublings);
        return delay.compareTo(LONGEST_RETRY) > 0 ? LONGEST_RETRY : delay;
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
            HttpRequest.Builder request = HttpRequest.newBuilder(config.url()).timeout(TIMEOUT)
                    .header("Content-Type", "application/json")
                    .PUT(HttpRequest.BodyPublishers.ofString(HealthReportJson.write(report)));
            String token = token();
            if (token != null) {
                request.header("Authorization", "Bearer " + token);
            }
            HttpResponse<String> response = http.send(request.build(), HttpResponse.BodyHandlers.ofString());
            if (response.statusCode() / 100 != 2) {
                throw new IOException("HTTP " + response.statusCode() + " from " + config.url());
            }
            failures = 0;
            lastError = "";
            scheduler.execute(this::send);
        } catch (IOException | RuntimeException e) {
            failures++;
            lastError = ProbeFailure.reason(e, config.url().getHost() + ":" + config.url().getPort(), TIMEOUT);
            LOG.log(System.Logger.Level.WARNING, "push of health report " + report.sequence() + " to "
                    + config.url() + " failed (" + lastError + "); retrying in " + backoff(failures).toMillis() + "ms");
            pending.compareAndSet(null, report);
            scheduler.schedule(this::send, backoff(failures).toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private String token() throws IOException {
        if (config.tokenFile() != null) {
            return Files.readString(config.tokenFile()).trim();
        }
        return config.tokenEnv() == null ? null : System.getenv(config.tokenEnv());
    }

    @Override
    public void close() {
        scheduler.shutdownNow();
    }
}
