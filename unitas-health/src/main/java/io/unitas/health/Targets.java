package io.unitas.health;

import java.sql.SQLException;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;

import org.postgresql.PGProperty;

import io.lettuce.core.RedisURI;
import io.lettuce.core.SslVerifyMode;
import io.unitas.config.internal.Redact;

/**
 * Probe targets written as URLs, read into what each driver takes: one parser per scheme family, used by every
 * probe whether its target comes from {@code health.yaml} or from {@code unitas probe}. Every parameter of a target
 * reaches the driver, translated where its name differs, or is refused with a message naming it; none is dropped.
 */
final class Targets {

    static final String POSTGRES_FORM = "postgresql://[user[:password]@]host[:port][/database][?param=value]";
    static final String MYSQL_FORM = "mysql://[user[:password]@]host[:port][/database][?param=value]";
    static final String REDIS_FORM = "redis://[[user]:password@]host[:port][/database][?param=value]";

    /** libpq's parameter names that pgjdbc spells otherwise. */
    private static final Map<String, String> LIBPQ_TO_PGJDBC = Map.of(
            "connect_timeout", "connectTimeout",
            "application_name", "ApplicationName",
            "channel_binding", "channelBinding",
            "gssencmode", "gssEncMode",
            "krbsrvname", "kerberosServerName");

    /** libpq's parameters that the probe cannot honour over pgjdbc, and why. */
    private static final Map<String, String> LIBPQ_UNSUPPORTED = Map.ofEntries(
            Map.entry("hostaddr", "give the address as the host"),
            Map.entry("passfile", "give the password in the URL or in $PGPASSWORD"),
            Map.entry("requirepeer", "Unix-domain sockets are not probed"),
            Map.entry("sslcrl", "not supported by the JDBC driver"),
            Map.entry("sslcrldir", "not supported by the JDBC driver"),
            Map.entry("sslcompression", "not supported by the JDBC driver"),
            Map.entry("sslsni", "not supported by the JDBC driver"),
            Map.entry("ssl_min_protocol_version", "not supported by the JDBC driver"),
            Map.entry("ssl_max_protocol_version", "not supported by the JDBC driver"),
            Map.entry("keepalives_idle", "not supported by the JDBC driver"),
            Map.entry("keepalives_interval", "not supported by the JDBC driver"),
            Map.entry("keepalives_count", "not supported by the JDBC driver"),
            Map.entry("tcp_user_timeout", "not supported by the JDBC driver"),
            Map.entry("load_balance_hosts", "a probe checks one server"),
            Map.entry("replication", "a probe opens a normal session"));

    /** The names a libpq user writes most, for messages. */
    private static final String LIBPQ_USUAL = "user, password, dbname, sslmode, sslrootcert, sslcert, sslkey, "
                                              + "connect_timeout, application_name, options";

    private Targets() {}

    /** A SQL target: the JDBC URL and connection properties to open it with, and {@code host:port} for reasons. */
    record Jdbc(String url, Properties properties, String address) {

        /** A copy of the properties with each of {@code defaults} added unless the target set it. */
        Properties with(Map<String, String> defaults) {
            Properties p = new Properties();
            p.putAll(properties);
            defaults.forEach(p::putIfAbsent);
            return p;
        }
    }

