package io.unitas.spring;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;

import io.unitas.config.internal.ConfigDocument;
import io.unitas.config.ConfigException;
import org.springframework.core.io.Resource;
import org.springframework.core.io.ResourceLoader;

/** The files {@code unitas.*} settings name, as {@code classpath:} or {@code file:} locations. */
final class UnitasFiles {

    private UnitasFiles() {}

    /** The document at {@code location}; a missing or unreadable one is a problem naming {@code property}. */
    static ConfigDocument read(ResourceLoader loader, String property, String location) {
        Resource resource = loader.getResource(location);
        if (!resource.exists()) {
            throw new ConfigException(property + ": '" + location + "' (expected: an existing file, as a classpath: or "
                                      + "file: location)");
        }
        try (InputStream in = resource.getInputStream()) {
            return ConfigDocument.parse(location, new String(in.readAllBytes(), StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new ConfigException(property + ": '" + location + "' cannot be read: " + e.getMessage());
        }
    }
}
