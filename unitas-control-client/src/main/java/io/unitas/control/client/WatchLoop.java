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
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;
import java.util.function.LongSupplier;
import java.util.random.RandomGenerator;
import java.util.stream.Collectors;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One watch: a thread that reads the stream and delivers events, and a guard that looks every
 * {@value #GUARD_MILLIS} ms whether the stream is still alive. The server sends a heartbeat every few seconds; a
 * connection that has said nothing for {@code missed} heartbeats (a half-open TCP connection, a proxy that stopped
 * forwarding) is closed by the guard, and the reader reconnects after a jittered backoff, resuming after the last
 * delivered revision. All ages and waits are on the injected ticker.
 */
final class WatchLoop implements ControlClient.Watch {

    private static final Logger log = LoggerFactory.getLogger(WatchLoop.class);
    private static final long GUARD_MILLIS = 100;
    private static final long NEVER = Long.MIN_VALUE;

    /** One guard thread for every watch of the process: it only compares ages and closes streams. */
    private static final ScheduledExecutorService GUARD = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "unitas-watch-guard");
        t.setDaemon(true);
        return t;
    });

    private final HttpControlClient client;
    private final Set<ControlClient.Part> parts;
    private final Consumer<ControlClient.WatchEvent> onState;
    private final LongSupplier ticker;
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
    private final Thread thread;
    private final ScheduledFuture<?> guard;

    WatchLoop(HttpControlClient client, long since, Set<ControlClient.Part> parts,
              Consumer<ControlClient.WatchEvent> onState, ControlClient.Builder config) {
        this.client = client;
        this.parts = Set.copyOf(parts);
        this.onState = onState;
        this.ticker = config.ticker;
        this.random = config.random;
        this.backoff = new Backoff(config.firstBackoff, config.longestBackoff);
        this.heartbeat = config.heartbeat;
        this.missed = config.missedHeartbeats;
        this.deadAfterNanos = config.heartbeat.toNanos() * config.missedHeartbeats;
        this.lastRevision = new AtomicLong(since);
        this.thread = new Thread(this::run, "unitas-watch");
        thread.setDaemon(true);
        thread.start();
        this.guard = GUARD.scheduleWithFixedDelay(this::check, GUARD_MILLIS, GUARD_MILLIS, TimeUnit.MILLISECONDS);
    }

    @Override
    public WatchStatus status() {
        long heard = lastHeard;
        return new WatchStatus(connected, lastRevision.get(),
                               heard == NEVER ? -1 : Math.max(0, (ticker.getAsLong() - heard) / 1_000_000),
                               reconnects.get(), callbackFailures.get(), badEvents.get(), lastError);
    }

    @Override
    public void close() {
        open = false;
        guard.cancel(false);
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
        connectingSince = ticker.getAsLong();
        CompletableFuture<HttpResponse<InputStream>> future = client.http().sendAsync(
                client.request("/api/v1/watch" + query).header("Accept", "text/event-stream").build(),
                HttpResponse.BodyHandlers.ofInputStream());
        pending = future;
        HttpResponse<InputStream> res;
        try {
            res = future.get();
        } catch (CancellationException e) {
            throw new IOException("cancelled", e);
        } catch (ExecutionException e) {
            throw e.getCause() instanceof IOException io ? io : new IOException(e.getCause());
        } finally {
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
        lastHeard = ticker.getAsLong();
        connected = true;
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
            lastHeard = ticker.getAsLong();
            reader.line(line, sink);
        }
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

    /**
     * The guard: closes a stream that has been silent, or a connection attempt that has hung, too long. A scheduled
     * task that throws is never run again, so nothing may leave it.
     */
    private void check() {
        try {
            checkNow();
        } catch (RuntimeException | Error e) {
            log.warn("control-plane watch of {}: its guard failed; checking again next time", client.server(), e);
        }
    }

    private void checkNow() {
        long now = ticker.getAsLong();
        long heard = lastHeard;
        if (connected && heard != NEVER && now - heard > deadAfterNanos) {
            dropReason = "no heartbeat for " + Duration.ofNanos(now - heard).toMillis() + " ms (expected: one every "
                        + heartbeat.toMillis() + " ms, " + missed + " missed is a dead stream)";
            connected = false;
            drop();
        }
        long connecting = connectingSince;
        CompletableFuture<?> attempt = pending;
        if (attempt != null && connecting != NEVER && now - connecting > deadAfterNanos) {
            dropReason = "no response for " + Duration.ofNanos(now - connecting).toMillis() + " ms";
            attempt.cancel(true);
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

    /** Waits {@code delay} on the ticker; false when closed meanwhile. */
    private boolean sleep(Duration delay) throws InterruptedException {
        long until = ticker.getAsLong() + delay.toNanos();
        long left;
        while (open && (left = until - ticker.getAsLong()) > 0) {
            LockSupport.parkNanos(Math.min(left, TimeUnit.MILLISECONDS.toNanos(20)));
            if (Thread.interrupted()) {
                throw new InterruptedException();
            }
        }
        return open;
    }

    private static String describe(Throwable e) {
        String message = e.getMessage();
        return e.getClass().getSimpleName() + (message == null ? "" : ": " + message);
    }
}
