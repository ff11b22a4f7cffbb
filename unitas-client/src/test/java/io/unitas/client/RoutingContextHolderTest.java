package io.unitas.client;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import io.micrometer.context.ContextSnapshot;
import io.micrometer.context.ContextSnapshotFactory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The context of a thread's work: scopes that restore, and hand-offs to other threads that carry it. */
class RoutingContextHolderTest {

    private static final RoutingContext CN = new RoutingContext("u-cn", "cn", "eu", 1, null);
    private static final RoutingContext US = new RoutingContext("u-us", "us", null, 0, "v2");

    private final ExecutorService pool = Executors.newSingleThreadExecutor();

    @AfterEach
    void stop() {
        pool.shutdownNow();
    }

    @Test
    void scopes_nest_andClosingRestoresThePreviousContext() {
        assertThat(RoutingContextHolder.current()).isSameAs(RoutingContext.EMPTY);
        try (RoutingContextHolder.Scope outer = RoutingContextHolder.open(CN)) {
            try (RoutingContextHolder.Scope inner = RoutingContextHolder.open(US)) {
                assertThat(RoutingContextHolder.current()).isEqualTo(US);
            }
            assertThat(RoutingContextHolder.current()).isEqualTo(CN);
        }
        assertThat(RoutingContextHolder.current()).isSameAs(RoutingContext.EMPTY);
    }

    @Test
    void wrappedExecutorService_carriesTheSubmittersContext_andThePooledThreadForgetsItAfter() throws Exception {
        ExecutorService wrapped = RoutingContextHolder.wrap(pool);
        try (RoutingContextHolder.Scope s = RoutingContextHolder.open(CN)) {
            assertThat(wrapped.submit(RoutingContextHolder::current).get()).isEqualTo(CN);
        }
        // the same pooled thread, next task from a request without a stamp: no unit leaks in
        assertThat(wrapped.submit(RoutingContextHolder::current).get()).isSameAs(RoutingContext.EMPTY);
        assertThat(pool.submit(RoutingContextHolder::current).get()).isSameAs(RoutingContext.EMPTY);
    }

    @Test
    void leak_onePooledThreadServesTwoRequests_eachSeesOnlyItsOwnUnit() throws Exception {
        ExecutorService wrapped = RoutingContextHolder.wrap(pool);
        Future<RoutingContext> first;
        Future<RoutingContext> second;
        try (RoutingContextHolder.Scope s = RoutingContextHolder.open(CN)) {
            first = wrapped.submit(RoutingContextHolder::current);
        }
        try (RoutingContextHolder.Scope s = RoutingContextHolder.open(US)) {
            second = wrapped.submit(RoutingContextHolder::current);
        }
        assertThat(first.get()).isEqualTo(CN);
        assertThat(second.get()).isEqualTo(US);
    }

    @Test
    void nestedPools_carryTheContextThroughEachHandOff() throws Exception {
        ExecutorService inner = RoutingContextHolder.wrap(Executors.newSingleThreadExecutor());
        try (RoutingContextHolder.Scope s = RoutingContextHolder.open(US)) {
            Future<RoutingContext> seen = RoutingContextHolder.wrap(pool)
                    .submit(() -> inner.submit(RoutingContextHolder::current).get());
            assertThat(seen.get()).isEqualTo(US);
        } finally {
            inner.shutdownNow();
        }
    }

    @Test
    void invokeAll_andPlainExecutor_carryTheContext() throws Exception {
        try (RoutingContextHolder.Scope s = RoutingContextHolder.open(CN)) {
            List<Future<RoutingContext>> all = RoutingContextHolder.wrap(pool)
                    .invokeAll(List.of(RoutingContextHolder::current, RoutingContextHolder::current));
            for (Future<RoutingContext> f : all) {
                assertThat(f.get()).isEqualTo(CN);
            }
            Executor plain = RoutingContextHolder.wrap((Executor) pool);
            CompletableFuture<RoutingContext> seen = new CompletableFuture<>();
            plain.execute(() -> seen.complete(RoutingContextHolder.current()));
            assertThat(seen.get()).isEqualTo(CN);
        }
    }

    @Test
    void completableFutureHelpers_carryTheContext_downTheChain() throws Exception {
        try (RoutingContextHolder.Scope s = RoutingContextHolder.open(US)) {
            CompletableFuture<String> unit = RoutingContextHolder.supplyAsync(RoutingContextHolder::current, pool)
                    .thenApplyAsync(RoutingContextHolder.wrapFunction(
                            c -> c.unit() + "/" + RoutingContextHolder.current().unit()), pool);
            assertThat(unit.get()).isEqualTo("u-us/u-us");
            CompletableFuture<RoutingContext> ran = new CompletableFuture<>();
            RoutingContextHolder.runAsync(() -> ran.complete(RoutingContextHolder.current()), pool).get();
            assertThat(ran.get()).isEqualTo(US);
        }
    }

    @Test
    void contextPropagation_capturesAndRestoresIt_throughTheRegisteredAccessor() throws Exception {
        ContextSnapshotFactory factory = ContextSnapshotFactory.builder().build();
        Runnable task;
        try (RoutingContextHolder.Scope s = RoutingContextHolder.open(CN)) {
            task = factory.captureAll().wrap((Runnable) () -> {
                assertThat(RoutingContextHolder.current()).isEqualTo(CN);
            });
        }
        pool.submit(task).get();
        assertThat(pool.submit(RoutingContextHolder::current).get()).isSameAs(RoutingContext.EMPTY);
        try (ContextSnapshot.Scope restored = factory.captureAll().setThreadLocals()) {
            assertThat(RoutingContextHolder.current()).isSameAs(RoutingContext.EMPTY);
        }
    }
}
