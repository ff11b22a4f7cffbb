package io.unitas.cli;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.net.URI;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;

import io.unitas.config.ConsistencyFile;
import io.unitas.config.internal.SecretFiles;
import io.unitas.control.ControlServer;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParentCommand;

/** {@code unitas control}: runs the control plane until stopped. */
@Command(name = "control",
         description = "Run the control plane: versioned topology, rules, fences, health and switchovers, "
                       + "its HTTP API under /api/v1, the watch stream and the console at /.",
         mixinStandardHelpOptions = true)
final class ControlCommand implements Callable<Integer> {

    /** Where the state lives. */
    enum Store { embedded, etcd }

    @ParentCommand
    Main main;

    @Option(names = "--data", paramLabel = "DIR", defaultValue = "unitas-control-data",
            description = "embedded store and default tokens file (default: ${DEFAULT-VALUE})")
    Path data;

    @Option(names = "--port", defaultValue = "7070", description = "port on 127.0.0.1 (default: ${DEFAULT-VALUE})")
    int port;

    @Option(names = "--listen", paramLabel = "HOST:PORT",
            description = "address to listen on instead of 127.0.0.1:--port; beyond loopback needs --tls-cert and "
                          + "--tls-key (or --allow-plaintext)")
    String listen;

    @Option(names = "--tls-cert", paramLabel = "FILE", description = "serve HTTPS with this certificate chain (PEM)")
    Path tlsCert;

    @Option(names = "--tls-key", paramLabel = "FILE", description = "the private key of --tls-cert (PEM)")
    Path tlsKey;

    @Option(names = "--allow-plaintext",
            description = "allow cleartext HTTP beyond loopback (only behind a proxy that terminates TLS)")
    boolean allowPlaintext;

    @Option(names = "--health-clock-skew", defaultValue = "30s", paramLabel = "DURATION",
            converter = ProbeCommand.DurationConverter.class,
            description = "refuse health reports observed further ahead of this clock (default: ${DEFAULT-VALUE})")
    Duration healthClockSkew;

    @Option(names = "--store", defaultValue = "embedded", description = "embedded or etcd (default: ${DEFAULT-VALUE})")
    Store store;

    @Option(names = "--etcd", paramLabel = "URLS", split = ",",
            description = "etcd endpoints for --store etcd, comma-separated (http://127.0.0.1:2379)")
    List<URI> etcd;

    @Option(names = "--etcd-prefix", defaultValue = "/unitas/", description = "key prefix in etcd")
    String etcdPrefix;

    @Option(names = "--etcd-ca", paramLabel = "FILE", description = "talk to etcd over TLS, trusting this CA (PEM)")
    Path etcdCa;

    @Option(names = "--etcd-cert", paramLabel = "FILE",
            description = "client certificate for etcd's TLS (PEM), with --etcd-key and --etcd-ca")
    Path etcdCert;

    @Option(names = "--etcd-key", paramLabel = "FILE", description = "the private key of --etcd-cert (PEM)")
    Path etcdKey;

    @Option(names = "--etcd-user", paramLabel = "NAME", description = "etcd user, with --etcd-password-file")
    String etcdUser;

    @Option(names = "--etcd-password-file", paramLabel = "FILE",
            description = "file holding the etcd user's password (a file, so that it is not in the process list)")
    Path etcdPasswordFile;

    @Option(names = "--tokens", paramLabel = "FILE",
            description = "tokens file, lines 'name role sha256:<hex>' (default: DIR/tokens, created with an "
                          + "admin token on first start, its secret in DIR/admin-token)")
    Path tokens;

    @Option(names = "--health-ttl", defaultValue = "30s", paramLabel = "DURATION",
            converter = ProbeCommand.DurationConverter.class,
            description = "a region without a report for this long is stale (default: ${DEFAULT-VALUE})")
    Duration healthTtl;

    @Option(names = "--health-grace", defaultValue = "30s", paramLabel = "DURATION",
            converter = ProbeCommand.DurationConverter.class,
            description = "a stale region turns unhealthy after this much more (default: ${DEFAULT-VALUE})")
    Duration healthGrace;

    @Option(names = "--health-ttl-with-evidence", paramLabel = "DURATION",
            converter = ProbeCommand.DurationConverter.class,
            description = "a region whose last report is this old and that another region's gateway reported "
                          + "unreachable since is down at once; three of its agent's push intervals (two pushes "
                          + "missed), at most --health-ttl (default: the health ttl)")
    Duration healthTtlWithEvidence;

    @Option(names = "--switchover-cooldown", defaultValue = "1m", paramLabel = "DURATION",
            converter = ProbeCommand.DurationConverter.class,
            description = "the least time between two switchovers of one unit (default: ${DEFAULT-VALUE})")
    Duration switchoverCooldown;

    @Option(names = "--consistency", paramLabel = "FILE",
            description = "a consistency contract (docs/consistency.md): refuse a switchover or promotion that would "
                          + "move a unit out of its residency group; show its staleness budgets against the lag")
    Path consistency;

    @Option(names = "--fallback-pool", paramLabel = "ADDRESSES", split = ",",
            description = "IPv4 addresses published at GET /api/v1/fallback-pool (CRC32-checked): what clients use "
                          + "when DNS fails (default: none)")
    List<String> fallbackPool;