    /**
     * Reads a PostgreSQL target in the libpq URI form ({@code postgresql://} or {@code postgres://}) or the JDBC
     * form ({@code jdbc:postgresql://}). In either, a parameter is a libpq name ({@code sslmode},
     * {@code connect_timeout}, {@code application_name}, ...) or a pgjdbc property ({@code sslmode},
     * {@code ApplicationName}, {@code currentSchema}, ...). The user defaults to {@code $PGUSER} or the login name,
     * the password to {@code $PGPASSWORD}, the database to the user, as libpq does.
     */
    static Jdbc postgres(String target) {
        String url = target.startsWith("jdbc:postgresql:") ? target.substring("jdbc:".length()) : target;
        Endpoint e = Endpoint.parseWithParameters(target, url, List.of("postgresql", "postgres"), 5432,
                                                  POSTGRES_FORM);
        Properties props = new Properties();
        String host = e.host();
        int port = e.port();
        String user = e.user();
        String password = e.password();
        String database = e.path().isEmpty() ? null : e.path();
        for (Map.Entry<String, String> p : e.query().entrySet()) {
            String name = p.getKey();
            String value = p.getValue();
            switch (name) {
                case "user" -> user = same("user", user, value);
                case "password" -> password = same("password", password, value);
                case "dbname", "PGDBNAME" -> database = same("database", database, value);
                case "host", "PGHOST" -> {
                    if (value.startsWith("/") || value.startsWith("@")) {
                        throw refused(name, value, "Unix-domain sockets are not probed (expected: a TCP host)");
                    }
                    host = value;
                }
                case "port", "PGPORT" -> port = port(name, value);
                case "client_encoding" -> {
                    if (!value.equalsIgnoreCase("UTF8") && !value.equalsIgnoreCase("UTF-8")) {
                        throw refused(name, value, "the JDBC driver speaks UTF8 only (expected: UTF8)");
                    }
                }
                case "keepalives" -> props.setProperty("tcpKeepAlive", String.valueOf(!"0".equals(value)));
                case "target_session_attrs" -> throw refused(name, value,
                        "the check's role says which server it must be (expected: role primary or standby)");
                case "fallback_application_name" -> props.putIfAbsent("ApplicationName", value);
                default -> {
                    if (LIBPQ_UNSUPPORTED.containsKey(name)) {
                        throw refused(name, value, LIBPQ_UNSUPPORTED.get(name));
                    }
                    String property = LIBPQ_TO_PGJDBC.getOrDefault(name, name);
                    if (PGProperty.forName(property) == null) {
                        throw new IllegalArgumentException("target: parameter '" + name + "' unknown to PostgreSQL "
                                + "(expected: a libpq parameter such as " + LIBPQ_USUAL
                                + ", or a pgjdbc connection property)");
                    }
                    props.setProperty(property, value);
                }
            }
        }
        if (user == null) {
            user = System.getenv().getOrDefault("PGUSER", System.getProperty("user.name"));
        }
        if (password == null) {
            password = System.getenv("PGPASSWORD");
        }
        props.setProperty("user", user);
        if (password != null) {
            props.setProperty("password", password);
        }
        String address = bracketed(host) + ":" + port;
        return new Jdbc("jdbc:postgresql://" + address + "/" + (database != null ? database : user), props,
                        host + ":" + port);
    }

    /**
     * Reads a MySQL or MariaDB target: {@code mysql://}, {@code mariadb://}, {@code jdbc:mysql://} or
     * {@code jdbc:mariadb://}. Parameters are MariaDB Connector/J options ({@code sslMode}, {@code connectTimeout},
     * {@code serverSslCert}, ...; {@code ssl-mode} as the MySQL client spells it is accepted too); one the driver
     * does not know is refused. The user defaults to the login name.
     */
    static Jdbc mysql(String target) {
        String url = target.startsWith("jdbc:mysql:") || target.startsWith("jdbc:mariadb:")
                     ? target.substring("jdbc:".length()) : target;
        Endpoint e = Endpoint.parseWithParameters(target, url, List.of("mysql", "mariadb"), 3306, MYSQL_FORM);
        Properties props = new Properties();
        String user = e.user();
        String password = e.password();
        for (Map.Entry<String, String> p : e.query().entrySet()) {
            switch (p.getKey()) {
                case "user" -> user = same("user", user, p.getValue());
                case "password" -> password = same("password", password, p.getValue());
                case "ssl-mode" -> props.setProperty("sslMode", p.getValue());
                default -> props.setProperty(p.getKey(), p.getValue());
            }
        }
        props.setProperty("user", user != null ? user : System.getProperty("user.name"));
        if (password != null) {
            props.setProperty("password", password);
        }
        String address = bracketed(e.host()) + ":" + e.port();
        String jdbc = "jdbc:mariadb://" + address + "/" + e.path();
        try {
            Properties unknown = org.mariadb.jdbc.Configuration.parse(jdbc, props).nonMappedOptions();
            if (!unknown.isEmpty()) {
                Set<String> names = new TreeSet<>(unknown.stringPropertyNames());
                throw new IllegalArgumentException("target: parameter '" + String.join("', '", names)
                        + "' unknown to MariaDB Connector/J (expected: its options, such as sslMode, "
                        + "serverSslCert, connectTimeout, allowPublicKeyRetrieval)");
            }
        } catch (SQLException ex) {
            throw new IllegalArgumentException("target: " + Redact.url(ex.getMessage()));
        }
        return new Jdbc(jdbc, props, e.host() + ":" + e.port());
    }

