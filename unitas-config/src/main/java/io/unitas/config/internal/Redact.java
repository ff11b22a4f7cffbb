package io.unitas.config.internal;

import java.util.regex.Pattern;

/**
 * What a message may show of a URL that can carry a secret: the user part ({@code user:password@}) and the values of
 * secret-looking query parameters become {@code ***}, so that a refused target, a connection error or a start line
 * never prints a password (a log or a terminal is read by more people than the secret's holder).
 */
public final class Redact {

    private static final Pattern USER_INFO = Pattern.compile("(?<=://)[^/@?#\\s]*@");
    private static final Pattern SECRET_PARAMETER = Pattern.compile(
            "(?i)([?&](?:password|passwd|pwd|pass|secret|token|access_token)=)[^&#\\s']*");

    private Redact() {}

    /** {@code text} with every URL's user part and secret parameters shown as {@code ***}. */
    public static String url(String text) {
        String s = USER_INFO.matcher(text).replaceAll("***@");
        return SECRET_PARAMETER.matcher(s).replaceAll("$1***");
    }
}
