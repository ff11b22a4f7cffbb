package io.unitas.testkit;

import java.util.Properties;

/**
 * A test PostgreSQL server on 127.0.0.1: its addresses follow from its port, with the {@code postgres} superuser and
 * database that {@code initdb} creates, so every server the testkit starts states them once, here.
 */
interface PostgresAddress extends SqlServer {

    @Override
    default String jdbcUrl() {
        return "jdbc:postgresql://127.0.0.1:" + port() + "/postgres";
    }

    @Override
    default Properties admin() {
        Properties p = new Properties();
        p.setProperty("user", "postgres");
        return p;
    }

    @Override
    default String uri() {
        return "postgresql://postgres@127.0.0.1:" + port() + "/postgres";
    }
}
