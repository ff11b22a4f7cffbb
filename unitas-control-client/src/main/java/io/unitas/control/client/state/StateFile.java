package io.unitas.control.client.state;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;

/**
 * The follower's last good state on disk. A state file is written where an operator says, often a shared directory:
 * it is written through a new temporary file of an unpredictable name in the same directory (created exclusively,
 * readable by the owner only, flushed), then moved over the old one in one step, and a state file that is a symbolic
 * link is refused, so that a link planted there cannot make the process overwrite or read another file.
 */
final class StateFile {

    private StateFile() {}

    /**
     * Replaces {@code file} with {@code content}, or leaves it as it was.
     *
     * @throws IOException when it cannot, or when {@code file} is a symbolic link
     */
    static void replace(Path file, String content) throws IOException {
        refuseLink(file);
        Path dir = file.toAbsolutePath().getParent();
        Files.createDirectories(dir);
        Path tmp = Files.createTempFile(dir, file.getFileName() + ".", ".tmp", PosixFilePermissions.asFileAttribute(
                PosixFilePermissions.fromString("rw-------")));
        try {
            try (FileChannel out = FileChannel.open(tmp, StandardOpenOption.WRITE, LinkOption.NOFOLLOW_LINKS)) {
                ByteBuffer bytes = ByteBuffer.wrap(content.getBytes(StandardCharsets.UTF_8));
                while (bytes.hasRemaining()) {
                    out.write(bytes);
                }
                out.force(true);
            }
            Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } finally {
            Files.deleteIfExists(tmp);
        }
    }

    /**
     * The content of {@code file}.
     *
     * @throws IOException when it cannot be read, or is a symbolic link
     */
    static String read(Path file) throws IOException {
        refuseLink(file);
        return Files.readString(file);
    }

    private static void refuseLink(Path file) throws IOException {
        if (Files.isSymbolicLink(file)) {
            throw new IOException(file + ": is a symbolic link (expected: a regular file, or none)");
        }
    }
}
