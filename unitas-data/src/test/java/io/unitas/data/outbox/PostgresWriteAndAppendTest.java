package io.unitas.data.outbox;

/** {@link WriteAndAppendContract} on a real PostgreSQL: the write and its change in one statement. */
class PostgresWriteAndAppendTest extends WriteAndAppendContract {

    PostgresWriteAndAppendTest() {
        super(Databases.postgres());
    }

    @Override
    boolean postgres() {
        return true;
    }
}
