package io.unitas.health;

import java.net.ConnectException;
import java.net.NoRouteToHostException;
import java.net.SocketTimeoutException;
import java.net.UnknownHostException;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpTimeoutException;
import java.nio.channels.UnresolvedAddressException;
import java.time.Duration;
import java.util.concurrent.TimeoutException;

/** Turns what went wrong while probing into one line a person can act on, without a stack trace. */
final class ProbeFailure {

    private ProbeFailure() {}

    /** Why probing {@code address} failed with {@code error}, given that it had {@code timeout}. */
    static String reason(Throwable error, String address, Duration timeout) {
        for (Throwable t = error; t != null; t = t.getCause()) {
            if (t instanceof ConnectException && !(t instanceof HttpConnectTimeoutException)) {
                return "cannot connect to " + address + ": connection refused";
            }
            if (t instanceof UnknownHostException || t instanceof UnresolvedAddressException) {
                return "cannot connect to " + address + ": unknown host";
            }
            if (t instanceof NoRouteToHostException) {
                return "cannot connect to " + address + ": no route to host";
            }
            if (t instanceof SocketTimeoutException || t instanceof HttpTimeoutException
                || t instanceof TimeoutException || t.getClass().getSimpleName().endsWith("TimeoutException")) {
                return "timed out after " + timeout.toMillis() + "ms talking to " + address;
            }
        }
        String line = firstLine(error);
        // Some drivers say it in words only (PostgreSQL: "Connection attempt timed out.").
        return line.toLowerCase(java.util.Locale.ROOT).contains("timed out")
               ? "timed out after " + timeout.toMillis() + "ms talking to " + address : line;
    }

    /** The first line of {@code error}'s message, without the server's severity prefix. */
    static String firstLine(Throwable error) {
        String message = error.getMessage() == null ? error.getClass().getSimpleName() : error.getMessage();
        int newline = message.indexOf('\n');
        String line = (newline < 0 ? message : message.substring(0, newline)).trim();
        return line.replaceFirst("^(FATAL|ERROR): +", "");
    }
}
