package io.unitas.control.client.internal;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Set;

import com.fasterxml.jackson.databind.JsonNode;

import io.unitas.config.internal.ConfigDocument;
import io.unitas.config.ConfigException;
import io.unitas.config.internal.DocumentReader;
import io.unitas.config.internal.SecretFiles;
import io.unitas.control.client.state.StateSource;

/**
 * Reads the {@code control_plane} or {@code static} section of a follower's configuration file, the same in every
 * file that has one: {@code control_plane: {url, token, token_file, state_file, ca, allow_insecure}} or
 * {@code static: {topology, rules, health, fences, reload_interval}}.
 */
public final class StateSourceReader extends DocumentReader {

    /** What a control-plane token file is called where its mode or a link is refused. */
    public static final String TOKEN_FILE = "the control-plane token";

    private final Path base;
    private final boolean unitRules;

    private StateSourceReader(ConfigDocument doc, Path base, boolean unitRules) {
        super(doc);
        this.base = base;
        this.unitRules = unitRules;
    }

    /**
     * The state source of {@code doc}, whose relative file names resolve against {@code base}; with
     * {@code unitRules} false, static files are topology and health only (no rules, no fences).
     *
     * @throws ConfigException naming every problem of the section, each with its line
     */
    public static StateSource read(ConfigDocument doc, Path base, boolean unitRules) {
        StateSourceReader reader = new StateSourceReader(doc, base, unitRules);
        StateSource source = reader.source(doc.root());
        reader.throwIfProblems();
        return source;
    }

    private StateSource source(JsonNode root) {
        JsonNode cp = root.get("control_plane");
        JsonNode st = root.get("static");
        if ((cp == null) == (st == null)) {
            problem("", "expected exactly one of control_plane and static");
            return null;
        }
        return cp != null ? controlPlane(cp) : staticFiles(st);
    }

    private StateSource controlPlane(JsonNode cp) {
        unknownKeys(cp, "control_plane", Set.of("url", "token", "token_file", "state_file", "ca",
                                                "allow_insecure"));
        String url = text(cp.get("url"), "control_plane.url", null);
        boolean http = url != null && (url.startsWith("http://") || url.startsWith("https://"));
        if (!http) {
            problem("control_plane.url", "'" + url + "' (expected: http://host:port)");
        }
        String token = text(cp.get("token"), "control_plane.token", "");
        String tokenFile = text(cp.get("token_file"), "control_plane.token_file", null);
        if (tokenFile != null) {
            try {
                SecretFiles.checkPrivate(file(tokenFile), TOKEN_FILE);
                Files.readString(file(tokenFile)); // read at once; followed while running
            } catch (IllegalArgumentException e) {
                problem("control_plane.token_file", e.getMessage());
            } catch (IOException e) {
                problem("control_plane.token_file", "cannot read " + tokenFile + ": " + e.getMessage());
            }
        }
        String state = text(cp.get("state_file"), "control_plane.state_file", null);
        if (state == null) {
            problem("control_plane.state_file", "missing (expected: where the last good state is kept)");
        }
        String ca = text(cp.get("ca"), "control_plane.ca", null);
        JsonNode insecure = cp.get("allow_insecure");
        if (insecure != null && !insecure.isBoolean()) {
            problem("control_plane.allow_insecure", insecure + " (expected: true or false)");
        }
        StateSource.ControlPlane source = new StateSource.ControlPlane(url, token,
                tokenFile == null ? null : file(tokenFile), state == null ? null : file(state),
                ca == null ? null : file(ca), insecure != null && insecure.asBoolean());
        if (http) {
            try {
                // refuses cleartext to another host and a CA file that is not one (the token file is checked above)
                new StateSource.ControlPlane(url, "", null, null, source.ca(), source.allowInsecure()).client();
            } catch (IllegalArgumentException e) {
                String message = e.getMessage();
                if (message.startsWith("ca: ")) {
                    problem("control_plane.ca", message.substring(4));
                } else {
                    problem("control_plane.url", message.replaceFirst("^control plane url: ", ""));
                }
            }
        }
        return source;
    }

    private StateSource staticFiles(JsonNode st) {
        unknownKeys(st, "static", unitRules ? Set.of("topology", "rules", "health", "fences", "reload_interval")
                                            : Set.of("topology", "health", "reload_interval"));
        Path topology = requiredFile(st, "topology");
        Path rules = unitRules ? requiredFile(st, "rules") : null;
        Path health = requiredFile(st, "health");
        String fences = unitRules ? text(st.get("fences"), "static.fences", null) : null;
        Duration reload = duration(st.get("reload_interval"), "static.reload_interval", Duration.ofSeconds(1));
        return new StateSource.StaticFiles(topology, rules, health, fences == null ? null : file(fences), reload);
    }

    private Path requiredFile(JsonNode st, String key) {
        String name = text(st.get(key), "static." + key, null);
        if (name == null) {
            problem("static." + key, "missing (expected: a file path)");
            return null;
        }
        return file(name);
    }

    private Path file(String name) {
        return base.resolve(name).normalize();
    }
}
