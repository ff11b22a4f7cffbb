package io.unitas.data.remote;

import java.util.ArrayList;
import java.util.List;

/**
 * The libraries home reads run on, which unitas-data declares optional so that a service without home reads does not
 * carry them. Checked before the first of their classes is loaded: a missing one is then an error naming the
 * dependency to add, not a {@code NoClassDefFoundError} from inside.
 */
enum Libraries {
    /** The HTTP/2 server and client. */
    ARMERIA("Armeria", "com.linecorp.armeria.common.HttpRequest", "com.linecorp.armeria:armeria"),
    /** The home-read server's connection bound, shared with unitas's other Armeria servers. */
    SERVER_BOUNDS("unitas-server-bounds", "io.unitas.server.bounds.ConnectionBounds", "io.unitas:unitas-server-bounds");

    private final String library;
    private final String className;
    private final String dependency;

    Libraries(String library, String className, String dependency) {
        this.library = library;
        this.className = className;
        this.dependency = dependency;
    }

    /**
     * Throws, naming each of {@code needed} that is not on the class path and its dependency, when one is missing.
     *
     * @throws IllegalStateException {@code "<who>: Armeria is not on the class path (expected:
     *                               com.linecorp.armeria:armeria as a dependency of the application)"}
     */
    static void require(String who, Libraries... needed) {
        List<String> libraries = new ArrayList<>();
        List<String> dependencies = new ArrayList<>();
        for (Libraries library : needed) {
            if (!library.present()) {
                libraries.add(library.library);
                dependencies.add(library.dependency);
            }
        }
        if (libraries.isEmpty()) {
            return;
        }
        boolean one = libraries.size() == 1;
        throw new IllegalStateException(who + ": " + String.join(" and ", libraries) + (one ? " is" : " are")
                                        + " not on the class path (expected: " + String.join(" and ", dependencies)
                                        + (one ? " as a dependency" : " as dependencies") + " of the application)");
    }

    private boolean present() {
        try {
            Class.forName(className, false, Libraries.class.getClassLoader());
            return true;
        } catch (ClassNotFoundException | LinkageError e) {
            return false;
        }
    }
}
