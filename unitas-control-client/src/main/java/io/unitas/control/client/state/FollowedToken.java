package io.unitas.control.client.state;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.function.Supplier;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.unitas.config.internal.FileStamp;
import io.unitas.config.internal.SecretFiles;
import io.unitas.control.client.internal.StateSourceReader;

/**
 * A control-plane token file, followed: looked at before every request and connection of the watch (a
 * file's stamp, no read while it is unchanged) and read again when it changed, so a rotated token is used without a
 * restart. A change that leaves the file unreadable or empty, or open to others or a link, is refused with a log
 * line, and the token before it stays in use.
 */
final class FollowedToken implements Supplier<String> {

    private static final Logger log = LoggerFactory.getLogger(FollowedToken.class);

    private final Path file;
    private FileStamp seen;
    private String token;

    /** Reads {@code file}, which must be readable now. */
    FollowedToken(Path file) {
        this.file = file;
        this.seen = FileStamp.of(file);
        this.token = read();
    }

    @Override
    public synchronized String get() {
        FileStamp now = FileStamp.of(file);
        if (!now.equals(seen)) {
            seen = now;
            try {
                String next = read();
                if (next.isEmpty()) {
                    log.warn("{}: empty; the token before it stays in use", file);
                } else {
                    token = next;
                    log.info("{}: control-plane token reloaded", file);
                }
            } catch (IllegalStateException e) {
                log.warn("{}; the token before it stays in use", e.getMessage());
            }
        }
        return token;
    }

    /** The file's token, once it passes the check of a secret file (its owner's only, not a link). */
    private String read() {
        try {
            SecretFiles.checkPrivate(file, StateSourceReader.TOKEN_FILE);
            return Files.readString(file).strip();
        } catch (IllegalArgumentException e) {
            throw new IllegalStateException(e.getMessage(), e);
        } catch (IOException e) {
            throw new IllegalStateException(file + ": cannot read: " + e.getMessage(), e);
        }
    }
}
