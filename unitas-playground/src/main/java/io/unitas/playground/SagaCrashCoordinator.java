package io.unitas.playground;

import java.io.IOException;
import java.io.Reader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Map;
import java.util.Properties;
import org.h2.jdbcx.JdbcConnectionPool;

/**
 * The {@code saga-crash} drill's coordinator as a process of its own ({@code SagaCrashDrill.runOnProcesses} starts
 * it, and {@code kill -9}s it): {@code java -cp unitas-playground.jar io.unitas.playground.SagaCrashCoordinator FILE},
 * where {@code FILE} is a properties file with {@code cn} and {@code eu} (the regions' JDBC URLs), {@code naive},
 * {@code transfers}, {@code seed} and {@code owner}. It runs {@link SagaCrashTransfers#run} on pools of its own and
 * exits 0 when done, 1 when a transfer failed, 2 when the file is wrong; its log is its standard output.
 */
public final class SagaCrashCoordinator {

    private SagaCrashCoordinator() {}

    /** Runs the coordinator the file {@code args[0]} describes. */
    public static void main(String[] args) {
        if (args.length != 1) {
            System.err.println("saga-crash coordinator: " + args.length + " arguments (expected: one, the"
                               + " properties file)");
            System.exit(2);
        }
        Path file = Path.of(args[0]);
        Properties p = new Properties();
        boolean naive;
        int transfers;
        long seed;
        try (Reader in = Files.newBufferedReader(file)) {
            p.load(in);
            naive = Boolean.parseBoolean(required(file, p, "naive"));
            transfers = Integer.parseInt(required(file, p, "transfers"));
            seed = Long.parseLong(required(file, p, "seed"));
            required(file, p, "cn");
            required(file, p, "eu");
            required(file, p, "owner");
        } catch (IOException | IllegalArgumentException e) {
            System.err.println("saga-crash coordinator: " + e.getMessage());
            System.exit(2);
            return;
        }
        String owner = p.getProperty("owner");
        JdbcConnectionPool cn = PostgresPool.create(p.getProperty("cn"), "unitas-saga-crash-" + owner,
                                                    SagaCrashDrill.POOL);
        JdbcConnectionPool eu = PostgresPool.create(p.getProperty("eu"), "unitas-saga-crash-" + owner,
                                                    SagaCrashDrill.POOL);
        int exit = 0;
        try {
            log(owner + " (pid " + ProcessHandle.current().pid() + ", " + (naive ? "naive" : "sagas") + ")");
            new SagaCrashTransfers(naive, transfers, seed, owner,
                                   Map.of(SagaCrashTransfers.CN, cn, SagaCrashTransfers.EU, eu), cn, () -> false,
                                   SagaCrashCoordinator::log).run();
            log("done");
        } catch (Throwable e) {
            log("failed: " + e);
            e.printStackTrace(System.out);
            exit = 1;
        } finally {
            cn.dispose();
            eu.dispose();
        }
        System.out.flush();
        System.exit(exit);
    }

    private static String required(Path file, Properties p, String key) {
        String value = p.getProperty(key);
        if (value == null || value.isBlank()) {
            throw new IllegalArgumentException(file + ": " + key + ": missing (expected: a value)");
        }
        return value;
    }

    private static void log(String line) {
        System.out.println(Instant.now() + " " + line);
    }
}
