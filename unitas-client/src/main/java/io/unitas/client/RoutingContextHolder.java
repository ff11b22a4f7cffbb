package io.unitas.client;

import java.util.Objects;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * The routing context of the work running on the current thread. A request's context is opened as a {@link Scope}
 * and closed when the request ends, which puts back whatever was there before, so a pooled thread never carries one
 * request's unit into the next. Work handed to another thread takes the context along when it is wrapped here
 * ({@link #wrap(Runnable)}, {@link #wrap(ExecutorService)}, {@link #supplyAsync}) or when the framework propagates
 * through Micrometer's context-propagation ({@link RoutingContextAccessor}).
 */
public final class RoutingContextHolder {

    private static final ThreadLocal<RoutingContext> CURRENT = new ThreadLocal<>();

    private RoutingContextHolder() {}

    /** An open context; closing it restores the thread's previous one. Closing twice does nothing more. */
    public interface Scope extends AutoCloseable {
        /** Restores the context that was current when this scope was opened. */
        @Override
        void close();
    }

    /** The current thread's context, {@link RoutingContext#EMPTY} when none is open. */
    public static RoutingContext current() {
        RoutingContext c = CURRENT.get();
        return c == null ? RoutingContext.EMPTY : c;
    }

    /** Makes {@code context} current until the returned scope is closed. */
    public static Scope open(RoutingContext context) {
        Objects.requireNonNull(context, "context");
        RoutingContext previous = CURRENT.get();
        CURRENT.set(context);
        return new Scope() {
            private boolean closed;

            @Override
            public void close() {
                if (!closed) {
                    closed = true;
                    restore(previous);
                }
            }
        };
    }

    /** Sets the current context without a scope, for frameworks that restore it themselves ({@code null}: none). */
    static void set(RoutingContext context) {
        restore(context);
    }

    /** The raw value: {@code null} when nothing is open. */
    static RoutingContext peek() {
        return CURRENT.get();
    }

    private static void restore(RoutingContext context) {
        if (context == null || context == RoutingContext.EMPTY) {
            CURRENT.remove();
        } else {
            CURRENT.set(context);
        }
    }

    /** {@code task} running under the context current now, whichever thread runs it. */
    public static Runnable wrap(Runnable task) {
        RoutingContext captured = current();
        return () -> {
            try (Scope ignored = open(captured)) {
                task.run();
            }
        };
    }

    /** {@code task} running under the context current now, whichever thread runs it. */
    public static <V> Callable<V> wrap(Callable<V> task) {
        RoutingContext captured = current();
        return () -> {
            try (Scope ignored = open(captured)) {
                return task.call();
            }
        };
    }

    /** {@code task} running under the context current now, whichever thread runs it. */
    public static <V> Supplier<V> wrap(Supplier<V> task) {
        RoutingContext captured = current();
        return () -> {
            try (Scope ignored = open(captured)) {
                return task.get();
            }
        };
    }

    /**
     * {@code fn} running under the context current now: for a dependent stage of a {@link CompletableFuture}, whose
     * task is handed to its executor by whichever thread completed the stage before, long after the request's scope.
     */
    public static <T, R> Function<T, R> wrapFunction(Function<T, R> fn) {
        RoutingContext captured = current();
        return value -> {
            try (Scope ignored = open(captured)) {
                return fn.apply(value);
            }
        };
    }

    /**
     * An executor that runs each task under the context current when the task was submitted. A dependent stage of a
     * {@link CompletableFuture} is submitted by the thread that completed the stage before it: wrap its function
     * ({@link #wrapFunction}) rather than rely on this.
     */
    public static Executor wrap(Executor executor) {
        Objects.requireNonNull(executor, "executor");
        return executor instanceof ContextExecutorService || executor instanceof ContextExecutor
                ? executor : new ContextExecutor(executor);
    }

    /** An executor service that runs each task under the context current when the task was submitted. */
    public static ExecutorService wrap(ExecutorService executor) {
        Objects.requireNonNull(executor, "executor");
        return executor instanceof ContextExecutorService ? executor : new ContextExecutorService(executor);
    }

    /** {@link CompletableFuture#supplyAsync} carrying the current context to {@code executor}. */
    public static <V> CompletableFuture<V> supplyAsync(Supplier<V> task, Executor executor) {
        return CompletableFuture.supplyAsync(wrap(task), executor);
    }

    /** {@link CompletableFuture#runAsync} carrying the current context to {@code executor}. */
    public static CompletableFuture<Void> runAsync(Runnable task, Executor executor) {
        return CompletableFuture.runAsync(wrap(task), executor);
    }

    /** Wraps each task it is given. */
    private record ContextExecutor(Executor delegate) implements Executor {
        @Override
        public void execute(Runnable command) {
            delegate.execute(wrap(command));
        }
    }
}
