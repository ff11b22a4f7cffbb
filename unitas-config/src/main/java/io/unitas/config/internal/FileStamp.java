package io.unitas.config.internal;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * What "these files changed" means to everything that reloads files while it runs: each file's modification time
 * and size, or that it is missing. Two stamps of the same files are equal while none of them changed.
 *
 * @param parts per file, its modification time and size, or {@code "missing"}
 */
public record FileStamp(List<Object> parts) {

    /** The stamp of {@code files} now; {@code null} entries (optional files not configured) are skipped. */
    public static FileStamp of(Path... files) {
        List<Object> parts = new ArrayList<>();
        for (Path p : files) {
            if (p == null) {
                continue;
            }
            try {
                parts.add(Files.getLastModifiedTime(p));
                parts.add(Files.size(p));
            } catch (IOException e) {
                parts.add("missing");
            }
        }
        return new FileStamp(List.copyOf(parts));
    }
}
