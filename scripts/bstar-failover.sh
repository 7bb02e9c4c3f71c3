#!/usr/bin/env bash
# Binary Star failover time: kill -9 the active primary under a running bstarcli and time how
# long until the first reply served by the backup (kill to that reply line), over several runs.
# usage: scripts/bstar-failover.sh [RUNS] [HEARTBEAT] [TIMEOUT] [SETTLE]   (defaults: 5 1s 1s 2s, the guide's)
# Needs zmtp-cli/target/zmtp.jar (mvn -pl zmtp-cli -am package). Prints each run, then median and worst.
set -euo pipefail
RUNS=${1:-5}; HB=${2:-1s}; TIMEOUT=${3:-1s}; SETTLE=${4:-2s}
# the launcher beside zmtp.jar: it execs the JVM (so $! is the JVM, and kill -9 $! kills it) with
# the build's class-data-sharing archive, so each of a run's three JVMs starts sooner
ZMTP=$(cd "$(dirname "$0")/.." && pwd)/zmtp-cli/target/zmtp
[ -f "${ZMTP}.jar" ] || { echo "${ZMTP}.jar is missing: mvn -pl zmtp-cli -am package" >&2; exit 1; }
WORK=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$WORK"' EXIT
# four free ports, one python start: all bound at once, so they differ
free_ports() { python3 -c 'import socket
ss = [socket.socket() for _ in range(4)]
for s in ss: s.bind(("127.0.0.1", 0))
print(*[s.getsockname()[1] for s in ss])
for s in ss: s.close()'; }
wait_for() { # file text
  for _ in $(seq 1 600); do grep -q "$2" "$1" 2>/dev/null && return 0; sleep 0.05; done
  echo "timed out waiting for '$2' in $1" >&2; cat "$1" >&2; exit 1
}
results=()
for run in $(seq 1 "$RUNS"); do
  read -r FP FB SP SB < <(free_ports)
  "$ZMTP" bstarsrv --primary --frontend tcp://127.0.0.1:$FP --state-pub tcp://127.0.0.1:$SP \
      --state-peer tcp://127.0.0.1:$SB --heartbeat "$HB" > "$WORK/p.log" 2>&1 & P=$!
  "$ZMTP" bstarsrv --backup --frontend tcp://127.0.0.1:$FB --state-pub tcp://127.0.0.1:$SB \
      --state-peer tcp://127.0.0.1:$SP --heartbeat "$HB" > "$WORK/b.log" 2>&1 & B=$!
  wait_for "$WORK/b.log" "ready as passive"
  : > "$WORK/c.raw"
  "$ZMTP" bstarcli -e tcp://127.0.0.1:$FP -e tcp://127.0.0.1:$FB -n 0 --pause 20ms -t "$TIMEOUT" \
      --settle "$SETTLE" > "$WORK/c.raw" 2>&1 & CJ=$!
  tail -n +1 -f --pid=$CJ "$WORK/c.raw" | while IFS= read -r line; do echo "$(date +%s%N) $line"; done > "$WORK/c.log" & C=$!
  for _ in $(seq 1 600); do [ "$(grep -c 'replied OK' "$WORK/c.log" 2>/dev/null || true)" -ge 20 ] && break; sleep 0.05; done
  KILLED=$(date +%s%N); kill -9 $P; wait $P 2>/dev/null || true
  for _ in $(seq 1 600); do
    ms=$(python3 - "$WORK/c.log" "$KILLED" "tcp://127.0.0.1:$FB" <<'PY'
import sys
path, killed, backup = sys.argv[1], int(sys.argv[2]), sys.argv[3]
switched = False
for line in open(path, errors="replace"):
    ts, _, text = line.rstrip("\n").partition(" ")
    if int(ts) < killed:
        continue
    if text.startswith("I: connecting to server at " + backup):
        switched = True
    elif switched and text.startswith("I: server replied OK"):
        print((int(ts) - killed) // 1000000)
        break
PY
)
    [ -n "$ms" ] && break; sleep 0.05
  done
  [ -n "$ms" ] || { echo "run $run: no reply from the backup within 30 s" >&2; cat "$WORK/c.log" >&2; exit 1; }
  echo "run $run: ${ms} ms"
  results+=("$ms")
  kill $CJ $B 2>/dev/null || true; wait $CJ $B $C 2>/dev/null || true
done
printf '%s\n' "${results[@]}" | sort -n | awk -v hb="$HB" -v t="$TIMEOUT" -v s="$SETTLE" \
  '{a[NR]=$1} END {printf "heartbeat %s, timeout %s, settle %s: %d runs, median %d ms, worst %d ms\n", hb, t, s, NR, a[int((NR+1)/2)], a[NR]}'
