package io.unitas.control;

import java.nio.file.Path;

/**
 * A store file is damaged before its end: a record that fails its checksum or has an impossible length, with
 * valid data after it. Not a crash's torn tail (that is dropped on open); refusing to start is the only way not to
 * lose or invent acknowledged state silently.
 */
final class StoreCorruptedException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    StoreCorruptedException(Path file, long offset, String what) {
        super(file + ": offset " + offset + ": " + what
              + " (expected: whole records to the end; restore the file from a backup or move it away)");
    }

    /** A line of a first-version file (JSON lines) that cannot be read, with lines after it. */
    StoreCorruptedException(Path file, long line, String what, String expected) {
        super(file + ":" + line + ": " + what + " (expected: " + expected + ")");
    }
}
