/**
 * Test fixtures that start real servers of their own, on free ports of 127.0.0.1, with data in temporary
 * directories: {@link io.unitas.testkit.PostgresCluster} (a primary with a streaming standby),
 * {@link io.unitas.testkit.MariaDbServer}, {@link io.unitas.testkit.RedisPair} (a primary with a replica) and
 * {@link io.unitas.testkit.EtcdServer}, and {@link io.unitas.testkit.KafkaCluster} (KRaft, one node or three, in child
 * JVMs from the Kafka server artifacts on the test classpath).
 * Each has a {@code shared()} instance started once per JVM and stopped when it exits, so test classes reuse
 * one set of servers; a test that changes a server's state puts it back before it ends. The binaries come from
 * Debian's packages ({@code postgresql}, {@code mariadb-server}, {@code redis-server}, {@code etcd-server}).
 * {@link io.unitas.testkit.Ports} hands out the ports, for these servers and for any a test starts itself.
 */
package io.unitas.testkit;
