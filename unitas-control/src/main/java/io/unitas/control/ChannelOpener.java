package io.unitas.control;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.OpenOption;
import java.nio.file.Path;

/**
 * How the embedded store opens its files: the file system itself, or, in tests, a wrapper that fails writes the
 * way a full disk does (a short write, then {@code ENOSPC}).
 */
@FunctionalInterface
interface ChannelOpener {

    /** The file system. */
    ChannelOpener SYSTEM = FileChannel::open;

    FileChannel open(Path file, OpenOption... options) throws IOException;
}
