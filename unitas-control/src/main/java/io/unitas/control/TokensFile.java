package io.unitas.control;

import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.unitas.config.ConfigException;
import io.unitas.config.internal.FileStamp;
import io.unitas.config.internal.SecretFiles;

/**
 * The tokens file, followed: the control plane's ticker looks at it every second, so a token added, rotated or
 * revoked there counts without a restart, and no request waits on the file. A change that does not read is refused
 * with one warning in the log naming its problems, and the tokens before it stay in force.
 */
final class TokensFile {

    private static final Logger LOG = LoggerFactory.getLogger(TokensFile.class);

    private final Path file;
    private volatile TokenTable table;
    private FileStamp seen; // touched by the ticker only
    private final List<Consumer<TokenTable>> listeners = new CopyOnWriteArrayList<>();

    /** Reads {@code file}, which must be good now, and writable by its owner only ({@link SecretFiles}). */
    TokensFile(Path file) {
        SecretFiles.checkNotWritableByOthers(file, "the tokens file");
        this.file = file;
        this.seen = FileStamp.of(file);
        this.table = TokenTable.read(file);
    }

    /** The tokens in force. */
    TokenTable current() {
        return table;
    }

    /** Calls {@code listener} with the tokens after each reload that took (to close a revoked token's watches). */
    void onReload(Consumer<TokenTable> listener) {
        listeners.add(listener);
    }

    /** Reads the file again when it changed. */
    void reloadIfChanged() {
        FileStamp now = FileStamp.of(file);
        if (now.equals(seen)) {
            return;
        }
        seen = now;
        try {
            SecretFiles.checkNotWritableByOthers(file, "the tokens file");
            table = TokenTable.read(file);
            LOG.info("{}: tokens reloaded", file);
            listeners.forEach(l -> l.accept(table));
        } catch (ConfigException | UncheckedIOException | IllegalArgumentException e) {
            LOG.warn("{}: change refused, the tokens before it stay in force: {}", file,
                     e.getMessage().replace('\n', ';'));
        }
    }
}
