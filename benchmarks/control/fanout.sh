#!/usr/bin/env bash
# The watch at scale: 5,000 concurrent watchers of a control plane in its own process, a config change every 2 s
# beside ~6 health revisions a second; prints change-to-watcher latency (p50/p99/max) and the control plane's CPU.
#   benchmarks/control/fanout.sh                              # 5,000 watchers of config and health, 10 changes
#   benchmarks/control/fanout.sh --watchers 1000 --parts config
#   benchmarks/control/fanout.sh --watchers 18000 --relays 3   # through relays, each a process; prints their cost
set -euo pipefail
if [[ "${1:-}" == "--help" || "${1:-}" == "-h" ]]; then  # the comment above, without its marks
  sed -n "2,$((${LINENO} - 3))p" "$0" | sed 's/^# \{0,1\}//'
  exit 0
fi
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cp="$(mktemp)"
trap 'rm -f "$cp"' EXIT
(cd "$root" && mvn -q -B -ntp -pl unitas-control,unitas-control-client -am compile org.apache.maven.plugins:maven-dependency-plugin:3.8.1:build-classpath \
   -Dmdep.outputFile="$cp" >/dev/null)
src="$root/benchmarks/control/WatchFanout.java"
exec java -Dunitas.bench.source="$src" \
  -cp "$root/unitas-control/target/classes:$root/unitas-control-client/target/classes:$(cat "$cp")" "$src" "$@"
