package io.unitas.testkit;

import java.util.function.Consumer;
import java.util.function.Supplier;

/** One server per JVM: started on first use, stopped when the JVM exits. */
final class Shared<T> {

    private final Supplier<T> start;
    private final Consumer<T> stop;
    private T server;

    Shared(Supplier<T> start, Consumer<T> stop) {
        this.start = start;
        this.stop = stop;
    }

    synchronized T get() {
        if (server == null) {
            T started = start.get();
            ServerProcesses.onExit(() -> stop.accept(started));
            server = started;
        }
        return server;
    }

    /** Boots {@code server}, closing what it started if booting fails. */
    static <S extends AutoCloseable> S booted(S server, Consumer<S> boot) {
        try {
            boot.accept(server);
            return server;
        } catch (RuntimeException e) {
            try {
                server.close();
            } catch (Exception suppressed) {
                e.addSuppressed(suppressed);
            }
            throw e;
        }
    }
}
