package io.unitas.gateway;

import com.sun.jna.Function;
import com.sun.jna.LastErrorException;
import com.sun.jna.Memory;
import com.sun.jna.Platform;

import io.netty.channel.EventLoopGroup;
import io.netty.util.concurrent.EventExecutor;

/**
 * Asks Linux's scheduler for the shortest time slice it grants a thread, 0.1 ms: the custom slice of the EEVDF
 * scheduler (kernels from 6.12), {@code sched_runtime} in sched_setattr(2) under the fair policies.
 *
 * <p>The slice decides how soon a thread that wakes takes a CPU from one that is running. An event loop woken by a
 * completion while wrk, a backend or a batch job holds every CPU otherwise waits out the holder's slice (1.4 ms on a
 * 2-core machine), and every request queued on the loop waits with it. A shorter slice changes when the loop runs, not
 * how much: its share of the CPU is its weight's (the nice value, kept as it was). No privilege is needed; kernels
 * before 6.12 accept the call and keep their own slice.
 */
final class TimeSlice {

    /** The shortest custom slice the kernel grants (it clamps requests to 0.1 to 100 ms). */
    static final long SHORTEST_NANOS = 100_000;

    /** {@code struct sched_attr} up to its utilization clamps (SCHED_ATTR_SIZE_VER1), and its fields' offsets. */
    private static final int ATTR_SIZE = 56;
    private static final int POLICY = 4;
    private static final int RUNTIME = 24;
    private static final int SCHED_OTHER = 0;
    private static final int SCHED_BATCH = 3;

    /** What {@link #shortestFor} says when its loops have the shortest slice, and when they keep the kernel's. */
    static final String SHORTEST = "0.1 ms time slices";
    static final String KERNELS = "the kernel's time slices";

    private TimeSlice() {
    }

    /**
     * Asks for the shortest slice on every loop's thread (starting the loops that had not started): {@link #SHORTEST},
     * or {@link #KERNELS} and why not.
     */
    static String shortestFor(EventLoopGroup loops) {
        for (EventExecutor loop : loops) {
            String why = loop.submit(TimeSlice::requestShortest).syncUninterruptibly().getNow();
            if (why != null) {
                return KERNELS + ": " + why;
            }
        }
        return SHORTEST;
    }

    /**
     * Asks for the calling thread's slice to be {@link #SHORTEST_NANOS}; null when the kernel runs it so (it says the
     * slice back), else why not.
     */
    static String requestShortest() {
        if (!Platform.isLinux() || !Platform.is64Bit() || !(Platform.isIntel() || Platform.isARM())) {
            return "not Linux on x86-64 or arm64";
        }
        long getattr = Platform.isIntel() ? 315 : 275; // the system calls' numbers on x86-64 and arm64
        long setattr = Platform.isIntel() ? 314 : 274;
        try (Memory attr = new Memory(ATTR_SIZE)) {
            Function syscall = Function.getFunction(Platform.C_LIBRARY_NAME, "syscall", Function.THROW_LAST_ERROR);
            attr.clear();
            // Read the thread's attributes first, so that its nice value (and policy) stay as they are. Every
            // argument is a long: syscall(2) reads each as one.
            syscall.invokeInt(new Object[] {getattr, 0L, attr, (long) ATTR_SIZE, 0L});
            int policy = attr.getInt(POLICY);
            if (policy != SCHED_OTHER && policy != SCHED_BATCH) {
                return "the thread runs under scheduling policy " + policy + ", not the fair scheduler's";
            }
            attr.setInt(0, ATTR_SIZE);
            attr.setLong(RUNTIME, SHORTEST_NANOS);
            syscall.invokeInt(new Object[] {setattr, 0L, attr, 0L});
            attr.clear();
            syscall.invokeInt(new Object[] {getattr, 0L, attr, (long) ATTR_SIZE, 0L});
            return attr.getLong(RUNTIME) == SHORTEST_NANOS ? null : "this kernel keeps its own (custom slices came in 6.12)";
        } catch (LastErrorException e) {
            return "the kernel refused it: " + e.getMessage();
        } catch (LinkageError | RuntimeException e) {  // no native library for this platform, no temp dir to unpack it
            return "no native access: " + e.getMessage();
        }
    }
}
