package io.unitas.config.internal;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.TreeSet;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;

import io.unitas.config.ConfigException;

/**
 * The field readers every configuration reader shares: each takes a value (absent when {@code null}), its path and a
 * fallback, records a problem in the one shape ({@code file:line: path: value (expected: ...)}) when the value is
 * wrong, and returns the fallback so that reading goes on and every problem of a file is reported at once.
 * A reader of one format extends it and calls {@link #throwIfProblems()} when done.
 */
public abstract class DocumentReader {

    /** The document being read. */
    protected final ConfigDocument doc;
    private final List<String> problems = new ArrayList<>();

    /** A reader of {@code doc}. */
    protected DocumentReader(ConfigDocument doc) {
        this.doc = doc;
    }

    /** Records a problem at {@code path}. */
    protected final void problem(String path, String message) {
        problems.add(doc.describe(path, message));
    }

    /** Records the problems of another reader of the same document (already described with their lines). */
    protected final void problems(ConfigException other) {
        problems.addAll(other.problems());
    }

    /** Whether any problem was recorded. */
    protected final boolean hasProblems() {
        return !problems.isEmpty();
    }

    /** Throws a {@link ConfigException} listing every problem recorded, if any. */
    protected final void throwIfProblems() {
        if (!problems.isEmpty()) {
            throw new ConfigException(problems);
        }
    }

    /**
     * The mapping {@code node}, with a problem for each key not in {@code known}; an empty mapping when it is absent
     * or not a mapping (the latter a problem).
     */
    protected final JsonNode object(JsonNode node, String path, Collection<String> known) {
        if (node == null || node.isNull()) {
            return JsonNodeFactory.instance.objectNode();
        }
        if (!node.isObject()) {
            problem(path, "not a mapping (expected: " + listed(known) + ")");
            return JsonNodeFactory.instance.objectNode();
        }
        unknownKeys(node, path, known);
        return node;
    }

    /**
     * A problem for every key of {@code node} not in {@code known}: a misspelt key would otherwise do nothing. The
     * keys are listed in a list's order (the documented one), a set's sorted.
     */
    protected final void unknownKeys(JsonNode node, String path, Collection<String> known) {
        node.fieldNames().forEachRemaining(k -> {
            if (!known.contains(k)) {
                problem(path.isEmpty() ? k : path + "." + k, "unknown key (expected one of: " + listed(known) + ")");
            }
        });
    }

    private static String listed(Collection<String> keys) {
        return String.join(", ", keys instanceof List<?> ? keys : new TreeSet<>(keys));
    }

    /** A single value as text (numbers as written); true and false, lists and mappings are problems. */
    protected final String text(JsonNode node, String path, String fallback) {
        if (node == null || node.isNull()) {
            return fallback;
        }
        if (!node.isValueNode() || node.isBoolean()) {
            problem(path, node + " (expected: text)");
            return fallback;
        }
        return node.asText();
    }

    /** {@code true} or {@code false}. */
    protected final boolean bool(JsonNode node, String path, boolean fallback) {
        if (node == null || node.isNull()) {
            return fallback;
        }
        if (!node.isBoolean()) {
            problem(path, node + " (expected: true or false)");
            return fallback;
        }
        return node.asBoolean();
    }

    /** A whole number of at least {@code min}. */
    protected final int wholeNumber(JsonNode node, String path, int fallback, int min) {
        return wholeNumber(node, path, fallback, min, Integer.MAX_VALUE, "a whole number >= " + min);
    }

    /** A whole number from {@code min} to {@code max}, {@code expected} saying what is wanted. */
    protected final int wholeNumber(JsonNode node, String path, int fallback, int min, int max, String expected) {
        if (node == null || node.isNull()) {
            return fallback;
        }
        if (!ConfigDocument.isWholeInt(node) || node.asInt() < min || node.asInt() > max) {
            problem(path, node + " (expected: " + expected + ")");
            return fallback;
        }
        return node.asInt();
    }

    /** A duration above 0 in unitas's one grammar ({@link DurationFormat}): intervals, timeouts, TTLs. */
    protected final Duration duration(JsonNode node, String path, Duration fallback) {
        return duration(node, path, fallback, true);
    }

    /** A duration of 0 or more ({@link DurationFormat}): a tolerance, where 0 means "none allowed". */
    protected final Duration durationOrZero(JsonNode node, String path, Duration fallback) {
        return duration(node, path, fallback, false);
    }

    private Duration duration(JsonNode node, String path, Duration fallback, boolean positive) {
        String text = text(node, path, null);
        if (text == null) {
            return fallback;
        }
        try {
            return positive ? DurationFormat.parsePositive(text) : DurationFormat.parse(text);
        } catch (IllegalArgumentException e) {
            problem(path, e.getMessage());
            return fallback;
        }
    }
}
