package io.unitas.control.client;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import java.util.random.RandomGenerator;
import java.util.stream.Collectors;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.unitas.control.client.internal.ControlResponse;

/**
 * One watch: a thread that reads the stream and delivers events, and deadlines on the injected
 * {@link WatchScheduler}. The server sends a heartbeat every few seconds; a connection that has said nothing for
 * {@code missed} heartbeats (a half-open TCP connection, a proxy that stopped forwarding), or an attempt with no
 * answer as long, is closed when its deadline fires, and the reader reconnects after a jittered backoff (a wait the
 * scheduler ends), resuming after the last delivered revision. No age or wait reads any other clock.
 */
final class WatchLoop implements ControlClient.Watch {

    private static final Logger log = LoggerFactory.getLogger(WatchLoop.class);
    private static final long NEVER = Long.MIN_VALUE;

    private final HttpControlClient client;
    private final Set<ControlClient.Part> parts;
    private final Consumer<ControlClient.WatchEvent> onState;
    private final WatchScheduler scheduler;
    private final RandomGenerator random;
    private final Backoff backoff;
    private final long deadAfterNanos;
    private final Duration heartbeat;
    private final int missed;

    private volatile boolean open = true;
    private volatile boolean connected;
    private final AtomicLong lastRevision;
    private volatile long connectingSince = NEVER;
    private volatile long lastHeard = NEVER;
    private final AtomicLong reconnects = new AtomicLong();
    private final AtomicLong callbackFailures = new AtomicLong();
    private final AtomicLong badEvents = new AtomicLong();
    private volatile String lastError = "";
    private volatile String dropReason; // why the guard closed the current attempt, null when it did not
    private volatile CompletableFuture<HttpResponse<InputStream>> pending;
    private volatile InputStream stream;
    private volatile WatchScheduler.Cancellable deadline = () -> { };
    private volatile CompletableFuture<Void> wake; // the backoff wait in progress, completed by the scheduler
    private final Thread thread;

    WatchLoop(HttpControlClient client, long since, Set<ControlClient.Part> parts,
              Consumer<ControlClient.WatchEvent> onState, ControlClient.Builder config) {
        this.client = client;
        this.parts = Set.copyOf(parts);
        this.onState = onState;
        this.scheduler = config.scheduler;
        this.random = config.random;
        this.backoff = new Backoff(config.firstBackoff, config.longestBackoff);
        this.heartbeat = config.heartbeat;
        this.missed = config.missedHeartbeats;
        this.deadAfterNanos = config.heartbeat.toNanos() * config.missedHeartbeats;
        this.lastRevision = new AtomicLong(since);
        this.thread = new Thread(this::run, "unitas-watch " + client.server().getAuthority());
        thread.setDaemon(true);
        thread.start();
    }

    @Override
    public WatchStatus status() {
        long heard = lastHeard;
        return new WatchStatus(connected, lastRevision.get(),
                               heard == NEVER ? -1 : Math.max(0, (scheduler.nanoTime() - heard) / 1_000_000),
                               reconnects.get(), callbackFailures.get(), badEvents.get(), lastError);
    }

    @Override
    public void close() {
        open = false;
        deadline.cancel();
        CompletableFuture<Void> waiting = wake;
        if (waiting != null) {
            waiting.complete(null);
        }
        drop();
        thread.interrupt();
    }

    private void run() {
        int attempt = 0;
        try {
            while (open) {
                try {
                    attempt = stream(attempt);
                } catch (IOException | RuntimeException | Error e) { // the watch outlives any failed attempt
                    lastError = dropReason != null ? dropReason : describe(e);
                }
                boolean wasConnected = connected;
                connected = false;
                drop();
                if (!open) {
                    return;
                }
                attempt++;
                reconnects.incrementAndGet();
                Duration delay = backoff.delay(attempt, random);
                if (wasConnected) {
                    log.warn("control-plane watch of {} lost after revision {} ({}); reconnecting in {} ms",
                             client.server(), lastRevision.get(), lastError, delay.toMillis());
                } else {
                    log.debug("control-plane watch of {}: attempt {} failed ({}); retrying in {} ms",
                              client.server(), attempt, lastError, delay.toMillis());
                }
                if (!sleep(delay)) {
                    return;
                }
            }
        } catch (InterruptedException e) {
            // closed
        } finally {
            connected = false;
        }
    }

