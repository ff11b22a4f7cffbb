package io.unitas.core.consistency;

import java.util.Objects;

/**
 * Where something was written: a file, its line (0 when unknown) and the path inside the document
 * ({@code entities.orders.consistency}, {@code fallback.eu[1]}). Readers fill it in; the core only carries it.
 *
 * @param file the file's name as given
 * @param line the line, from 1; 0 when unknown
 * @param path the path inside the document; empty for the document as a whole
 */
public record Location(String file, int line, String path) {

    /** Requires a file and a path, and a line of at least 0. */
    public Location {
        Objects.requireNonNull(file, "file");
        Objects.requireNonNull(path, "path");
        if (line < 0) {
            throw new IllegalArgumentException("line: " + line + " (expected: >= 0)");
        }
    }

    /** {@code file:line: path}, the prefix of every message about it ({@code file: path} without a line). */
    @Override
    public String toString() {
        return file + (line > 0 ? ":" + line : "") + (path.isEmpty() ? "" : ": " + path);
    }
}