    /** {@code literal} as an IPv4 address, never looked up; null when it is not four octets. */
    private static InetAddress ipv4(String literal) {
        String[] parts = literal.split("\\.", -1);
        if (parts.length != 4) {
            return null;
        }
        byte[] ip = new byte[4];
        for (int i = 0; i < 4; i++) {
            if (!parts[i].matches("\\d{1,3}") || Integer.parseInt(parts[i]) > 255) {
                return null;
            }
            ip[i] = (byte) Integer.parseInt(parts[i]);
        }
        try {
            return InetAddress.getByAddress(ip);
        } catch (UnknownHostException e) {
            throw new AssertionError(e); // four bytes are always an IPv4 address
        }
    }

    @Override
    public Integer call() throws InterruptedException {
        ControlServer.Builder b = ControlServer.builder().port(port).dataDir(data).etcdPrefix(etcdPrefix)
                .healthFreshness(healthTtl, healthGrace).healthClockSkew(healthClockSkew)
                .allowPlaintext(allowPlaintext).switchoverCooldown(switchoverCooldown);
        if (consistency != null) {
            b.residency(ConsistencyFile.read(consistency));
        }
        if (fallbackPool != null) {
            List<InetAddress> addresses = new ArrayList<>();
            for (String a : fallbackPool) {
                InetAddress address = ipv4(a.strip());
                if (address == null) {
                    main.err().println("unitas control: --fallback-pool " + a + " (expected: IPv4 address literals,"
                                       + " comma-separated)");
                    return Main.EXIT_USAGE;
                }
                addresses.add(address);
            }
            b.fallbackPool(addresses);
        }
        if (healthTtlWithEvidence != null) {
            b.healthTtlWithEvidence(healthTtlWithEvidence);
        }
        if (listen != null) {
            int colon = listen.lastIndexOf(':');
            try {
                b.host(listen.substring(0, colon).replace("[", "").replace("]", ""))
                 .port(Integer.parseInt(listen.substring(colon + 1)));
            } catch (RuntimeException e) {
                main.err().println("unitas control: --listen " + listen + " (expected: HOST:PORT, e.g. 0.0.0.0:7070)");
                return Main.EXIT_USAGE;
            }
        }
        if ((tlsCert == null) != (tlsKey == null)) {
            main.err().println("unitas control: --tls-cert and --tls-key go together (expected: both or neither)");
            return Main.EXIT_USAGE;
        }
        if (tlsCert != null) {
            b.tls(tlsCert, tlsKey);
        }
        if (tokens != null) {
            b.tokens(tokens);
        }
        if (store == Store.etcd) {
            if (etcd == null || etcd.isEmpty()) {
                main.err().println("unitas control: --store etcd needs --etcd URLS (expected: http://host:2379,...)");
                return Main.EXIT_USAGE;
            }
            b.etcd(etcd);
            String wrong = etcdAccess(b);
            if (wrong != null) {
                main.err().println("unitas control: " + wrong);
                return Main.EXIT_USAGE;
            }
        } else if (etcdCa != null || etcdCert != null || etcdKey != null || etcdUser != null
                   || etcdPasswordFile != null) {
            main.err().println("unitas control: --etcd-ca, --etcd-cert, --etcd-key, --etcd-user and "
                               + "--etcd-password-file go with --store etcd");
            return Main.EXIT_USAGE;
        }
        ControlServer server;
        try {
            server = b.start();
        } catch (IllegalArgumentException e) {
            main.err().println("unitas control: " + e.getMessage());
            return Main.EXIT_USAGE;
        }
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            server.close();
            stopped.countDown();
        }));
        InetSocketAddress bound = server.boundAddress();
        main.out().println("unitas control: listening on " + bound.getAddress().getHostAddress() + ":"
                           + bound.getPort() + ", serving " + server.uri() + " (console " + server.uri() + "/, store "
                           + (store == Store.etcd ? "etcd " + etcd : "embedded in " + data.toAbsolutePath()) + ")");
        server.generatedTokenFile().ifPresent(f -> main.out().println(
                "unitas control: created " + data.resolve("tokens") + " with an admin token; its secret is in " + f
                + " (readable by you only; remove it once kept elsewhere):\n  export UNITAS_TOKEN=$(cat " + f + ")"));
        main.out().flush();
        stopped.await();
        return 0;
    }

    /** Applies etcd's TLS and auth options to {@code b}; what is wrong with them, or null. */
    private String etcdAccess(ControlServer.Builder b) {
        if ((etcdCert == null) != (etcdKey == null)) {
            return "--etcd-cert and --etcd-key go together (expected: both or neither)";
        }
        if (etcdCert != null && etcdCa == null) {
            return "--etcd-cert needs --etcd-ca (expected: the CA that signed etcd's certificate)";
        }
        if ((etcdUser == null) != (etcdPasswordFile == null)) {
            return "--etcd-user and --etcd-password-file go together (expected: both or neither)";
        }
        if (etcdCa != null) {
            b.etcdTls(etcdCa, etcdCert, etcdKey);
        }
        if (etcdUser != null) {
            try {
                SecretFiles.checkPrivate(etcdPasswordFile, "the etcd password file");
                b.etcdAuth(etcdUser, Files.readString(etcdPasswordFile).strip());
            } catch (IllegalArgumentException e) {
                return "--etcd-password-file " + e.getMessage();
            } catch (IOException e) {
                return "--etcd-password-file " + etcdPasswordFile + ": cannot read (" + e.getMessage() + ")";
            }
        }
        return null;
    }
}
