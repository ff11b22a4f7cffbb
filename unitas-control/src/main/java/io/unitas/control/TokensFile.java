package io.unitas.control;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;

import io.unitas.config.ConfigException;

/**
 * The tokens file, followed: a token added, rotated or revoked there counts within a second, without a restart. A
 * change that does not read is refused with one line on stderr naming its problems, and the tokens before it stay
 * in force. The file is a few lines, so it is simply read again and compared.
 */
final class TokensFile {

    private static final long CHECK_EVERY_NANOS = TimeUnit.SECONDS.toNanos(1);

    private final Path file;
    private volatile TokenTable table;
    private byte[] seen; // guarded by this
    private volatile long checkedAt;

    /** Reads {@code file}, which must be good now. */
    TokensFile(Path file) {
        this.file = file;
        this.seen = bytes();
        this.table = TokenTable.read(file);
        this.checkedAt = System.nanoTime();
    }

    /** The tokens in force, the file looked at again when a second has passed since the last look. */
    TokenTable current() {
        long now = System.nanoTime();
        if (now - checkedAt >= CHECK_EVERY_NANOS) {
            synchronized (this) {
                if (now - checkedAt >= CHECK_EVERY_NANOS) {
                    checkedAt = now;
                    reloadIfChanged();
                }
            }
        }
        return table;
    }

    private void reloadIfChanged() {
        byte[] now;
        try {
            now = bytes();
        } catch (UncheckedIOException e) {
            System.err.println(file + ": cannot read the tokens file (" + e.getCause().getMessage()
                               + "); the tokens before stay in force");
            return;
        }
        if (Arrays.equals(now, seen)) {
            return;
        }
        seen = now;
        try {
            table = TokenTable.read(file);
            System.err.println(file + ": tokens reloaded");
        } catch (ConfigException | UncheckedIOException e) {
            System.err.println(file + ": change refused, the tokens before it stay in force: "
                               + e.getMessage().replace('\n', ';'));
        }
    }

    private byte[] bytes() {
        try {
            return Files.readAllBytes(file);
        } catch (IOException e) {
            throw new UncheckedIOException(file + ": cannot read the tokens file", e);
        }
    }
}
