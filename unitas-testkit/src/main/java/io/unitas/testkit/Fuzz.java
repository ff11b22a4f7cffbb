package io.unitas.testkit;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Random;

/**
 * Inputs for the readers' fuzz targets and the one contract they all keep: whatever the bytes, a reader of outside
 * input returns a value or throws the exception it documents (a message naming where and what was expected), never
 * another exception. Coverage-guided runs (Jazzer's {@code @FuzzTest}) feed the targets on demand; in
 * {@code verify} a property feeds them {@link #mutate mutations} of real documents, which reach the parsers' deep
 * paths at once.
 */
public final class Fuzz {

    /** Bytes that mean something to YAML, JSON, CSV and HTTP headers: where parsers have their edge cases. */
    private static final byte[][] TOKENS = tokens("{", "}", "[", "]", ":", ",", "\"", "'", "- ", "\n", "  ", "#",
            "&a ", "*a", "!!binary ", "<<: ", "~", "null", "true", "1e400", "-0", "9223372036854775808", "0x1F",
            "\u0000", "\uFEFF", "\\u0000", "é", "\r\n", "\t", "%", "|", ">", "---\n", "...", "?", "@", "`");

    private Fuzz() {}

    /** A fuzz target: a reader fed the bytes. */
    @FunctionalInterface
    public interface Target {
        /** Reads {@code input}; may throw only what the reader documents. */
        void read(byte[] input) throws Exception;
    }

    /**
     * Runs {@code target} on {@code input}; an exception of an {@code expected} type must carry a message, anything
     * else is rethrown as an {@link AssertionError} naming the input, so a property or a fuzzer reports it.
     */
    @SafeVarargs
    public static void expectOnly(byte[] input, Target target, Class<? extends Exception>... expected) {
        try {
            target.read(input);
        } catch (Exception e) {
            for (Class<? extends Exception> type : expected) {
                if (type.isInstance(e)) {
                    if (e.getMessage() == null || e.getMessage().isBlank()) {
                        throw new AssertionError("refusal without a message for " + printable(input), e);
                    }
                    return;
                }
            }
            throw new AssertionError(e.getClass().getName() + " for " + printable(input), e);
        } catch (StackOverflowError | OutOfMemoryError e) {
            throw new AssertionError(e.getClass().getSimpleName() + " for " + printable(input), e);
        }
    }

    /** {@code seed} changed in one to eight places, chosen by {@code random}: flips, cuts, copies and tokens. */
    public static byte[] mutate(byte[] seed, Random random) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        byte[] current = seed;
        int edits = 1 + random.nextInt(8);
        for (int i = 0; i < edits; i++) {
            out.reset();
            int at = current.length == 0 ? 0 : random.nextInt(current.length + 1);
            out.write(current, 0, at);
            switch (random.nextInt(5)) {
                case 0 -> { // flip a byte
                    if (at < current.length) {
                        out.write(current[at] ^ (1 << random.nextInt(8)));
                        at++;
                    }
                }
                case 1 -> at = Math.min(current.length, at + 1 + random.nextInt(16)); // cut
                case 2 -> { // copy a slice of the document here
                    int from = current.length == 0 ? 0 : random.nextInt(current.length);
                    out.write(current, from, Math.min(current.length - from, 1 + random.nextInt(64)));
                }
                case 3 -> out.writeBytes(TOKENS[random.nextInt(TOKENS.length)]);
                default -> out.writeBytes(String.valueOf(random.nextLong()).getBytes(StandardCharsets.US_ASCII));
            }
            out.write(current, at, current.length - at);
            current = out.toByteArray();
        }
        return current;
    }

    /** A seed document from the class path, e.g. {@code /fuzz/topology.yaml}. */
    public static byte[] seed(Class<?> owner, String resource) {
        try (InputStream in = owner.getResourceAsStream(resource)) {
            if (in == null) {
                throw new IllegalArgumentException(resource + ": no such resource (expected: a seed document)");
            }
            return in.readAllBytes();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static String printable(byte[] input) {
        String text = new String(input, StandardCharsets.UTF_8);
        return "input " + (text.length() > 300 ? text.substring(0, 300) + "… (" + input.length + " bytes)"
                                                : "'" + text + "'");
    }

    private static byte[][] tokens(String... texts) {
        byte[][] out = new byte[texts.length][];
        for (int i = 0; i < texts.length; i++) {
            out[i] = texts[i].getBytes(StandardCharsets.UTF_8);
        }
        return out;
    }
}
