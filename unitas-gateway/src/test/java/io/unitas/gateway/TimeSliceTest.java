package io.unitas.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.FutureTask;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

import io.netty.channel.EventLoopGroup;
import io.netty.util.concurrent.EventExecutor;
import io.unitas.gateway.GatewayConfig.TransportKind;

/**
 * The slice is read back from the kernel's own account of each thread ({@code /proc/thread-self/sched} and
 * {@code stat}), not taken from what the call returned: on the kernels unitas is built on (6.12 and later) every event
 * loop runs in 0.1 ms slices, with the nice value it had.
 */
class TimeSliceTest {

    @Test
    void everyEventLoopRunsInTheShortestSlice() {
        EventLoopGroup loops = Transport.of(TransportKind.AUTO).group(2, "slice-test");
        try {
            assertThat(TimeSlice.shortestFor(loops)).isEqualTo(TimeSlice.SHORTEST);
            for (EventExecutor loop : loops) {
                assertThat(loop.submit(TimeSliceTest::sliceNanos).syncUninterruptibly().getNow())
                        .isEqualTo(TimeSlice.SHORTEST_NANOS);
            }
        } finally {
            loops.shutdownGracefully(0, 0, TimeUnit.SECONDS).syncUninterruptibly();
        }
    }

    @Test
    void aNicedThreadKeepsItsNiceValueAndItsShareWithIt() throws Exception {
        // On a thread of its own: the test runner's thread keeps its slice and nice value.
        FutureTask<String> task = new FutureTask<>(() -> {
            String tid = Files.readSymbolicLink(Path.of("/proc/thread-self")).getFileName().toString();
            assertThat(new ProcessBuilder("renice", "-n", "7", "-p", tid).start().waitFor()).isZero();
            long before = sliceNanos();
            String refused = TimeSlice.requestShortest();
            return refused + " " + before + " " + sliceNanos() + " " + nice();
        });
        Thread thread = new Thread(task, "slice-test-niced");
        thread.start();
        String[] outcome = task.get(30, TimeUnit.SECONDS).split(" ");
        assertThat(outcome[0]).as("why the kernel refused").isEqualTo("null");
        assertThat(Long.parseLong(outcome[1])).as("the kernel's own slice").isGreaterThan(TimeSlice.SHORTEST_NANOS);
        assertThat(Long.parseLong(outcome[2])).isEqualTo(TimeSlice.SHORTEST_NANOS);
        assertThat(outcome[3]).as("nice").isEqualTo("7");
    }

    /** The calling thread's slice as the scheduler holds it. */
    private static long sliceNanos() throws Exception {
        return Files.readAllLines(Path.of("/proc/thread-self/sched")).stream()
                    .filter(l -> l.startsWith("se.slice"))
                    .mapToLong(l -> Long.parseLong(l.substring(l.indexOf(':') + 1).trim()))
                    .findFirst().orElseThrow(() -> new AssertionError("no se.slice in /proc/thread-self/sched"));
    }

    /** The calling thread's nice value: the 19th field of its stat, counted after the name in parentheses. */
    private static String nice() throws Exception {
        String stat = Files.readString(Path.of("/proc/thread-self/stat"));
        return stat.substring(stat.lastIndexOf(')') + 2).split(" ")[16];
    }
}
