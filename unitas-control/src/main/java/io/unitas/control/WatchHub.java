package io.unitas.control;

import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.function.Supplier;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * Fans every landed state out to watchers as server-sent events ({@code id: <revision>}, {@code event: state},
 * {@code data: <state JSON>}).
 *
 * <p>The store's commit only hands the state over; one fan-out thread encodes each revision once per view (the
 * whole state, its config part, its health part) and writes the same bytes to every watcher of that view, so a
 * commit never waits for watchers, and the cost of a revision does not grow with their number times its size.
 * A watcher asks for the parts it needs: config (topology, rules, fences, switchover) changes are sent at once;
 * changes of health alone are coalesced, the latest at most every {@link Limits#healthEvery()}. Every watcher sees
 * strictly increasing revisions, each a whole snapshot of its parts.
 *
 * <p>The last {@value #RETAINED} revisions are kept, so a watcher reconnecting with {@code since} (or
 * {@code Last-Event-ID}) gets each one it missed that changed its parts, in order; a watcher further behind gets
 * the newest (snapshots, so nothing is lost but the steps between). Watchers are capped per token and in total; a
 * watcher whose unsent bytes pass {@link Limits#unsentBytes()} is dropped (it reconnects and resumes by revision),
 * and so is one whose token was revoked.
 */
final class WatchHub implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(WatchHub.class);

    static final int RETAINED = 4_096;
    static final long RETAINED_BYTES = 64L << 20;

    /**
     * How much the hub takes on.
     *
     * @param perToken    watchers one token may hold open
     * @param total       watchers in all
     * @param unsentBytes bytes a watcher may have written but not yet sent before it is dropped
     * @param healthEvery the shortest time between two events caused by health alone; zero sends each at once
     */
    record Limits(int perToken, int total, long unsentBytes, Duration healthEvery) {

        static final Limits DEFAULTS = new Limits(64, 10_000, 8L << 20, Duration.ofMillis(250));

        Limits {
            Objects.requireNonNull(healthEvery, "healthEvery");
            List<String> problems = new ArrayList<>();
            if (perToken < 1) {
                problems.add("watchers per token: " + perToken + " (expected: >= 1)");
            }
            if (total < 1) {
                problems.add("watchers: " + total + " (expected: >= 1)");
            }
            if (unsentBytes < 1024) {
                problems.add("watch buffer: " + unsentBytes + " bytes (expected: >= 1024)");
            }
            if (healthEvery.isNegative()) {
                problems.add("watch health interval: " + healthEvery + " (expected: >= 0)");
            }
            if (!problems.isEmpty()) {
                throw new IllegalArgumentException(String.join("; ", problems));
            }
        }
    }

    /** What a watcher asks for: which parts of the state its events carry. */
    enum View {
        ALL, CONFIG, HEALTH;

        static View of(Set<Part> parts) {
            return parts.containsAll(EnumSet.allOf(Part.class)) ? ALL
                   : parts.contains(Part.CONFIG) ? CONFIG : HEALTH;
        }

        boolean wants(Change change) {
            return switch (this) {
                case ALL -> true;
                case CONFIG -> change.config;
                case HEALTH -> change.health;
            };
        }
    }

    /** The parts a watcher may ask for ({@code ?parts=config,health}). */
    enum Part {
        CONFIG, HEALTH;

        /** The parts named in {@code text}; refuses an unknown name. */
        static Set<Part> parse(String text) {
            if (text == null || text.isBlank()) {
                return EnumSet.allOf(Part.class);
            }
            Set<Part> parts = EnumSet.noneOf(Part.class);
            for (String name : text.split(",")) {
                switch (name.strip()) {
                    case "config" -> parts.add(CONFIG);
                    case "health" -> parts.add(HEALTH);
                    default -> throw new IllegalArgumentException("parts: '" + name.strip()
                                                                  + "' (expected: config, health or both)");
                }
            }
            return parts;
        }
    }

    /** Where a watcher's events go: the HTTP stream, seen from the hub. */
    interface Sink {
        /** Queues one encoded event; the future completes when it has been written out. Called on {@link #loop()}. */
        CompletableFuture<?> send(byte[] event);

        /**
         * The thread that owns the stream (its connection's event loop). The hub hands each loop all of its
         * watchers' writes of a revision in one task, instead of one cross-thread hand-off per watcher.
         */
        Executor loop();

        /** Ends the stream at once, dropping what is queued; the client reconnects and resumes. */
        void drop(String why);
    }

    /** Why a watch was refused, or null when it was admitted. */
    record Refusal(io.unitas.control.Refusal.Kind kind, String detail) {}

    /** Which parts a revision changed. */
    private record Change(boolean config, boolean health) {}

    /** One revision: what it changed and its event per view, each encoded once. */
    private record Revision(long revision, Change change, byte[] all, byte[] config, byte[] health) {

        static Revision of(long revision, Change change, ObjectNode tree) {
            ObjectNode health = StateJson.MAPPER.createObjectNode().put("revision", revision);
            health.set("updated_at", tree.get("updated_at"));
            health.set("health", tree.get("health"));
            health.set("unit_links", tree.get("unit_links")); // derived from the health entries
            return new Revision(revision, change, encode(revision, tree), encode(revision, tree.deepCopy()
                    .without(List.of("health", "unit_links"))), encode(revision, health));
        }

        private static byte[] encode(long revision, JsonNode data) {
            return ("id: " + revision + "\nevent: state\ndata: " + StateJson.write(data) + "\n\n")
                    .getBytes(StandardCharsets.UTF_8);
        }

        byte[] event(View view) {
            return switch (view) {
                case ALL -> all;
                case CONFIG -> config;
                case HEALTH -> health;
            };
        }

        long size() {
            return all.length + config.length + health.length;
        }
    }

    /** One open watch. Touched by the fan-out thread only, but for the unsent count. */
    private final class Watcher {
        final String token;
        final String secret;
        final View view;
        final Sink sink;
        final AtomicLong unsent = new AtomicLong();
        long sent = -1;
        boolean closed;

        Watcher(String token, String secret, View view, Sink sink, long since) {
            this.sent = since; // never send what the watcher already has (it may come from a replica ahead of us)
            this.token = token;
            this.secret = secret;
            this.view = view;
            this.sink = sink;
        }

        /** Sends {@code r} unless it already has it; writes at once on the watcher's loop. */
        void send(Revision r) {
            Runnable write = prepare(r);
            if (write != null) {
                sink.loop().execute(write);
            }
        }

        /**
         * Decides whether {@code r} goes to this watcher and accounts for its bytes (fan-out thread); returns the
         * write, to run on the watcher's loop, or null.
         */
        Runnable prepare(Revision r) {
            if (closed || r.revision <= sent) {
                return null;
            }
            byte[] event = r.event(view);
            long now = unsent.addAndGet(event.length);
            if (now > limits.unsentBytes()) {
                unsent.addAndGet(-event.length);
                dropped.incrementAndGet();
                remove(this, "more than " + limits.unsentBytes() + " bytes unsent (a reader slower than the "
                             + "changes); reconnect and resume from revision " + sent);
                return null;
            }
            sent = r.revision;
            return () -> sink.send(event).whenComplete((ok, error) -> {
                unsent.addAndGet(-event.length);
                if (error == null) {
                    written.incrementAndGet();
                }
            });
        }
    }

    private final Limits limits;
    private final Clock clock;
    private final ScheduledExecutorService fanout = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "unitas-watch-fanout");
        t.setDaemon(true);
        return t;
    });

    // the fan-out thread's own
    private final Deque<Revision> recent = new ArrayDeque<>();
    private final List<Watcher> watchers = new ArrayList<>();
    private Revision latest;
    private volatile long latestRevision = -1;
    private ObjectNode latestTree;
    private long retainedBytes;
    private long lastHealthSend = Long.MIN_VALUE;
    private ScheduledFuture<?> healthFlush;

    // admission, counted at once on the request's thread
    private final AtomicInteger open = new AtomicInteger();
    private final Map<String, AtomicInteger> perToken = new ConcurrentHashMap<>();
    private final AtomicLong dropped = new AtomicLong();
    private final AtomicLong written = new AtomicLong();

    /** A hub with no state yet; {@link #offer} feeds it. */
    WatchHub(Clock clock, Limits limits) {
        this.clock = clock;
        this.limits = limits;
    }

    /** A hub fed by {@code store}: its current state, then every state it lands. */
    WatchHub(StateStore store, Clock clock, Limits limits) {
        this(clock, limits);
        ControlState first = store.current();
        offer(first.revision(), () -> StateJson.view(first));
        // called by the store under its commit lock: only hands the state over
        store.subscribe(state -> offer(state.revision(), () -> StateJson.view(state)));
    }

    /**
     * Hands revision {@code revision} to the fan-out thread and returns; {@code view} (the whole state as the
     * watch's JSON, built on that thread) is asked for only when the revision is newer than the latest.
     */
    void offer(long revision, Supplier<ObjectNode> view) {
        fanout.execute(() -> land(revision, view));
    }

    /** The newest revision landed, or -1 before the first. */
    long latestRevision() {
        return latestRevision;
    }

    private void land(long revision, Supplier<ObjectNode> view) {
        if (latest != null && revision <= latest.revision) {
            return;
        }
        ObjectNode tree = view.get();
        Change change = latestTree == null ? new Change(true, true) : compare(latestTree, tree);
        Revision r = Revision.of(revision, change, tree);
        latest = r;
        latestRevision = revision;
        latestTree = tree;
        recent.addLast(r);
        retainedBytes += r.size();
        while (recent.size() > RETAINED || retainedBytes > RETAINED_BYTES && recent.size() > 1) {
            retainedBytes -= recent.removeFirst().size();
        }
        if (change.config || !change.health) {
            sendLatest(change.config ? EnumSet.of(View.ALL, View.CONFIG) : EnumSet.of(View.ALL));
            if (change.health) {
                sendHealth();
            }
            return;
        }
        long now = clock.millis();
        long wait = lastHealthSend == Long.MIN_VALUE ? 0 : lastHealthSend + limits.healthEvery().toMillis() - now;
        if (wait <= 0 || limits.healthEvery().isZero()) {
            sendHealth();
        } else if (healthFlush == null) {
            healthFlush = fanout.schedule(() -> {
                healthFlush = null;
                sendHealth();
            }, Math.min(wait, limits.healthEvery().toMillis()), TimeUnit.MILLISECONDS);
        }
    }

    private void sendHealth() {
        lastHealthSend = clock.millis();
        if (healthFlush != null) {
            healthFlush.cancel(false);
            healthFlush = null;
        }
        sendLatest(EnumSet.of(View.ALL, View.HEALTH));
    }

    /** Sends the latest revision to the watchers of {@code views}: one task per event loop, not per watcher. */
    private void sendLatest(Set<View> views) {
        Map<Executor, List<Runnable>> byLoop = new HashMap<>();
        for (Watcher w : List.copyOf(watchers)) {
            if (views.contains(w.view)) {
                Runnable write = w.prepare(latest);
                if (write != null) {
                    byLoop.computeIfAbsent(w.sink.loop(), l -> new ArrayList<>()).add(write);
                }
            }
        }
        byLoop.forEach((loop, writes) -> loop.execute(() -> writes.forEach(Runnable::run)));
    }

    private static Change compare(ObjectNode before, ObjectNode after) {
        boolean config = false;
        for (String part : List.of("topology", "rules", "fences", "switchover", "switchover_count")) {
            config |= !Objects.equals(before.get(part), after.get(part));
        }
        return new Change(config, !Objects.equals(before.get("health"), after.get("health")));
    }

    /**
     * Takes one of the watches {@code token} (a token's name) may hold, or says why not: the token, or the hub,
     * holds as many as allowed. An admitted watch is given back by the {@link #watch} it starts, or by
     * {@link #release}.
     */
    Refusal admit(String token) {
        AtomicInteger mine = perToken.computeIfAbsent(token, t -> new AtomicInteger());
        if (mine.incrementAndGet() > limits.perToken()) {
            mine.decrementAndGet();
            return new Refusal(io.unitas.control.Refusal.Kind.TOO_MANY_WATCHES, "token " + token + " holds " + limits.perToken()
                    + " watches (expected: at most " + limits.perToken() + " per token; close one first)");
        }
        if (open.incrementAndGet() > limits.total()) {
            open.decrementAndGet();
            mine.decrementAndGet();
            return new Refusal(io.unitas.control.Refusal.Kind.WATCHERS_FULL, "the control plane serves " + limits.total()
                    + " watches (expected: at most " + limits.total() + "; retry later)");
        }
        return null;
    }

    /** Gives back an admission that no watch was started with. */
    void release(String token) {
        open.decrementAndGet();
        perToken.get(token).decrementAndGet();
    }

    /**
     * Starts an admitted watch of {@code token} ({@code secret} to check it again when tokens change) that wants
     * {@code parts}: sends it every retained revision after {@code since} that changed its parts (or the newest,
     * when {@code since} is older than all retained), then each new one, atomically with publishing. Returns what
     * stops it.
     */
    Runnable watch(String token, String secret, Set<Part> parts, long since, Sink sink) {
        Watcher w = new Watcher(token, secret, View.of(parts), sink, since);
        fanout.execute(() -> {
            watchers.add(w);
            catchUp(w, since);
        });
        return () -> fanout.execute(() -> remove(w, null));
    }

    private void catchUp(Watcher w, long since) {
        Revision oldest = recent.peekFirst();
        if (oldest == null) {
            return;
        }
        if (since < oldest.revision - 1) {
            w.send(latest);
            return;
        }
        for (Revision r : recent) {
            if (r.revision > since && (w.view.wants(r.change) || r == latest)) {
                w.send(r);
            }
        }
    }

    /** Closes the watches of tokens {@code tokens} no longer admits as viewers. */
    void tokensChanged(TokenTable tokens) {
        fanout.execute(() -> {
            for (Watcher w : List.copyOf(watchers)) {
                boolean admitted = tokens.authenticate(w.secret).map(p -> p.role().allows(Role.VIEWER))
                                         .orElse(false);
                if (!admitted) {
                    remove(w, "the token " + w.token + " was revoked");
                }
            }
        });
    }

    /** Removes {@code w}; with a reason, also ends its stream. Fan-out thread only. */
    private void remove(Watcher w, String why) {
        if (w.closed) {
            return;
        }
        w.closed = true;
        watchers.remove(w);
        open.decrementAndGet();
        perToken.get(w.token).decrementAndGet();
        if (why != null) {
            log.warn("watch of {} dropped: {}", w.token, why);
            w.sink.drop(why);
        }
    }

    /** Watchers open now. */
    int watching() {
        return open.get();
    }

    /** Watchers dropped for reading too slowly, since start. */
    long droppedSlow() {
        return dropped.get();
    }

    /** Events written out to watchers, since start. */
    long eventsWritten() {
        return written.get();
    }

    @Override
    public void close() {
        fanout.shutdownNow();
    }
}