    /**
     * Reads a Redis target: {@code redis://} or {@code rediss://} (TLS), with {@code user:password@} (an ACL user)
     * or {@code :password@}, the database number as the path or {@code ?db=}, and {@code verify_peer}
     * ({@code full}, {@code ca}, {@code none}) and {@code client_name}.
     */
    static RedisURI redis(String target) {
        Endpoint e = Endpoint.parseWithParameters(target, target, List.of("redis", "rediss"), 6379, REDIS_FORM);
        boolean tls = target.startsWith("rediss:");
        RedisURI.Builder b = RedisURI.builder().withHost(e.host()).withPort(e.port()).withSsl(tls);
        if (e.user() != null && e.password() == null) {
            throw new IllegalArgumentException("target: '" + Redact.url(target) + "': a user without a password"
                                               + " (expected: user:password@ or :password@)");
        }
        if (e.password() != null) {
            if (e.user() != null) {
                b.withAuthentication(e.user(), e.password());
            } else {
                b.withPassword(e.password().toCharArray());
            }
        }
        Integer database = e.path().isEmpty() ? null : database("database", e.path());
        for (Map.Entry<String, String> p : e.query().entrySet()) {
            String name = p.getKey();
            String value = p.getValue();
            switch (name) {
                case "db", "database" -> {
                    if (database != null) {
                        throw new IllegalArgumentException("target: database given twice, as the path and as "
                                                           + "parameter '" + name + "' (expected: once)");
                    }
                    database = database(name, value);
                }
                case "client_name", "clientName" -> b.withClientName(value);
                case "verify_peer", "verifyPeer" -> {
                    if (!tls) {
                        throw refused(name, value, "only for rediss:// (TLS)");
                    }
                    try {
                        b.withVerifyPeer(SslVerifyMode.valueOf(value.toUpperCase(Locale.ROOT)));
                    } catch (IllegalArgumentException ex) {
                        throw refused(name, value, "expected: full, ca or none");
                    }
                }
                case "timeout" -> throw refused(name, value, "the check's timeout applies");
                default -> throw new IllegalArgumentException("target: parameter '" + name + "' unknown to the "
                        + "Redis probe (expected one of: db, client_name, verify_peer)");
            }
        }
        if (database != null) {
            b.withDatabase(database);
        }
        return b.build();
    }

    /** An IPv6 address in brackets, as a URL needs it. */
    private static String bracketed(String host) {
        return host.contains(":") && !host.startsWith("[") ? "[" + host + "]" : host;
    }

    private static int database(String name, String value) {
        try {
            int n = Integer.parseInt(value);
            if (n >= 0) {
                return n;
            }
        } catch (NumberFormatException ex) {
            // refused below
        }
        throw refused(name, value, "expected: a database number, 0 or more");
    }

    private static int port(String name, String value) {
        try {
            int port = Integer.parseInt(value);
            if (port > 0 && port < 65_536) {
                return port;
            }
        } catch (NumberFormatException ex) {
            // refused below
        }
        throw refused(name, value, "expected: a port from 1 to 65535");
    }

    /** {@code value}, unless the URL already gave a different one: two values for one thing are refused. */
    private static String same(String what, String already, String value) {
        if (already != null && !already.equals(value)) {
            throw new IllegalArgumentException("target: " + what + " given twice, differently (expected: once)");
        }
        return value;
    }

    private static IllegalArgumentException refused(String name, String value, String why) {
        return new IllegalArgumentException("target: parameter '" + name + "=" + value + "' not supported ("
                                            + why + ")");
    }
}
