package io.unitas.health;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import io.unitas.core.health.ProbeResult;
import io.unitas.testkit.MariaDbServer;
import io.unitas.testkit.PostgresCluster;
import io.unitas.testkit.RedisPair;

/**
 * Every parameter of a target reaches the server or is refused naming it: the user, password, database and TLS
 * settings written in a target are seen by the real servers (a wrong password fails, TLS against a server without
 * it fails), in the JDBC and the URI forms alike.
 */
class ProbeTargetsTest {

    private static final Duration TIMEOUT = Duration.ofSeconds(10);

    private static ProbeResult probe(ProbeConfig.Kind kind, String target) {
        try (Probe probe = Probe.of(ProbeConfig.of(kind, target))) {
            return probe.probe(TIMEOUT);
        }
    }

    private static String refusal(ProbeConfig.Kind kind, String target) {
        try (Probe probe = Probe.of(ProbeConfig.of(kind, target))) {
            throw new AssertionError("accepted: " + target);
        } catch (IllegalArgumentException e) {
            return e.getMessage();
        }
    }

    // ---- PostgreSQL

    private final int pg = PostgresCluster.shared().primary().port();
    private static final String PW_USER = PostgresCluster.PASSWORD_USER;
    private static final String PW = PostgresCluster.PASSWORD;

    @Test
    void postgresJdbcForm_theUserParameterIsTheUserConnectedAs() {
        ProbeResult result = probe(ProbeConfig.Kind.POSTGRES,
                                   "jdbc:postgresql://127.0.0.1:" + pg + "/postgres?user=postgres");

        assertThat(result.up()).as(result.reason()).isTrue();
    }

    @Test
    void postgresJdbcForm_userAndPasswordParametersReachTheServer() {
        String url = "jdbc:postgresql://127.0.0.1:" + pg + "/postgres?user=" + PW_USER + "&password=";

        assertThat(probe(ProbeConfig.Kind.POSTGRES, url + PW).up()).isTrue();
        assertThat(probe(ProbeConfig.Kind.POSTGRES, url + "wrong").reason())
                .isEqualTo("password authentication failed for user \"" + PW_USER + "\"");
    }

    @Test
    void postgresUriForm_parametersReachTheServer() {
        String base = "postgresql://127.0.0.1:" + pg + "?dbname=postgres&user=" + PW_USER + "&password=" + PW;

        ProbeResult plain = probe(ProbeConfig.Kind.POSTGRES,
                                  base + "&sslmode=disable&connect_timeout=5&application_name=probe-test");
        ProbeResult tls = probe(ProbeConfig.Kind.POSTGRES, base + "&sslmode=require");

        assertThat(plain.up()).as(plain.reason()).isTrue();
        assertThat(tls.up()).isFalse();
        assertThat(tls.reason()).containsIgnoringCase("SSL");
    }