    /** Connects and reads until the stream ends; returns the attempt count to continue from (0 once connected). */
    private int stream(int attempt) throws IOException, InterruptedException {
        dropReason = null;
        long since = lastRevision.get();
        String query = "?parts=" + parts.stream().map(ControlClient.Part::wireName).sorted()
                                        .collect(Collectors.joining(","))
                       + (since < 0 ? "" : "&since=" + since);
        connectingSince = scheduler.nanoTime();
        CompletableFuture<HttpResponse<InputStream>> future = client.http().sendAsync(
                client.request("/api/v1/watch" + query).header("Accept", "text/event-stream").build(),
                HttpResponse.BodyHandlers.ofInputStream());
        pending = future;
        arm(deadAfterNanos);
        HttpResponse<InputStream> res;
        try {
            res = future.get();
        } catch (CancellationException e) {
            throw new IOException("cancelled", e);
        } catch (ExecutionException e) {
            throw e.getCause() instanceof IOException io ? io : new IOException(e.getCause());
        } finally {
            deadline.cancel();
            pending = null;
            connectingSince = NEVER;
        }
        InputStream body = res.body();
        stream = body;
        if (!open) {
            body.close();
            return attempt;
        }
        if (res.statusCode() != 200) {
            String detail = new String(body.readNBytes(4096), StandardCharsets.UTF_8);
            body.close();
            lastError = "HTTP " + res.statusCode() + ": " + ControlResponse.problemDetail(detail);
            if (res.statusCode() == 401 || res.statusCode() == 403) {
                log.warn("control-plane watch of {} refused ({}); retrying", client.server(), lastError);
            }
            return attempt;
        }
        lastHeard = scheduler.nanoTime();
        connected = true;
        arm(deadAfterNanos);
        if (attempt > 0) {
            log.info("control-plane watch of {} connected again after {} attempts, resuming after revision {}",
                     client.server(), attempt, since);
        }
        SseReader reader = new SseReader();
        SseReader.Sink sink = new SseReader.Sink() {
            @Override
            public void state(long revision, String data) {
                deliver(revision, data);
            }

            @Override
            public void bad(String why) {
                badEvents.incrementAndGet();
                log.warn("control-plane watch of {}: event skipped: {}", client.server(), why);
            }
        };
        BufferedReader lines = new BufferedReader(new InputStreamReader(body, StandardCharsets.UTF_8));
        String line;
        while (open && (line = lines.readLine()) != null) {
            lastHeard = scheduler.nanoTime();
            reader.line(line, sink);
        }
        deadline.cancel();
        lastError = dropReason != null ? dropReason : "the stream ended";
        return 0;
    }

    private void deliver(long revision, String data) {
        if (revision <= lastRevision.get() && lastRevision.get() >= 0) {
            return; // already delivered (a resumed stream repeats nothing, but a replica might)
        }
        lastRevision.set(revision);
        try {
            onState.accept(new ControlClient.WatchEvent(revision, data));
        } catch (RuntimeException | Error e) { // an Error too: the watch thread must outlive its callback
            callbackFailures.incrementAndGet();
            log.warn("control-plane watch of {}: the callback failed on revision {}; going on", client.server(),
                     revision, e);
        }
    }

    /** Sets the deadline {@code nanos} from now, replacing the one before. */
    private void arm(long nanos) {
        deadline.cancel();
        deadline = scheduler.schedule(this::check, Duration.ofNanos(nanos));
    }

    /**
     * The deadline: closes a stream that has been silent, or a connection attempt that has hung, too long; a stream
     * heard from since is given a new deadline from when it was last heard. A scheduled task must not throw (the
     * system scheduler's thread serves every watch), so nothing leaves it.
     */
    private void check() {
        try {
            checkNow();
        } catch (RuntimeException | Error e) {
            log.warn("control-plane watch of {}: its deadline check failed", client.server(), e);
        }
    }

    private void checkNow() {
        if (!open) {
            return;
        }
        long now = scheduler.nanoTime();
        long heard = lastHeard;
        if (connected && heard != NEVER) {
            if (now - heard > deadAfterNanos) {
                dropReason = "no heartbeat for " + Duration.ofNanos(now - heard).toMillis() + " ms (expected: one "
                            + "every " + heartbeat.toMillis() + " ms, " + missed + " missed is a dead stream)";
                connected = false;
                drop();
            } else {
                arm(heard + deadAfterNanos - now + 1);
            }
            return;
        }
        long connecting = connectingSince;
        CompletableFuture<?> attempt = pending;
        if (attempt != null && connecting != NEVER) {
            if (now - connecting > deadAfterNanos) {
                dropReason = "no response for " + Duration.ofNanos(now - connecting).toMillis() + " ms";
                attempt.cancel(true);
            } else {
                arm(connecting + deadAfterNanos - now + 1);
            }
        }
    }

    /** Closes the open stream, if any, which ends the reader's blocking read. */
    private void drop() {
        InputStream s = stream;
        stream = null;
        if (s != null) {
            try {
                s.close();
            } catch (IOException e) {
                // closing a dead stream
            }
        }
        CompletableFuture<?> attempt = pending;
        if (attempt != null && !open) {
            attempt.cancel(true);
        }
    }

    /** Waits {@code delay} on the scheduler; false when closed meanwhile. */
    private boolean sleep(Duration delay) throws InterruptedException {
        CompletableFuture<Void> done = new CompletableFuture<>();
        wake = done;
        WatchScheduler.Cancellable task = scheduler.schedule(() -> done.complete(null), delay);
        try {
            if (open) {
                done.get();
            }
        } catch (ExecutionException e) {
            throw new IllegalStateException(e); // never completed exceptionally
        } finally {
            task.cancel();
            wake = null;
        }
        return open;
    }

    private static String describe(Throwable e) {
        String message = e.getMessage();
        return e.getClass().getSimpleName() + (message == null ? "" : ": " + message);
    }
}
