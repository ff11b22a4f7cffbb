package io.unitas.control;

import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;

import javax.net.ssl.SSLException;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.ClientBuilder;
import io.etcd.jetcd.KV;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.Watch;
import io.etcd.jetcd.kv.GetResponse;
import io.etcd.jetcd.kv.TxnResponse;
import io.etcd.jetcd.lease.LeaseKeepAliveResponse;
import io.etcd.jetcd.op.Cmp;
import io.etcd.jetcd.op.CmpTarget;
import io.etcd.jetcd.op.Op;
import io.etcd.jetcd.options.GetOption;
import io.etcd.jetcd.options.PutOption;
import io.etcd.jetcd.options.WatchOption;
import io.etcd.jetcd.support.CloseableClient;
import io.etcd.jetcd.watch.WatchEvent;
import io.grpc.stub.StreamObserver;

/**
 * The state in etcd, shared by several control-plane replicas. The whole state is one key, {@code <prefix>state};
 * a commit is a transaction that puts it only if its etcd mod revision is still the one this replica last saw,
 * so concurrent replicas serialize. Each replica watches the key and so sees the others' changes in order. The
 * audit log is one key per entry under {@code <prefix>audit/}, numbered by etcd's own revision. The leader holds
 * {@code <prefix>leader}, attached to a lease that it keeps alive; when it dies, the lease expires and the next
 * replica to try takes the key.
 *
 * <p>With {@link Access}, the client speaks TLS to {@code https://} endpoints, trusting the given CA and presenting
 * a client certificate when one is given, and authenticates with etcd's user and password.
 */
final class EtcdStore implements StateStore {

    private static final Logger log = LoggerFactory.getLogger(EtcdStore.class);
    private static final long TIMEOUT_SECONDS = 10;

    private final Client client;
    private final KV kv;
    private final ByteSequence stateKey;
    private final ByteSequence auditPrefix;
    private final ByteSequence leaderKey;
    private final ByteSequence id = bytes(UUID.randomUUID().toString());
    private final List<Consumer<ControlState>> listeners = new CopyOnWriteArrayList<>();
    private final java.util.concurrent.locks.ReentrantLock commitLock = new java.util.concurrent.locks.ReentrantLock();
    private final ScheduledExecutorService elector;
    private final long leaseSeconds;
    private final Runnable beforeRound;
    private volatile ControlState current;
    private volatile long modRevision;
    private volatile boolean leader;
    private final Watch.Watcher watcher;
    private long leaseId;
    private CloseableClient keepAlive;

    /**
     * How to reach a secured etcd: a CA to trust (null: plaintext), a client certificate and its PKCS#8 key (both
     * null: none), a user and password (null: no auth).
     */
    record Access(Path ca, Path cert, Path key, String user, String password) {

        static final Access PLAINTEXT = new Access(null, null, null, null, null);

        Access {
            if ((cert == null) != (key == null)) {
                throw new IllegalArgumentException("etcd client certificate: cert " + cert + ", key " + key
                                                   + " (expected: both or neither)");
            }
            if (cert != null && ca == null) {
                throw new IllegalArgumentException("etcd client certificate without a CA (expected: --etcd-ca too)");
            }
            if ((user == null) != (password == null)) {
                throw new IllegalArgumentException("etcd auth: a user needs a password (expected: both or neither)");
            }
        }

        boolean tls() {
            return ca != null;
        }
    }

    EtcdStore(List<URI> endpoints, String prefix, Duration lease) {
        this(endpoints, prefix, lease, Access.PLAINTEXT);
    }

    EtcdStore(List<URI> endpoints, String prefix, Duration lease, Access access) {
        this(endpoints, prefix, lease, access, () -> {});
    }

