package io.unitas.config.internal;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParseException;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.fasterxml.jackson.dataformat.yaml.YAMLParser;

import io.unitas.config.ConfigException;
import io.unitas.core.Problem;

/**
 * A YAML or JSON file (chosen by its extension) parsed into a tree that remembers the line of every value, so
 * that any problem found later, by path ({@code ranges[2]}, {@code fallback.us[0]}), is reported with its file and
 * line. The one place where unitas turns files into trees.
 */
public final class ConfigDocument {

    private static final JsonFactory JSON = new JsonFactory();
    private static final YAMLFactory YAML = new YAMLFactory();

    private final String name;
    private final JsonNode root;
    private final Map<String, Integer> lines;

    private ConfigDocument(String name, JsonNode root, Map<String, Integer> lines) {
        this.name = name;
        this.root = root;
        this.lines = lines;
    }

    /** Reads and parses {@code file}; {@code .json} is JSON, anything else YAML (a superset of JSON). */
    public static ConfigDocument read(Path file) {
        String text;
        try {
            text = Files.readString(file);
        } catch (NoSuchFileException e) {
            throw new ConfigException(file + ": no such file");
        } catch (IOException e) {
            throw new ConfigException(file + ": cannot read: " + e.getMessage());
        }
        return parse(file.toString(), text);
    }

    /** Parses {@code text}, naming it {@code name} in errors; {@code *.json} is JSON, anything else YAML. */
    public static ConfigDocument parse(String name, String text) {
        boolean json = name.toLowerCase(Locale.ROOT).endsWith(".json");
        Map<String, Integer> lines = new HashMap<>();
        try (JsonParser parser = (json ? JSON : YAML).createParser(text)) {
            JsonToken first = parser.nextToken();
            JsonNode root = first == null ? JsonNodeFactory.instance.nullNode() : readValue(parser, "", lines);
            if (parser.nextToken() != null) {
                throw new ConfigException(name + ":" + parser.currentLocation().getLineNr()
                                          + ": unexpected content after the document");
            }
            return new ConfigDocument(name, root, lines);
        } catch (JsonProcessingException e) {
            int line = e.getLocation() == null ? 0 : e.getLocation().getLineNr();
            throw new ConfigException(name + (line > 0 ? ":" + line : "") + ": not valid "
                                      + (json ? "JSON" : "YAML") + ": " + oneLine(e.getOriginalMessage()));
        } catch (IOException e) {
            throw new ConfigException(name + ": cannot parse: " + e.getMessage());
        }
    }

    /**
     * The parser's message on one line: YAML parsers add indented lines that quote the source and point at it,
     * which the file:line prefix already does.
     */
    private static String oneLine(String message) {
        return String.join(": ", message.lines().filter(l -> !l.isBlank() && !Character.isWhitespace(l.charAt(0)))
                                        .toList());
    }

    private static JsonNode readValue(JsonParser p, String path, Map<String, Integer> lines) throws IOException {
        lines.putIfAbsent(path, p.currentTokenLocation().getLineNr());
        if (p instanceof YAMLParser yaml && yaml.isCurrentAlias()) {
            // Jackson hands an alias over as the anchor's name in a string, so `center: *r` would read as "r".
            throw new JsonParseException(p, "alias *" + p.getText() + " (expected: the value written out;"
                                            + " unitas files do not use YAML anchors and aliases)");
        }
        JsonNodeFactory f = JsonNodeFactory.instance;
        switch (p.currentToken()) {
            case START_OBJECT -> {
                ObjectNode object = f.objectNode();
                while (p.nextToken() == JsonToken.FIELD_NAME) {
                    String key = p.currentName();
                    String child = path.isEmpty() ? key : path + "." + key;
                    if (object.has(key)) {
                        // YAML and JSON parsers keep the last of two equal keys; a config file means neither silently.
                        throw new JsonParseException(p, "duplicate key '" + key + "' (first on line "
                                                        + lines.get(child) + ")");
                    }
                    lines.put(child, p.currentTokenLocation().getLineNr());
                    p.nextToken();
                    object.set(key, readValue(p, child, lines));
                }
                return object;
            }
            case START_ARRAY -> {
                ArrayNode array = f.arrayNode();
                int i = 0;
                while (p.nextToken() != JsonToken.END_ARRAY) {
                    array.add(readValue(p, path + "[" + i++ + "]", lines));
                }
                return array;
            }
            case VALUE_STRING -> {
                return f.textNode(p.getText());
            }
            case VALUE_NUMBER_INT, VALUE_NUMBER_FLOAT -> {
                try {
                    return f.numberNode(p.getDecimalValue());
                } catch (NumberFormatException e) {
                    // Jackson refuses some numbers only when asked for their value (an exponent too long to hold).
                    throw new JsonParseException(p, (path.isEmpty() ? "" : path + ": ")
                                                    + "a number that cannot be read: " + p.getText());
                }
            }
            case VALUE_TRUE -> {
                return f.booleanNode(true);
            }
            case VALUE_FALSE -> {
                return f.booleanNode(false);
            }
            case VALUE_NULL -> {
                return f.nullNode();
            }
            default -> throw new ConfigException("unexpected token " + p.currentToken());
        }
    }

    /** The file name as given, used as the prefix of every error. */
    public String name() {
        return name;
    }

    /** The document's root value. */
    public JsonNode root() {
        return root;
    }

    /** The line of the value at {@code path}, or of its nearest ancestor that has one; 0 if unknown. */
    public int lineOf(String path) {
        String p = path;
        while (true) {
            Integer line = lines.get(p);
            if (line != null) {
                return line;
            }
            if (p.isEmpty()) {
                return 0;
            }
            int cut = Math.max(p.lastIndexOf('.'), p.lastIndexOf('['));
            p = cut < 0 ? "" : p.substring(0, cut);
        }
    }

    /** {@code file:line: path: message}, the one shape of every configuration error. */
    public String describe(String path, String message) {
        int line = lineOf(path);
        return name + (line > 0 ? ":" + line : "") + ": " + (path.isEmpty() ? "" : path + ": ") + message;
    }

    /** {@link #describe} of a core {@link Problem}. */
    public String describe(Problem problem) {
        return describe(problem.path(), problem.message());
    }

    /**
     * Whether {@code node} is a whole number that fits an int. Documents keep every number as a decimal, so Jackson's
     * {@code isIntegralNumber()} is false even for {@code 3}: readers ask this instead.
     */
    public static boolean isWholeInt(JsonNode node) {
        return node != null && node.isNumber() && node.decimalValue().stripTrailingZeros().scale() <= 0
               && node.canConvertToInt();
    }

    /**
     * A problem for every field of {@code object} not in {@code known}, at {@code prefix + name}: a misspelt
     * optional field would otherwise be silently ignored.
     */
    public static List<Problem> unknownFields(JsonNode object, String prefix, Set<String> known) {
        List<Problem> problems = new ArrayList<>();
        for (Iterator<String> it = object.fieldNames(); it.hasNext(); ) {
            String name = it.next();
            if (!known.contains(name)) {
                problems.add(new Problem(prefix + name, "unknown field (expected one of: "
                        + String.join(", ", known.stream().sorted().toList()) + ")"));
            }
        }
        return problems;
    }

    /** An exception for one problem at {@code path}. */
    public ConfigException error(String path, String message) {
        return new ConfigException(describe(path, message));
    }

    /** An exception listing every core problem, each with its line. */
    public ConfigException errors(List<Problem> problems) {
        List<String> out = new ArrayList<>();
        problems.forEach(p -> out.add(describe(p)));
        return new ConfigException(out);
    }
}
