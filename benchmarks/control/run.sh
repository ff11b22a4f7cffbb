#!/usr/bin/env bash
# Measures the time from a rule change (PUT /api/v1/rules) to its arrival at a watching SSE client.
#   benchmarks/control/run.sh                                   # embedded store, 200 changes
#   benchmarks/control/run.sh --etcd http://127.0.0.1:2379      # etcd store
set -euo pipefail
if [[ "${1:-}" == "--help" || "${1:-}" == "-h" ]]; then  # the comment above, without its marks
  sed -n "2,$((${LINENO} - 3))p" "$0" | sed 's/^# \{0,1\}//'
  exit 0
fi
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cp="$(mktemp)"
trap 'rm -f "$cp"' EXIT
(cd "$root" && mvn -q -B -ntp -pl unitas-control,unitas-control-client -am compile dependency:build-classpath \
   -Dmdep.outputFile="$cp" >/dev/null)
exec java -cp "$root/unitas-control/target/classes:$root/unitas-control-client/target/classes:$(cat "$cp")" \
  "$root/benchmarks/control/WatchLatency.java" "$@"
