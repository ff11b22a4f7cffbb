package io.unitas.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

/** The README's main command through the real {@code ./unitas} launcher and the packaged jar. */
class LauncherIT {

    @Test
    void unitasReplay_onTheBundledExample_printsTheSameRoutesAsInProcess() throws IOException, InterruptedException {
        Path root = Cli.root();
        String[] args = {"replay", "--topology", "examples/topology.yaml", "--health", "examples/health.json",
                         "--users", "examples/users.csv"};
        String[] command = new String[args.length + 1];
        command[0] = root.resolve("unitas").toString();
        System.arraycopy(args, 0, command, 1, args.length);
        Process p = new ProcessBuilder(command).directory(root.toFile())
                .redirectError(ProcessBuilder.Redirect.INHERIT).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(5, TimeUnit.MINUTES)).isTrue();

        assertThat(p.exitValue()).isZero();
        assertThat(out).startsWith("user_id,home,target,reason\n").contains(",cn,eu,failover\n");
        String[] absolute = args.clone();
        for (int i = 2; i < absolute.length; i += 2) {
            absolute[i] = root.resolve(absolute[i]).toString();
        }
        assertThat(out).isEqualTo(Cli.run(absolute).out());
    }

    @Test
    void theJvm_endsOnAnOutOfMemoryError_ratherThanLivingOnWithoutItsThreads() throws IOException,
                                                                                     InterruptedException {
        // docs/robustness.md: a process that survives an out-of-memory may have lost its loops and ignore SIGTERM
        Path root = Cli.root();
        ProcessBuilder b = new ProcessBuilder(root.resolve("unitas").toString(), "--version").directory(root.toFile());
        b.environment().put("UNITAS_JAVA_OPTS", "-XX:+PrintFlagsFinal");
        Process p = b.redirectError(ProcessBuilder.Redirect.INHERIT).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(5, TimeUnit.MINUTES)).isTrue();

        assertThat(p.exitValue()).isZero();
        assertThat(out).containsPattern("bool ExitOnOutOfMemoryError += true +\\{product\\} \\{command line\\}");
    }

    @Test
    void anUnknownLogFormatIsRefusedBeforeTheCommandRuns_exit2() throws IOException, InterruptedException {
        Path root = Cli.root();
        ProcessBuilder b = new ProcessBuilder(root.resolve("unitas").toString(), "--version").directory(root.toFile());
        b.environment().put("UNITAS_LOG_FORMAT", "yaml");
        Process p = b.start();
        String err = new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(5, TimeUnit.MINUTES)).isTrue();

        assertThat(p.exitValue()).isEqualTo(2);
        assertThat(err).isEqualTo("unitas: UNITAS_LOG_FORMAT: 'yaml' (expected: text or json)\n");
    }
}
