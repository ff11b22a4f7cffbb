package io.unitas.cli;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;

import io.unitas.config.internal.SecretFiles;
import io.unitas.control.Relay;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParentCommand;

/** {@code unitas relay}: re-serves one control-plane watch to a region's watchers until stopped. */
@Command(name = "relay",
         description = "Run a watch relay: one watch on the control plane (or on another relay) served to many "
                       + "watchers at /api/v1/watch with the same revisions, so a watcher resumes by revision on any "
                       + "relay or on the control plane; /healthz says 503 while the upstream is down or silent.",
         mixinStandardHelpOptions = true)
final class RelayCommand implements Callable<Integer> {

    @ParentCommand
    Main main;

    @Option(names = "--upstream", required = true, paramLabel = "URL",
            description = "the control plane or relay to watch, e.g. https://control.internal:8443")
    URI upstream;

    @Option(names = "--token-file", required = true, paramLabel = "FILE",
            description = "a viewer token of the upstream (read again on every connection, so it can be rotated)")
    Path tokenFile;

    @Option(names = "--tokens", required = true, paramLabel = "FILE",
            description = "the tokens file whose viewers may watch this relay (the control plane's format)")
    Path tokens;

    @Option(names = "--port", defaultValue = "7071", description = "port on 127.0.0.1 (default: ${DEFAULT-VALUE})")
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

    @Option(names = "--upstream-ca", paramLabel = "FILE",
            description = "trust this CA (PEM) for an https:// upstream instead of the JDK's")
    Path upstreamCa;

    @Option(names = "--allow-insecure-upstream",
            description = "allow an http:// upstream beyond loopback (the token crosses the network readable)")
    boolean allowInsecureUpstream;

    @Override
    public Integer call() throws InterruptedException {
        if (!Files.isReadable(tokenFile)) {
            main.err().println("unitas relay: --token-file " + tokenFile + ": not readable (expected: a file holding "
                               + "a viewer token of the upstream)");
            return Main.EXIT_USAGE;
        }
        try {
            SecretFiles.checkPrivate(tokenFile, "the relay's upstream token");
        } catch (IllegalArgumentException e) {
            main.err().println("unitas relay: --token-file " + e.getMessage());
            return Main.EXIT_USAGE;
        }
        if ((tlsCert == null) != (tlsKey == null)) {
            main.err().println("unitas relay: --tls-cert and --tls-key go together (expected: both or neither)");
            return Main.EXIT_USAGE;
        }
        Relay.Builder b = Relay.builder().upstream(upstream).upstreamToken(() -> read(tokenFile)).tokens(tokens)
                               .port(port).allowPlaintext(allowPlaintext).allowInsecure(allowInsecureUpstream);
        if (listen != null) {
            int colon = listen.lastIndexOf(':');
            try {
                b.host(listen.substring(0, colon).replace("[", "").replace("]", ""))
                 .port(Integer.parseInt(listen.substring(colon + 1)));
            } catch (RuntimeException e) {
                main.err().println("unitas relay: --listen " + listen + " (expected: HOST:PORT, e.g. 0.0.0.0:7071)");
                return Main.EXIT_USAGE;
            }
        }
        if (tlsCert != null) {
            b.tls(tlsCert, tlsKey);
        }
        if (upstreamCa != null) {
            b.upstreamCa(upstreamCa);
        }
        Relay relay;
        try {
            relay = b.start();
        } catch (IllegalArgumentException | UncheckedIOException e) {
            main.err().println("unitas relay: " + e.getMessage());
            return Main.EXIT_USAGE;
        }
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            relay.close();
            stopped.countDown();
        }));
        main.out().println("unitas relay: serving " + relay.uri() + "/api/v1/watch from " + upstream
                           + " (health " + relay.uri() + "/healthz)");
        main.out().flush();
        stopped.await();
        return 0;
    }

    /** The token in {@code file}, stripped; empty (none sent, the upstream answers 401 and the watch retries). */
    private static String read(Path file) {
        try {
            return Files.readString(file).strip();
        } catch (IOException e) {
            return "";
        }
    }
}
