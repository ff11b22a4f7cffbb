package io.unitas.control;

import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A real small file system: a tmpfs of a few hundred KiB mounted on a temporary directory (the tests run as root,
 * as CI does), filled to the last byte on demand, so the store meets the kernel's own {@code ENOSPC} and its short
 * writes. {@link #mount} returns null where mounting is not permitted; callers then use {@link FaultyDisk}.
 */
final class SmallDisk implements AutoCloseable {

    private final Path mountPoint;
    private final Path filler;

    private SmallDisk(Path mountPoint) {
        this.mountPoint = mountPoint;
        this.filler = mountPoint.resolve("filler");
    }

    /** Mounts a tmpfs of {@code kib} KiB on {@code dir}; null if this machine does not let us. */
    static SmallDisk mount(Path dir, int kib) {
        try {
            Files.createDirectories(dir);
            if (run(List.of("mount", "-t", "tmpfs", "-o", "size=" + kib + "k", "tmpfs", dir.toString())) != 0) {
                return null;
            }
            return new SmallDisk(dir);
        } catch (IOException e) {
            return null;
        }
    }

    Path root() {
        return mountPoint;
    }

    /** Fills the disk to its last byte, then frees {@code bytes} of it (rounded to pages by tmpfs). */
    void fillLeaving(int bytes) throws IOException {
        byte[] page = new byte[4096];
        try (OutputStream out = Files.newOutputStream(filler)) {
            while (true) {
                out.write(page);
                out.flush();
            }
        } catch (IOException full) {
            // the kernel said ENOSPC: the disk is full
        }
        try (var c = java.nio.channels.FileChannel.open(filler, java.nio.file.StandardOpenOption.WRITE)) {
            c.truncate(Math.max(0, c.size() - bytes));
        }
    }

    /** Frees the space the filler took. */
    void free() throws IOException {
        Files.deleteIfExists(filler);
    }

    @Override
    public void close() {
        try {
            run(List.of("umount", "-l", mountPoint.toString()));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static int run(List<String> command) throws IOException {
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        try {
            p.getInputStream().readAllBytes();
            return p.waitFor(30, TimeUnit.SECONDS) ? p.exitValue() : -1;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return -1;
        }
    }
}
