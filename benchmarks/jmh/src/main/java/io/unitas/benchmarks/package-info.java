/**
 * JMH benchmarks of unitas's hot paths. Build and run:
 * {@code mvn -q -pl benchmarks/jmh -am package -DskipTests && java -jar benchmarks/jmh/target/benchmarks.jar}.
 */
package io.unitas.benchmarks;
