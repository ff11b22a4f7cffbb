package io.unitas.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import io.unitas.gateway.GatewayConfig.TransportKind;

/**
 * A layer named in gateway.yaml that this machine lacks is refused with the gateway's own message, whatever Netty
 * would throw on building it. Netty decides availability once per JVM, so each case runs in a JVM of its own with
 * the native layers switched off ({@code -Dio.netty.transport.noNative=true}), as on a kernel without them.
 */
class TransportRefusalTest {

    @ParameterizedTest
    @EnumSource(value = TransportKind.class, names = {"IO_URING", "EPOLL"})
    void aLayerThisMachineLacks_isRefusedWithItsName(TransportKind kind) throws IOException, InterruptedException {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        Process p = new ProcessBuilder(java, "-Dio.netty.transport.noNative=true", "-cp",
                                       System.getProperty("java.class.path"), Probe.class.getName(), kind.name())
                .redirectError(ProcessBuilder.Redirect.DISCARD).start();
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(out).startsWith("transport: " + kind.id() + " is not available here (");
    }

    /** Builds the named layer and prints what came of it. */
    public static final class Probe {
        public static void main(String[] args) {
            try {
                System.out.println("built " + Transport.of(TransportKind.valueOf(args[0])).name());
            } catch (IllegalStateException e) {
                System.out.println(e.getMessage());
            } catch (Throwable t) {
                System.out.println("not refused: " + t);
            }
        }
    }
}
