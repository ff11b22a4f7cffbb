package io.unitas.control;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import io.unitas.config.ConfigException;
import io.unitas.core.Region;

/**
 * The tokens file, read: who may do what, by token hash. Lines are {@code name role sha256:<hex> [region:<id>]},
 * '#' comments; a token bound to a region reports that region's health only.
 */
final class TokenTable {

    /** An authenticated caller, and the region it is bound to (empty: none). */
    record Principal(String name, Role role, String region) {
        /** Whether it may report {@code regionId}'s health. */
        boolean mayReport(String regionId) {
            return region.isEmpty() || region.equals(regionId);
        }
    }

    private record Entry(String name, Role role, byte[] hash, String region) {}

    private final List<Entry> entries;

    private TokenTable(List<Entry> entries) {
        this.entries = List.copyOf(entries);
    }

    static TokenTable read(Path file) {
        List<String> lines;
        try {
            lines = Files.readAllLines(file);
        } catch (IOException e) {
            throw new UncheckedIOException(file + ": cannot read the tokens file", e);
        }
        List<Entry> entries = new ArrayList<>();
        List<String> problems = new ArrayList<>();
        for (int i = 0; i < lines.size(); i++) {
            String line = lines.get(i).strip();
            if (line.isEmpty() || line.startsWith("#")) {
                continue;
            }
            String[] parts = line.split("\\s+");
            String at = file + ":" + (i + 1) + ": ";
            if (parts.length < 3 || parts.length > 4 || !parts[2].matches("sha256:[0-9a-f]{64}")
                || (parts.length == 4 && !parts[3].startsWith("region:"))) {
                problems.add(at + "'" + (parts.length > 0 ? parts[0] : "") + " ...' (expected: name role "
                             + "sha256:<64 hex> [region:<id>])");
                continue;
            }
            try {
                String region = parts.length == 4 ? Region.of(parts[3].substring("region:".length())).id() : "";
                entries.add(new Entry(parts[0], Role.fromName(parts[1]), parts[2].getBytes(StandardCharsets.US_ASCII),
                                      region));
            } catch (IllegalArgumentException e) {
                problems.add(at + e.getMessage());
            }
        }
        if (!problems.isEmpty()) {
            throw new ConfigException(problems);
        }
        return new TokenTable(entries);
    }

    /** The holder of {@code secret}, compared by hash in constant time. */
    Optional<Principal> authenticate(String secret) {
        byte[] hash = ControlToken.hash(secret).getBytes(StandardCharsets.US_ASCII);
        Principal found = null;
        for (Entry e : entries) {
            if (MessageDigest.isEqual(e.hash(), hash)) {
                found = new Principal(e.name(), e.role(), e.region());
            }
        }
        return Optional.ofNullable(found);
    }
}
