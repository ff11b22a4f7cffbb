package io.unitas.data.outbox;

/** {@link WriteAndAppendContract} on H2, the embedded default: the write, then an append. */
class EmbeddedWriteAndAppendTest extends WriteAndAppendContract {

    EmbeddedWriteAndAppendTest() {
        super(Databases.h2());
    }

    @Override
    boolean postgres() {
        return false;
    }
}