    /** With {@code beforeRound} run first in every round of the leader campaign (where a test makes one fail). */
    EtcdStore(List<URI> endpoints, String prefix, Duration lease, Access access, Runnable beforeRound) {
        this.beforeRound = beforeRound;
        this.client = client(endpoints, access);
        this.kv = client.getKVClient();
        this.stateKey = bytes(prefix + "state");
        this.auditPrefix = bytes(prefix + "audit/");
        this.leaderKey = bytes(prefix + "leader");
        this.leaseSeconds = lease.toSeconds();
        GetResponse got = await(kv.get(stateKey));
        if (got.getKvs().isEmpty()) {
            current = ControlState.initial();
            modRevision = 0;
        } else {
            KeyValue value = got.getKvs().get(0);
            current = StateJson.readState(StateJson.parse(value.getValue().toString(StandardCharsets.UTF_8)));
            modRevision = value.getModRevision();
        }
        long from = got.getHeader().getRevision() + 1;
        this.watcher = client.getWatchClient().watch(stateKey, WatchOption.builder().withRevision(from).build(),
                response -> response.getEvents().forEach(e -> {
                    if (e.getEventType() == WatchEvent.EventType.PUT) {
                        KeyValue value = e.getKeyValue();
                        deliver(StateJson.readState(StateJson.parse(value.getValue().toString(StandardCharsets.UTF_8))),
                                value.getModRevision());
                    }
                }),
                error -> log.warn("etcd watch failed: {}", error.toString()));
        this.elector = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "unitas-control-elector");
            t.setDaemon(true);
            return t;
        });
        elector.scheduleWithFixedDelay(this::campaign, 0, Math.max(200, leaseSeconds * 1000 / 5),
                                       TimeUnit.MILLISECONDS);
    }

    private static Client client(List<URI> endpoints, Access access) {
        for (URI endpoint : endpoints) {
            String expected = access.tls() ? "https" : "http";
            if (!expected.equals(endpoint.getScheme())) {
                throw new IllegalArgumentException("etcd endpoint " + endpoint + " (expected: " + expected + "://"
                        + (access.tls() ? " with a CA given" : " without a CA; give --etcd-ca for https") + ")");
            }
        }
        ClientBuilder builder = Client.builder().endpoints(endpoints.toArray(URI[]::new));
        if (access.tls()) {
            for (Path file : java.util.Arrays.asList(access.ca(), access.cert(), access.key())) {
                if (file != null && !Files.isReadable(file)) {
                    throw new IllegalArgumentException(file + ": not readable (expected: a PEM file)");
                }
            }
            try {
                builder.sslContext(ssl -> {
                    ssl.trustManager(access.ca().toFile());
                    if (access.cert() != null) {
                        ssl.keyManager(access.cert().toFile(), access.key().toFile());
                    }
                });
            } catch (SSLException | IllegalArgumentException e) {
                throw new IllegalArgumentException("etcd TLS: " + access.ca() + ", " + access.cert() + ", "
                                                   + access.key() + ": " + e.getMessage(), e);
            }
        }
        if (access.user() != null) {
            builder.user(bytes(access.user())).password(bytes(access.password()));
        }
        return builder.build();
    }

    /**
     * Takes the leader key if it is free; leader when the key holds this replica's id. A round that fails leaves this
     * replica a follower until a later round wins: it catches any throwable, since a scheduled executor cancels a task
     * for good on its first uncaught one, and one {@code Error} would have ended the campaign silently: a follower
     * never to lead again, a leader that would not notice losing its key. An etcd out of reach is expected and quiet;
     * any other failure is logged.
     */
    private void campaign() {
        try {
            beforeRound.run();
            if (keepAlive == null) {
                leaseId = await(client.getLeaseClient().grant(leaseSeconds)).getID();
                keepAlive = client.getLeaseClient().keepAlive(leaseId, new StreamObserver<>() {
                    @Override
                    public void onNext(LeaseKeepAliveResponse value) {}

                    @Override
                    public void onError(Throwable t) {
                        leader = false;
                    }

                    @Override
                    public void onCompleted() {}
                });
            }
            TxnResponse txn = await(kv.txn()
                    .If(new Cmp(leaderKey, Cmp.Op.EQUAL, CmpTarget.createRevision(0)))
                    .Then(Op.put(leaderKey, id, PutOption.builder().withLeaseId(leaseId).build()))
                    .Else(Op.get(leaderKey, GetOption.DEFAULT))
                    .commit());
            boolean now = txn.isSucceeded() || txn.getGetResponses().stream()
                    .flatMap(g -> g.getKvs().stream()).anyMatch(k -> k.getValue().equals(id)
                                                                     && k.getLease() == leaseId);
            if (now != leader) {
                log.info("control plane replica {} is {}", id, now ? "the leader" : "a follower");
            }
            leader = now;
        } catch (Throwable e) { // NOPMD: see above
            leader = false;
            if (!(e instanceof IllegalStateException) && !Thread.currentThread().isInterrupted()) {
                log.error("etcd leader campaign failed; a follower until a later round wins", e);
            }
            if (keepAlive != null) {
                try {
                    keepAlive.close();
                } catch (RuntimeException closing) {
                    log.debug("etcd lease keep-alive: {}", closing.toString());
                }
                keepAlive = null; // a fresh lease next time; the old one may have expired
            }
        }
    }

    private void deliver(ControlState state, long mod) {
        synchronized (listeners) {
            if (state.revision() <= current.revision()) {
                return;
            }
            current = state;
            modRevision = mod;
            listeners.forEach(l -> l.accept(state));
        }
    }

    @Override
    public ControlState current() {
        return current;
    }

    /**
     * Not synchronized on the delivery lock while waiting for etcd: jetcd completes futures and delivers watch
     * events on the same executor, so holding it would deadlock against our own watch.
     */
    @Override
    public Optional<ControlState> commit(ControlState next) {
        commitLock.lock();
        try {
            return commitLocked(next);
        } finally {
            commitLock.unlock();
        }
    }

    private Optional<ControlState> commitLocked(ControlState next) {
        long modRevision;
        synchronized (listeners) {
            if (next.revision() != current.revision() + 1) {
                return Optional.empty();
            }
            modRevision = this.modRevision;
        }
        Cmp unchanged = modRevision == 0 ? new Cmp(stateKey, Cmp.Op.EQUAL, CmpTarget.createRevision(0))
                                         : new Cmp(stateKey, Cmp.Op.EQUAL, CmpTarget.modRevision(modRevision));
        TxnResponse txn = await(kv.txn().If(unchanged)
                .Then(Op.put(stateKey, bytes(StateJson.write(StateJson.state(next))), PutOption.DEFAULT))
                .Else(Op.get(stateKey, GetOption.DEFAULT)).commit());
        if (txn.isSucceeded()) {
            deliver(next, txn.getHeader().getRevision());
            return Optional.of(next);
        }
        // Another replica got there first: catch up now rather than wait for the watch.
        txn.getGetResponses().stream().flatMap(g -> g.getKvs().stream()).findFirst().ifPresent(value -> deliver(
                StateJson.readState(StateJson.parse(value.getValue().toString(StandardCharsets.UTF_8))),
                value.getModRevision()));
        return Optional.empty();
    }

    @Override
    public void subscribe(Consumer<ControlState> listener) {
        listeners.add(listener);
    }

    @Override
    public AuditEntry audit(AuditEntry entry) {
        entry = entry.capped(AuditLog.Limits.DEFAULT.reasonChars(), AuditLog.Limits.DEFAULT.detailChars());
        ByteSequence key = bytes(auditPrefix.toString(StandardCharsets.UTF_8) + System.currentTimeMillis() + "-"
                                 + UUID.randomUUID());
        long revision = await(kv.put(key, bytes(StateJson.write(entry.toJson())))).getHeader().getRevision();
        return entry.withSeq(revision);
    }

    @Override
    public List<AuditEntry> audit(long afterSeq, int limit) {
        GetResponse got = await(kv.get(auditPrefix, GetOption.builder().isPrefix(true)
                .withMinCreateRevision(afterSeq + 1).withSortField(GetOption.SortTarget.CREATE)
                .withSortOrder(GetOption.SortOrder.DESCEND).withLimit(limit).build()));
        List<AuditEntry> entries = new ArrayList<>();
        for (KeyValue value : got.getKvs()) {
            entries.add(0, AuditEntry.fromJson(StateJson.parse(value.getValue().toString(StandardCharsets.UTF_8)))
                                     .withSeq(value.getCreateRevision()));
        }
        return entries;
    }

    @Override
    public boolean leader() {
        return leader;
    }

    @Override
    public void close() {
        elector.shutdownNow();
        watcher.close();
        try {
            if (leader) {
                await(kv.delete(leaderKey)); // hand over at once instead of after the lease
            }
            if (keepAlive != null) {
                keepAlive.close();
                await(client.getLeaseClient().revoke(leaseId));
            }
        } catch (RuntimeException e) {
            log.debug("leaving etcd: {}", e.toString());
        }
        leader = false;
        client.close();
    }

    private static ByteSequence bytes(String s) {
        return ByteSequence.from(s, StandardCharsets.UTF_8);
    }

    private static <T> T await(java.util.concurrent.CompletableFuture<T> future) {
        try {
            return future.get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("etcd: interrupted", e);
        } catch (ExecutionException | TimeoutException e) {
            throw new IllegalStateException("etcd: " + e.getMessage(), e);
        }
    }
}
