package io.unitas.core;

import java.util.Objects;

/**
 * One thing wrong with a document, located by a path inside it ({@code ranges[2]}, {@code fallback.us[0]}).
 * The reader that loaded the document adds the file name and line; the core knows only paths.
 */
public record Problem(String path, String message) {

    /** Creates a problem; both parts are required. */
    public Problem {
        Objects.requireNonNull(path, "path");
        Objects.requireNonNull(message, "message");
    }

    /** {@code "path: message"}, or just the message for the document as a whole. */
    @Override
    public String toString() {
        return path.isEmpty() ? message : path + ": " + message;
    }
}
