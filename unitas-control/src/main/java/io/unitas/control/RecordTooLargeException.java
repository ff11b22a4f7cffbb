package io.unitas.control;

import java.nio.file.Path;

/** A record bigger than the store takes: refused before anything is written, the state stays as it was. */
final class RecordTooLargeException extends IllegalArgumentException {

    private static final long serialVersionUID = 1L;

    RecordTooLargeException(Path file, long size, long limit) {
        super(file.getFileName() + ": a record of " + size + " bytes (expected: 1.." + limit + ")");
    }
}