    @Test
    void postgresUriForm_aDatabaseParameterReachesTheServer() {
        assertThat(probe(ProbeConfig.Kind.POSTGRES, "postgres://postgres@127.0.0.1:" + pg + "?dbname=nosuchdb")
                           .reason()).isEqualTo("database \"nosuchdb\" does not exist");
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
            "postgresql://h/db?sslmod=require|target: parameter 'sslmod' unknown to PostgreSQL (expected: a libpq "
            + "parameter such as user, password, dbname, sslmode, sslrootcert, sslcert, sslkey, connect_timeout, "
            + "application_name, options, or a pgjdbc connection property)",
            "postgresql://h/db?passfile=/x|target: parameter 'passfile=/x' not supported (give the password in the "
            + "URL or in $PGPASSWORD)",
            "postgresql://h/db?host=/run/postgresql|target: parameter 'host=/run/postgresql' not supported "
            + "(Unix-domain sockets are not probed (expected: a TCP host))",
            "postgresql://h/db?target_session_attrs=read-write|target: parameter 'target_session_attrs=read-write' "
            + "not supported (the check's role says which server it must be (expected: role primary or standby))",
            "postgresql://h/db?client_encoding=LATIN1|target: parameter 'client_encoding=LATIN1' not supported "
            + "(the JDBC driver speaks UTF8 only (expected: UTF8))",
            "postgresql://a@h/db?user=b|target: user given twice, differently (expected: once)",
            "postgresql://h/db?sslmode=require&sslmode=disable|target: parameter 'sslmode' given twice (expected: "
            + "once)",
            "postgresql://h1:5432,h2:5432/db|target: 'postgresql://h1:5432,h2:5432/db': several hosts (expected: "
            + "one; a probe checks one server, give each its own check)",
            "postgresql://app:hunter2@h1,h2/db|target: 'postgresql://***@h1,h2/db': several hosts (expected: "
            + "one; a probe checks one server, give each its own check)",
            "jdbc:mysql://h/db|target: 'jdbc:mysql://h/db' (expected: postgresql://[user[:password]@]host[:port]"
            + "[/database][?param=value])",
    })
    void postgresRefusesWhatItCannotPassOn_namingIt(String target, String message) {
        assertThat(refusal(ProbeConfig.Kind.POSTGRES, target)).isEqualTo(message);
    }

    @Test
    void postgresLibpqNamesBecomeTheDriversProperties() {
        Targets.Jdbc t = Targets.postgres("postgresql://u:p%40ss@db.internal:6543/shop?sslmode=verify-full"
                + "&sslrootcert=/etc/ca.pem&connect_timeout=3&application_name=ops&keepalives=0&currentSchema=s1");

        assertThat(t.url()).isEqualTo("jdbc:postgresql://db.internal:6543/shop");
        assertThat(t.address()).isEqualTo("db.internal:6543");
        assertThat(t.properties()).containsEntry("user", "u").containsEntry("password", "p@ss")
                .containsEntry("sslmode", "verify-full").containsEntry("sslrootcert", "/etc/ca.pem")
                .containsEntry("connectTimeout", "3").containsEntry("ApplicationName", "ops")
                .containsEntry("tcpKeepAlive", "false").containsEntry("currentSchema", "s1");
    }

    // ---- MySQL / MariaDB

    private final MariaDbServer maria = MariaDbServer.shared();

    @ParameterizedTest(name = "{0}")
    @CsvSource({"jdbc:mariadb", "jdbc:mysql", "mariadb", "mysql"})
    void mysqlEveryForm_userAndPasswordParametersReachTheServer(String scheme) {
        String url = scheme + "://127.0.0.1:" + maria.port() + "/unitas?user=" + MariaDbServer.USER + "&password=";

        ProbeResult right = probe(ProbeConfig.Kind.MYSQL, url + MariaDbServer.PASSWORD);
        ProbeResult wrong = probe(ProbeConfig.Kind.MYSQL, url + "wrong");

        assertThat(right.up()).as(right.reason()).isTrue();
        assertThat(wrong.up()).isFalse();
        assertThat(wrong.reason()).contains("Access denied for user '" + MariaDbServer.USER + "'");
    }

    @Test
    void mysqlTlsParameterReachesTheDriver() {
        ProbeResult tls = probe(ProbeConfig.Kind.MYSQL, maria.uri() + "?sslMode=verify-full");
        ProbeResult mysqlSpelling = probe(ProbeConfig.Kind.MYSQL, maria.uri() + "?ssl-mode=REQUIRED");

        assertThat(tls.up()).isFalse();
        assertThat(tls.reason()).containsIgnoringCase("ssl");
        assertThat(mysqlSpelling.up()).isFalse();
        assertThat(mysqlSpelling.reason()).containsIgnoringCase("ssl");
    }

    @Test
    void mysqlRefusesAnOptionTheDriverDoesNotKnow_namingIt() {
        assertThat(refusal(ProbeConfig.Kind.MYSQL, "mysql://u@h/db?sslMod=trust"))
                .isEqualTo("target: parameter 'sslMod' unknown to MariaDB Connector/J (expected: its options, such "
                           + "as sslMode, serverSslCert, connectTimeout, allowPublicKeyRetrieval)");
    }

    // ---- Redis

    private final RedisPair redis = RedisPair.shared();

    @Test
    void redisUserPasswordAndDatabaseReachTheServer() {
        // An ACL user of its own: the shared server's default user keeps working for the other tests.
        redis.primary().execute(c -> c.aclSetuser("unitas_probe", io.lettuce.core.AclSetuserArgs.Builder.on()
                .addPassword("s3cret").allKeys().allChannels().allCommands()));
        String at = "@127.0.0.1:" + redis.primary().port();

        ProbeResult right = probe(ProbeConfig.Kind.REDIS, "redis://unitas_probe:s3cret" + at + "/2");
        ProbeResult wrong = probe(ProbeConfig.Kind.REDIS, "redis://unitas_probe:wrong" + at + "/2");
        ProbeResult noSuchDatabase = probe(ProbeConfig.Kind.REDIS, "redis://unitas_probe:s3cret" + at + "?db=99");

        assertThat(right.up()).as(right.reason()).isTrue();
        assertThat(wrong.reason()).contains("WRONGPASS");
        assertThat(noSuchDatabase.reason()).contains("DB index is out of range");
    }

    @Test
    void redisTargetsBecomeTheClientsSettings() {
        io.lettuce.core.RedisURI tls = Targets.redis("rediss://ops:p%40ss@cache.internal:6380/3?verify_peer=ca"
                                                     + "&client_name=probe");
        io.lettuce.core.RedisURI passwordOnly = Targets.redis("redis://:s3cret@cache.internal");

        assertThat(tls.isSsl()).isTrue();
        assertThat(tls.getVerifyMode()).isEqualTo(io.lettuce.core.SslVerifyMode.CA);
        assertThat(tls.getDatabase()).isEqualTo(3);
        assertThat(tls.getClientName()).isEqualTo("probe");
        io.lettuce.core.RedisCredentials user = tls.getCredentialsProvider().resolveCredentials().block();
        io.lettuce.core.RedisCredentials password = passwordOnly.getCredentialsProvider().resolveCredentials().block();
        assertThat(user.getUsername()).isEqualTo("ops");
        assertThat(user.getPassword()).containsExactly("p@ss".toCharArray());
        assertThat(password.hasUsername()).isFalse();
        assertThat(password.getPassword()).containsExactly("s3cret".toCharArray());
        assertThat(passwordOnly.getPort()).isEqualTo(6379);
    }

    @Test
    void redissSpeaksTls() {
        ProbeResult result = probe(ProbeConfig.Kind.REDIS, "rediss://127.0.0.1:" + redis.primary().port()
                                                           + "?verify_peer=none");

        assertThat(result.up()).isFalse();
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
            "redis://h?password=x|target: parameter 'password' unknown to the Redis probe (expected one of: db, "
            + "client_name, verify_peer)",
            "redis://h/1?db=2|target: database given twice, as the path and as parameter 'db' (expected: once)",
            "redis://h/x|target: parameter 'database=x' not supported (expected: a database number, 0 or more)",
            "redis://h?verify_peer=full|target: parameter 'verify_peer=full' not supported (only for rediss:// "
            + "(TLS))",
            "redis://h?timeout=5s|target: parameter 'timeout=5s' not supported (the check's timeout applies)",
            "redis://secret@h|target: 'redis://***@h': a user without a password (expected: user:password@ or "
            + ":password@)",
            "redis-sentinel://h|target: 'redis-sentinel://h' (expected: redis://[[user]:password@]host[:port]"
            + "[/database][?param=value])",
    })
    void redisRefusesWhatItCannotPassOn_namingIt(String target, String message) {
        assertThat(refusal(ProbeConfig.Kind.REDIS, target)).isEqualTo(message);
    }

    @Test
    void theSameParserReadsHealthYamlTargets_aRefusalNamesTheLine() {
        assertThatThrownBy(() -> HealthConfig.parse("health.yaml", """
                region: cn
                checks:
                  - {name: db, kind: postgres, target: 'postgresql://h/db?sslmod=require'}
                """)).hasMessageContaining("health.yaml:3: checks[0].target: parameter 'sslmod' unknown to "
                                           + "PostgreSQL");
    }
}
