package io.unitas.core.consistency;

/**
 * The {@link Location} of a path inside one document (the topology), so that the check can point a violation at the
 * line that causes it without knowing how the document was read.
 */
@FunctionalInterface
public interface Locator {

    /** Where {@code path} is written. */
    Location at(String path);

    /** A locator that knows only the file's name (every line 0). */
    static Locator of(String file) {
        return path -> new Location(file, 0, path);
    }
}
