#!/usr/bin/env bash
# Replication through Kafka beside the embedded transport, three regions, fsync on everywhere: sustained changes per
# second (goal >= 10,000/s) and lag p99 at 5,000/s (goal <= 250 ms). Starts three PostgreSQL servers (cn, eu, us) with
# fsync and synchronous_commit on, and one Kafka broker (KRaft, from the Kafka server artifacts in the local Maven
# repository) flushing every message to disk; then runs OutboxLagBenchmark at each rate, in process and through Kafka.
#   usage: benchmarks/data/kafka-lag.sh [--rates "5000 10000"] [--seconds N] [--warmup N] [--units N] [--writers N]
#                                      [--partitions N] (of each region's topic, default 8)
#   a quick check that it runs (not a measurement): benchmarks/data/kafka-lag.sh --rates 500 --seconds 3 --warmup 2
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
if [[ "${1:-}" == --help || "${1:-}" == -h ]]; then
  sed -n '2,8p' "$0" | sed 's/^# \{0,1\}//'
  exit 0
fi
rates="5000 10000"; seconds=30; warmup=10; units=300; writers=8; partitions=8
while [[ $# -gt 0 ]]; do
  case "$1" in
    --rates) rates="$2"; shift 2 ;;
    --seconds) seconds="$2"; shift 2 ;;
    --warmup) warmup="$2"; shift 2 ;;
    --units) units="$2"; shift 2 ;;
    --writers) writers="$2"; shift 2 ;;
    --partitions) partitions="$2"; shift 2 ;;
    *) echo "$0: $1: unknown option (see --help)" >&2; exit 2 ;;
  esac
done
source "$here/postgres.sh"
pg_setup
urls=()
for region in cn eu us; do
  pg_start "$region" durable
  urls+=("--$region" "jdbc:postgresql://127.0.0.1:$pg_port/bench?user=postgres&reWriteBatchedInserts=true")
done

cd "$root"
[[ -f benchmarks/jmh/target/benchmarks.jar ]] || mvn -B -ntp -q -pl benchmarks/jmh -am package -DskipTests
# the broker: the testkit's classpath holds the Kafka server artifacts (kafka_2.13) and their dependencies
mvn -B -ntp -q -o -pl unitas-testkit dependency:build-classpath -Dmdep.outputFile="$work/kafka.classpath" >/dev/null
kafka_cp="$(cat "$work/kafka.classpath")"
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
kport="$(free_port)"; cport="$(free_port)"
mkdir -p "$work/kafka"
cat > "$work/kafka/server.properties" <<PROPS
process.roles=broker,controller
node.id=1
controller.quorum.voters=1@127.0.0.1:$cport
listeners=PLAINTEXT://127.0.0.1:$kport,CONTROLLER://127.0.0.1:$cport
advertised.listeners=PLAINTEXT://127.0.0.1:$kport
controller.listener.names=CONTROLLER
listener.security.protocol.map=PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT
log.dirs=$work/kafka/data
offsets.topic.replication.factor=1
transaction.state.log.replication.factor=1
transaction.state.log.min.isr=1
share.coordinator.state.topic.replication.factor=1
share.coordinator.state.topic.min.isr=1
auto.create.topics.enable=false
num.network.threads=2
num.io.threads=2
log.flush.interval.messages=1
PROPS
printf 'rootLogger.level = WARN\nrootLogger.appenderRef.out.ref = out\nappender.out.type = Console\nappender.out.name = out\nappender.out.layout.type = PatternLayout\nappender.out.layout.pattern = [%%d] %%p %%m (%%c)%%n\n' > "$work/kafka/log4j2.properties"
kafka_java=(java -Xms256m -Xmx512m -XX:+UseSerialGC "-Dlog4j2.configurationFile=$work/kafka/log4j2.properties" -cp "$kafka_cp")
"${kafka_java[@]}" kafka.tools.StorageTool format --cluster-id "$(python3 -c 'import base64,uuid; print(base64.urlsafe_b64encode(uuid.uuid4().bytes).decode().rstrip("="))')" \
  --config "$work/kafka/server.properties" >/dev/null
"${kafka_java[@]}" kafka.Kafka "$work/kafka/server.properties" > "$work/kafka/kafka.log" 2>&1 &
kafka_pid=$!
trap 'kill -9 $kafka_pid 2>/dev/null || true; pg_cleanup' EXIT
for _ in $(seq 1 120); do
  (exec 3<>"/dev/tcp/127.0.0.1/$kport") 2>/dev/null && break
  kill -0 "$kafka_pid" 2>/dev/null || { echo "$0: kafka exited; see its log:" >&2; tail -20 "$work/kafka/kafka.log" >&2; exit 1; }
  sleep 0.5
done

echo "host: $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg) before the runs"
echo "PostgreSQL x3 (fsync and synchronous_commit on), Kafka 4.1.1 single broker at 127.0.0.1:$kport (log.flush.interval.messages=1)"
for rate in $rates; do
  for transport in embedded kafka; do
    extra=()
    [[ "$transport" == kafka ]] && extra=(--kafka "127.0.0.1:$kport" --partitions "$partitions")
    echo
    echo "== $rate changes/s asked, $transport"
    java ${JAVA_OPTS:-} -cp benchmarks/jmh/target/benchmarks.jar io.unitas.benchmarks.OutboxLagBenchmark "${urls[@]}" \
      --rate "$rate" --seconds "$seconds" --warmup "$warmup" --units "$units" --writers "$writers" "${extra[@]}" \
      2> "$work/$rate-$transport.err" || { echo "$0: the run failed:" >&2; tail -20 "$work/$rate-$transport.err" >&2; exit 1; }
  done
done
