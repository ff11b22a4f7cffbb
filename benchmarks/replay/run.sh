#!/usr/bin/env bash
# Side by side: `unitas replay` against an equivalent awk program (mawk and gawk; the faster one counts) on
# 10 million users over three regions with cn down. Prints each run (wall and user+sys seconds), the medians
# and the ratios faster awk / unitas. The machine should be otherwise idle for the wall-clock numbers to mean much.
#   usage: benchmarks/replay/run.sh [runs]      (default 3 runs each; USERS=n to change the input size)
set -euo pipefail
if [[ "${1:-}" == "--help" || "${1:-}" == "-h" ]]; then  # the comment above, without its marks
  sed -n "2,$((${LINENO} - 3))p" "$0" | sed 's/^# \{0,1\}//'
  exit 0
fi
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
runs="${1:-3}"
users_n="${USERS:-10000000}"
work="$here/target"
mkdir -p "$work"
users="$work/users-$users_n.csv"

cat >"$work/topology.yaml" <<'YAML'
regions: [cn, eu, us]
YAML
echo '{"cn": false, "eu": true, "us": true}' >"$work/health.json"

if [[ ! -s "$users" ]]; then
  echo "generating $users_n users into $users (once)" >&2
  mawk -v n="$users_n" 'BEGIN {
    print "user_id,region"
    split("cn eu us cn cn eu us eu cn us", r, " ")
    for (i = 0; i < n; i++) print "user-" i "-" (i * 7919 % 104729) "," (i % 1000 == 999 ? "ap" : r[i % 10 + 1])
  }' >"$users.tmp"
  mv "$users.tmp" "$users"
fi

# The same job in awk: the route decision per home computed once from the fallback order and the health,
# then per row a lookup, the output line, and the per-reason and per-region counts of the summary.
awk_prog='
BEGIN {
  FS = ","; OFS = ","
  n = split("cn eu us", order, " ")
  healthy["cn"] = 0; healthy["eu"] = 1; healthy["us"] = 1
  for (i = 1; i <= n; i++) {
    h = order[i]
    if (healthy[h]) { target[h] = h; reason[h] = "home"; continue }
    target[h] = ""; reason[h] = "no_healthy_region"
    for (j = 1; j <= n; j++) if (order[j] != h && healthy[order[j]]) { target[h] = order[j]; reason[h] = "failover"; break }
  }
}
NR == 1 { if ($0 != "user_id,region") { print "bad header" > "/dev/stderr"; exit 2 }; print "user_id,home,target,reason"; next }
{
  if (NF != 2) { print FILENAME ":" NR ": " NF " fields (expected: 2)" > "/dev/stderr"; exit 2 }
  h = $2
  if (h in reason) { print $1, h, target[h], reason[h]; by[reason[h]]++; load[target[h]]++ }
  else { print $1, h, "", "unknown_region"; by["unknown_region"]++ }
}
END { for (r in by) printf "%s %d\n", r, by[r] > "/dev/stderr" }'

echo "building unitas if needed" >&2
"$root/unitas" --version >/dev/null

time_it() { # label, file for the command's stdout, command...; prints "label wall user+sys" in seconds
  local label="$1" out="$2"; shift 2
  local TIMEFORMAT="%R %U %S"
  local t
  t=$( { time "$@" >"$out" 2>/dev/null; } 2>&1 )
  echo "$label $(awk -v t="$t" 'BEGIN { split(t, a, " "); printf "%.3f %.3f", a[1], a[2] + a[3] }')"
}
median() { sort -n | awk '{ a[NR] = $1 } END { print (NR % 2 ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2) }'; }

results="$work/times.txt"
: >"$results"
for ((i = 1; i <= runs; i++)); do
  time_it unitas /dev/null "$root/unitas" replay --topology "$work/topology.yaml" --health "$work/health.json" \
      --users "$users" --out "$work/out-unitas.csv" --summary "$work/summary.json" | tee -a "$results"
  for awk in mawk gawk; do
    time_it "$awk" "$work/out-$awk.csv" "$awk" "$awk_prog" "$users" 2>/dev/null | tee -a "$results"
  done
done

cmp -s "$work/out-unitas.csv" "$work/out-mawk.csv" || { echo "unitas and mawk outputs differ" >&2; exit 1; }
cmp -s "$work/out-unitas.csv" "$work/out-gawk.csv" || { echo "unitas and gawk outputs differ" >&2; exit 1; }

col() { grep "^$1 " "$results" | cut -d' ' -f"$2" | median; }
echo "users: $users_n   runs: $runs each   (outputs identical)"
awk -v u="$(col unitas 2)" -v m="$(col mawk 2)" -v g="$(col gawk 2)" \
    -v uc="$(col unitas 3)" -v mc="$(col mawk 3)" -v gc="$(col gawk 3)" 'BEGIN {
  printf "median wall seconds:     unitas %6.2f   mawk %6.2f   gawk %6.2f\n", u, m, g
  printf "median cpu seconds:      unitas %6.2f   mawk %6.2f   gawk %6.2f\n", uc, mc, gc
  printf "ratio, faster awk / unitas: wall %.2fx   cpu %.2fx\n", (m < g ? m : g) / u, (mc < gc ? mc : gc) / uc
}'
