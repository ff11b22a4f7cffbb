package io.unitas.config.internal;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Set;

/**
 * Checks a file that holds a secret before it is used, as ssh checks its keys: a symbolic link is refused (a link
 * planted where a secret is written or read would move it elsewhere), and so is a file others may write (they could
 * put in a token or a key of their own) or, for a private key or a password, read. Each refusal is one line naming
 * the file, its mode and the command that fixes it.
 */
public final class SecretFiles {

    private SecretFiles() {}

    /**
     * Refuses {@code file} (a private key, a password, a token's secret) when it is a link, or when its group or
     * others may read or write it.
     *
     * @throws IllegalArgumentException naming the file and what was expected
     */
    public static void checkPrivate(Path file, String what) {
        check(file, what, PosixFilePermissions.fromString("---rwxrwx"), "600");
    }

    /**
     * Refuses {@code file} (a list of token hashes: readable by others, not a secret itself) when it is a link, or
     * when its group or others may write it.
     *
     * @throws IllegalArgumentException naming the file and what was expected
     */
    public static void checkNotWritableByOthers(Path file, String what) {
        check(file, what, PosixFilePermissions.fromString("----w--w-"), "644");
    }

    /**
     * Refuses a link where a secret file is about to be created: {@code file} must not exist in any form.
     *
     * @throws IllegalArgumentException naming the file
     */
    public static void checkNoLink(Path file, String what) {
        if (Files.isSymbolicLink(file)) {
            throw new IllegalArgumentException(file + ": " + what + " is a symbolic link (expected: a regular file,"
                                               + " or none; remove the link)");
        }
    }

    /**
     * Writes {@code text} to {@code file}, created with mode 0600 or, when it exists, set to it before the write (where
     * the file system has modes): what {@link #checkPrivate} then accepts. A link there is refused.
     *
     * @return {@code file}
     * @throws IllegalArgumentException when {@code file} is a symbolic link
     */
    public static Path writePrivate(Path file, String text) throws IOException {
        checkNoLink(file, "a secret file");
        Set<PosixFilePermission> owner = PosixFilePermissions.fromString("rw-------");
        try {
            if (Files.exists(file, LinkOption.NOFOLLOW_LINKS)) {
                Files.setPosixFilePermissions(file, owner);
            } else {
                Files.createFile(file, PosixFilePermissions.asFileAttribute(owner));
            }
        } catch (UnsupportedOperationException e) {
            // a file system without modes: the plain write below creates it
        }
        return Files.writeString(file, text);
    }

    private static void check(Path file, String what, Set<PosixFilePermission> forbidden, String mode) {
        checkNoLink(file, what);
        Set<PosixFilePermission> permissions;
        try {
            permissions = Files.getPosixFilePermissions(file, LinkOption.NOFOLLOW_LINKS);
        } catch (UnsupportedOperationException e) {
            return; // a file system without modes: nothing to check
        } catch (IOException e) {
            return; // unreadable or missing: the reader that opens it says so
        }
        if (permissions.stream().anyMatch(forbidden::contains)) {
            throw new IllegalArgumentException(file + ": " + what + " has mode "
                    + PosixFilePermissions.toString(permissions) + ", open to others (expected: " + mode
                    + " or stricter, as chmod " + mode + " " + file + " gives)");
        }
    }
}
