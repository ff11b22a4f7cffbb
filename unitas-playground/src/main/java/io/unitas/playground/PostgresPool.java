package io.unitas.playground;

import java.io.PrintWriter;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import java.util.logging.Logger;
import javax.sql.ConnectionEvent;
import javax.sql.ConnectionEventListener;
import javax.sql.ConnectionPoolDataSource;
import javax.sql.PooledConnection;
import javax.sql.StatementEventListener;
import org.h2.jdbcx.JdbcConnectionPool;
import org.postgresql.ds.PGConnectionPoolDataSource;

/**
 * A pool of connections to one PostgreSQL server (H2's {@link JdbcConnectionPool} over
 * {@link PGConnectionPoolDataSource}) that outlives the server's crash and restart. H2's pool lends a pooled connection
 * again whatever happened to it, so after a restart each of its connections would fail once in use and once more when
 * lent. Here a connection error on any of them (the driver reports the fatal ones) marks every connection opened before
 * it stale, and a stale connection is opened anew when next lent: a restart costs the callers one failure, not two per
 * pooled connection.
 */
final class PostgresPool {

    private PostgresPool() {}

    /** A pool of at most {@code max} connections to {@code jdbcUrl} as user postgres, named {@code application}. */
    static JdbcConnectionPool create(String jdbcUrl, String application, int max) {
        PGConnectionPoolDataSource source = new PGConnectionPoolDataSource();
        source.setUrl(jdbcUrl);
        source.setUser("postgres");
        source.setApplicationName(application);
        source.setConnectTimeout(2);
        JdbcConnectionPool pool = JdbcConnectionPool.create(new Renewing(source));
        pool.setMaxConnections(max);
        return pool;
    }

    /** Opens {@link Renewable} connections, all sharing one generation: raised by a connection error on any. */
    private static final class Renewing implements ConnectionPoolDataSource {
        private final PGConnectionPoolDataSource source;
        private final AtomicLong generation = new AtomicLong();

        Renewing(PGConnectionPoolDataSource source) {
            this.source = source;
        }

        @Override
        public PooledConnection getPooledConnection() throws SQLException {
            return new Renewable(source, generation);
        }

        @Override
        public PooledConnection getPooledConnection(String user, String password) throws SQLException {
            return getPooledConnection();
        }

        @Override
        public PrintWriter getLogWriter() {
            return null;
        }

        @Override
        public void setLogWriter(PrintWriter out) {}

        @Override
        public void setLoginTimeout(int seconds) {
            source.setLoginTimeout(seconds);
        }

        @Override
        public int getLoginTimeout() {
            return source.getLoginTimeout();
        }

        @Override
        public Logger getParentLogger() throws SQLFeatureNotSupportedException {
            throw new SQLFeatureNotSupportedException();
        }
    }

    /** A pooled connection that opens its physical connection anew when lent after a connection error. */
    private static final class Renewable implements PooledConnection {
        private final PGConnectionPoolDataSource source;
        private final AtomicLong generation;
        private final List<ConnectionEventListener> listeners = new CopyOnWriteArrayList<>();
        /** Relays the physical connection's events as this one's: the pool knows only this object. */
        private final ConnectionEventListener relay = new ConnectionEventListener() {
            @Override
            public void connectionClosed(ConnectionEvent event) {
                ConnectionEvent mine = new ConnectionEvent(Renewable.this);
                listeners.forEach(l -> l.connectionClosed(mine));
            }

            @Override
            public void connectionErrorOccurred(ConnectionEvent event) {
                generation.incrementAndGet(); // the server may have restarted: every older connection is suspect
                ConnectionEvent mine = new ConnectionEvent(Renewable.this, event.getSQLException());
                listeners.forEach(l -> l.connectionErrorOccurred(mine));
            }
        };
        private PooledConnection physical;
        private long openedAt;

        Renewable(PGConnectionPoolDataSource source, AtomicLong generation) throws SQLException {
            this.source = source;
            this.generation = generation;
            open();
        }

        private void open() throws SQLException {
            long now = generation.get(); // read first: an error while opening makes this one stale too
            physical = source.getPooledConnection();
            physical.addConnectionEventListener(relay);
            openedAt = now;
        }

        @Override
        public synchronized Connection getConnection() throws SQLException {
            if (openedAt < generation.get()) {
                PooledConnection stale = physical;
                stale.removeConnectionEventListener(relay); // its close is not this connection's return to the pool
                try {
                    stale.close();
                } catch (SQLException e) {
                    // broken already: as good as closed
                }
                open();
            }
            return physical.getConnection();
        }

        @Override
        public synchronized void close() throws SQLException {
            physical.close();
        }

        @Override
        public void addConnectionEventListener(ConnectionEventListener listener) {
            listeners.add(listener);
        }

        @Override
        public void removeConnectionEventListener(ConnectionEventListener listener) {
            listeners.remove(listener);
        }

        @Override
        public void addStatementEventListener(StatementEventListener listener) {
            physical.addStatementEventListener(listener);
        }

        @Override
        public void removeStatementEventListener(StatementEventListener listener) {
            physical.removeStatementEventListener(listener);
        }
    }
}
