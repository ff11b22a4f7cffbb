package io.unitas.cli;

import java.io.OutputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.Locale;
import java.util.logging.ConsoleHandler;
import java.util.logging.Formatter;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import java.util.logging.StreamHandler;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * Where the logs of every piece go when run by the {@code unitas} command. The code logs through SLF4J only; the
 * command binds SLF4J to {@code java.util.logging} ({@code slf4j-jdk14}), and this class is the one place that
 * configures that backend: warnings and errors on stderr, as one line of text each or, with
 * {@code UNITAS_LOG_FORMAT=json}, as one JSON object per line ({@code time}, {@code level}, {@code logger},
 * {@code thread}, {@code message}, and {@code error} with the stack trace when there is one).
 */
final class Logging {

    /** The environment variable that chooses the format. */
    static final String FORMAT_VARIABLE = "UNITAS_LOG_FORMAT";

    /** How each log line is written. */
    enum Format {
        /** {@code 2026-12-01T11:04:57Z WARNING io.unitas.health.HealthPusher: message}. */
        TEXT,
        /** One JSON object per line. */
        JSON;

        /** The format named {@code name} ({@code text} or {@code json}); text when unset or empty. */
        static Format of(String name) {
            if (name == null || name.isBlank()) {
                return TEXT;
            }
            try {
                return valueOf(name.trim().toUpperCase(Locale.ROOT));
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException(FORMAT_VARIABLE + ": '" + name + "' (expected: text or json)");
            }
        }
    }

    private static final ObjectMapper JSON = new ObjectMapper();
    /** unitas's own loggers: held, because java.util.logging keeps loggers weakly and would forget the level. */
    private static final Logger UNITAS = Logger.getLogger("io.unitas");

    private Logging() {}

    /**
     * Sends unitas's logs at {@code INFO} and above and the libraries' at {@code WARNING} and above (their
     * informational logging, pools and event loops, is not for a person's terminal) to stderr in {@code format},
     * replacing the handlers the JDK installed.
     */
    static void toStderr(Format format) {
        Handler handler = new ConsoleHandler();
        handler.setFormatter(formatter(format));
        handler.setLevel(Level.ALL);
        install(handler, Level.WARNING);
        UNITAS.setLevel(Level.INFO);
    }

    /** Sends the logs at {@code level} and above to {@code out} in {@code format}; returns the handler to flush. */
    static Handler to(OutputStream out, Format format, Level level) {
        Handler handler = new StreamHandler(out, formatter(format));
        handler.setLevel(Level.ALL);
        install(handler, level);
        return handler;
    }

    private static void install(Handler handler, Level level) {
        Logger root = Logger.getLogger("");
        for (Handler old : root.getHandlers()) {
            root.removeHandler(old);
            old.close();
        }
        root.addHandler(handler);
        root.setLevel(level);
    }

    static Formatter formatter(Format format) {
        return format == Format.JSON ? new JsonFormatter() : new TextFormatter();
    }

    /** One line: time, level, logger, message; the stack trace follows when there is one. */
    static final class TextFormatter extends Formatter {
        @Override
        public String format(LogRecord r) {
            String line = r.getInstant() + " " + r.getLevel().getName() + " " + r.getLoggerName() + ": "
                          + formatMessage(r) + System.lineSeparator();
            return r.getThrown() == null ? line : line + stackTrace(r.getThrown());
        }
    }

    /** One JSON object per line, for log collectors. */
    static final class JsonFormatter extends Formatter {
        @Override
        public String format(LogRecord r) {
            ObjectNode o = JSON.createObjectNode();
            o.put("time", r.getInstant().toString());
            o.put("level", r.getLevel().getName());
            o.put("logger", r.getLoggerName());
            o.put("thread", Thread.currentThread().getName());
            o.put("message", formatMessage(r));
            if (r.getThrown() != null) {
                o.put("error", stackTrace(r.getThrown()));
            }
            try {
                return JSON.writeValueAsString(o) + "\n";
            } catch (JsonProcessingException e) {
                throw new IllegalStateException(e);
            }
        }
    }

    private static String stackTrace(Throwable t) {
        StringWriter w = new StringWriter();
        t.printStackTrace(new PrintWriter(w));
        return w.toString();
    }
}
