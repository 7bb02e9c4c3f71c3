#!/usr/bin/env bash
# Many peers: zmtp-netty, libzmq and JeroMQ servers driven by one client (benchmarks/native/
# manypeers.c, which speaks ZMTP itself) with 1,000 to 10,000 connections, and on request the
# kernel's floor (benchmarks/native/floor_server.c: the least system calls a server can make).
# For each scenario, each implementation's server is started as a fresh process, as a user would
# run it, measured, and stopped; the order of the implementations turns from one scenario to the
# next so that the machine's drift hits them alike. Every JSON line is appended, tagged with the
# run's id, to benchmarks/target/manypeers/results.jsonl; logs go beside it.
#
#   benchmarks/manypeers.sh [options] [SCENARIO ...]
#
# Scenarios (default: echo:1000 echo:10000 storm:10000 handshake:1000 fanout:1000):
#   echo:N        N DEALER peers connect in batches of 100, then echo rounds (each peer sends one
#                 16-byte message, the round ends when all are back): warm-up rounds of at least
#                 200,000 echoes, measured rounds of at least 100,000 (20 rounds at least each)
#   storm:N       N connect() calls at once; time until all N are handshaken (gives up at 60 s)
#   handshake:N   20 cycles of connecting N peers and closing them: server CPU per handshake,
#                 cycle 1 in a fresh process, the last three warm (a JVM's compilers go on
#                 compiling per-connection code until some 10,000 handshakes have passed)
#   fanout:N      N SUB peers of a PUB publishing 16-byte messages at --rate (default 1000) per
#                 second: 5 s warm-up, 10 s counted; publisher CPU per delivered message
#
# Options:
#   --impls "zmtp-netty libzmq jeromq"   which servers (default: these three); also "floor",
#                   the floor server (e.g. --impls "floor zmtp-netty libzmq")
#   --zmtp-args "…"  more options for our echo server, after its own (e.g. "--listeners 3": a
#                   listening socket per kernel queue of somaxconn, for the storm)
#   --floor-opts "…"  more options for the floor server (e.g. "--batch 4": the fan-out publisher's
#                   messages per send, see floor_server.c; default: what is due at a turn)
#   --sources S     spread the connections over 127.0.0.1 .. 127.0.0.S (default 20)
#   --rate R        fan-out messages per second (default 1000); the publisher starts 6 s after it binds
#   --cycles C      handshake cycles (default 20)
#   --repeat K      run the whole list K times (default 1)
#   --jvm-opts "…"  JVM options for the Java servers (default: none, as a user would start them;
#                   ours gets them after the zmtp launcher's own, through ZMTP_JAVA_OPTS)
#   --run-id ID     tag of this run's lines (default: the date and time)
#   --no-archive    start our server without the build's class-data-sharing archive (zmtp.jsa),
#                   which the zmtp launcher hands to the JVM: with the JDK's own archive instead
#
# Our echo server is `zmtp cat -q -t ROUTER --echo`, with its default limits (docs/limits.md:
# connections in their handshake bounded, 65,536 in all, a listen backlog of net.core.somaxconn).
# libzmq's and JeroMQ's backlog is their default of 100 (ZMQ_BACKLOG).
set -euo pipefail

usage() { awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; }

impls="zmtp-netty libzmq jeromq"
sources=20
rate=1000
cycles=20
repeat=1
jvm_opts=""
floor_opts=""
zmtp_args=""
no_archive=""
run_id="$(date +%Y%m%d-%H%M%S)"
scenarios=()
while [ $# -gt 0 ]; do
  case "$1" in
    --impls) impls="$2"; shift 2 ;;
    --sources) sources="$2"; shift 2 ;;
    --rate) rate="$2"; shift 2 ;;
    --cycles) cycles="$2"; shift 2 ;;
    --repeat) repeat="$2"; shift 2 ;;
    --jvm-opts) jvm_opts="$2"; shift 2 ;;
    --floor-opts) floor_opts="$2"; shift 2 ;;
    --zmtp-args) zmtp_args="$2"; shift 2 ;;
    --run-id) run_id="$2"; shift 2 ;;
    --no-archive) no_archive=yes; shift ;;
    -h|--help) usage; exit 0 ;;
    echo:*|storm:*|handshake:*|fanout:*) scenarios+=("$1"); shift ;;
    *) usage >&2; exit 2 ;;
  esac
done
[ ${#scenarios[@]} -gt 0 ] || scenarios=(echo:1000 echo:10000 storm:10000 handshake:1000 fanout:1000)

root="$(cd "$(dirname "$0")/.." && pwd)"
cli_jar="$root/zmtp-cli/target/zmtp.jar"
bench_jar="$root/benchmarks/target/benchmarks.jar"
bin="$root/benchmarks/native/build"
out="$root/benchmarks/target/manypeers"
results="$out/results.jsonl"
mkdir -p "$out"
log="$out/run-$run_id.log"

step() { echo "$(date +%H:%M:%S) $*"; }

# --- build what is missing or stale (never mvn install: the local repository is shared)
stale=""
for jar in "$cli_jar" "$bench_jar"; do
  if [ ! -f "$jar" ]; then
    stale=yes
  elif [ -n "$(find -L "$root/zmtp-codec/src/main" "$root/zmtp-socket/src/main" "$root/patterns/src/main" \
      "$root/zmtp-cli/src/main" "$root/benchmarks/src/main" "$root/pom.xml" "$root/zmtp-codec/pom.xml" \
      "$root/zmtp-socket/pom.xml" "$root/patterns/pom.xml" "$root/zmtp-cli/pom.xml" "$root/benchmarks/pom.xml" \
      -newer "$jar" -print -quit)" ]; then
    stale=yes
  fi
done
if [ -n "$stale" ]; then
  step "building zmtp-cli and benchmarks"
  (cd "$root" && mvn -B -ntp -q -DskipTests package -pl zmtp-cli,benchmarks -am)
fi
"$root/benchmarks/native/build.sh" >/dev/null

# --- the machine, once per run
max_n=0
for s in "${scenarios[@]}"; do
  n="$(echo "$s" | cut -d: -f2)"
  [ "$n" -gt "$max_n" ] && max_n="$n"
done
if [ "$(ulimit -n)" -lt $((max_n + 100)) ]; then
  echo "ulimit -n is $(ulimit -n): too few open files for $max_n peers" >&2
  exit 1
fi
/usr/bin/python3 - "$run_id" "$(lscpu | sed -n 's/^Model name: *//p' | head -1)" "$(nproc)" \
  "$(cut -d' ' -f1-3 /proc/loadavg)" "$(java -version 2>&1 | head -1)" \
  "$(pkg-config --modversion libzmq 2>/dev/null || echo '?')" "$(cat /proc/sys/net/core/somaxconn)" \
  "$sources" "$rate" "$cycles" "$jvm_opts" "${scenarios[*]}" "$impls" "$floor_opts" \
  "$([ -z "$no_archive" ] && [ -f "$root/zmtp-cli/target/zmtp.jsa" ] && echo yes || echo no)" "$zmtp_args" <<'PY' >>"$results"
import datetime, json, sys
keys = ["run", "cpu", "nproc", "load", "java", "libzmq", "somaxconn", "sources", "rate", "cycles", "jvm_opts",
        "scenarios", "impls", "floor_opts", "class_data_archive", "zmtp_args"]
meta = dict(zip(keys, sys.argv[1:]))
meta.update({"bench": "manypeers-meta", "jeromq": "0.6.0", "date": datetime.datetime.now().strftime("%Y-%m-%d %H:%M")})
print(json.dumps(meta))
PY

# --- servers
# `zmtp cat` is started by the zmtp launcher (zmtp-cli/target/zmtp), as a user starts it: with the
# build's class-data-sharing archive and the launcher's JVM options, --jvm-opts after them
# (ZMTP_JAVA_OPTS). --no-archive points the JVM back at the JDK's own archive instead.
launcher_java_opts="$jvm_opts"
if [ -n "$no_archive" ]; then
  jdk_archive="$(dirname "$(dirname "$(readlink -f "$(command -v java)")")")/lib/server/classes.jsa"
  if [ -f "$jdk_archive" ]; then
    launcher_java_opts="-XX:SharedArchiveFile=$jdk_archive $jvm_opts"
  else
    launcher_java_opts="-Xshare:off $jvm_opts"
  fi
fi
server_pid=""
server_port=""

# Starts the server of kind (echo|pub) for impl; sets server_pid and server_port.
start_server() {
  local kind="$1" impl="$2" slog="$out/server-$run_id.log"
  local cmd
  # shellcheck disable=SC2206
  local jopts=($jvm_opts)
  # shellcheck disable=SC2206
  local fopts=($floor_opts)
  # shellcheck disable=SC2206
  local zargs=($zmtp_args)
  case "$kind/$impl" in
    echo/zmtp-netty) cmd=(env ZMTP_JAVA_OPTS="$launcher_java_opts" "$root/zmtp-cli/target/zmtp" cat -q -t ROUTER --echo
                          -b tcp://127.0.0.1:0 "${zargs[@]}") ;;
    echo/libzmq) cmd=("$bin/echo_router" --bind tcp://127.0.0.1:0) ;;
    echo/floor) cmd=("$bin/floor_server" --mode echo --bind tcp://127.0.0.1:0 "${fopts[@]}") ;;
    echo/jeromq) cmd=(java "${jopts[@]}" -cp "$bench_jar" io.zmtp.benchmarks.manypeers.JeromqEchoRouter
                      --bind 'tcp://127.0.0.1:*') ;;
    pub/zmtp-netty) cmd=(java "${jopts[@]}" -cp "$bench_jar" io.zmtp.benchmarks.manypeers.ZmtpFanoutPub
                         --bind tcp://127.0.0.1:0 --rate "$rate" --delay-s 6) ;;
    pub/libzmq) cmd=("$bin/fanout_pub" --bind tcp://127.0.0.1:0 --rate "$rate" --delay-s 6) ;;
    pub/floor) cmd=("$bin/floor_server" --mode pub --bind tcp://127.0.0.1:0 --rate "$rate" --delay-s 6 "${fopts[@]}") ;;
    pub/jeromq) cmd=(java "${jopts[@]}" -cp "$bench_jar" io.zmtp.benchmarks.manypeers.JeromqFanoutPub
                     --bind 'tcp://127.0.0.1:*' --rate "$rate" --delay-s 6) ;;
    *) echo "unknown implementation $impl" >&2; exit 2 ;;
  esac
  local err="$out/server.err"
  : >"$err"
  "${cmd[@]}" </dev/null 2>"$err" >/dev/null &
  server_pid=$!
  local i
  for i in $(seq 300); do
    if grep -q '^bound ' "$err"; then
      break
    fi
    if ! kill -0 "$server_pid" 2>/dev/null; then
      break
    fi
    sleep 0.1
  done
  server_port="$(sed -n 's/^bound tcp:\/\/.*:\([0-9][0-9]*\)$/\1/p' "$err" | head -1)"
  if [ -z "$server_port" ]; then
    echo "$impl $kind server did not start: $(cat "$err")" >&2
    stop_server
    return 1
  fi
  echo "== $impl $kind server pid $server_pid port $server_port: ${cmd[*]}" >>"$log"
}

# Events of our server's log lines matching $1, counting the similar lines it suppressed.
count_logged() {
  grep -F "$1" "$out/server.err" | awk '{ n++; if (match($0, /\([0-9]+ similar lines suppressed\)/)) n += substr($0, RSTART + 1) + 0 }
    END { print n + 0 }'
}

stop_server() {
  if [ -n "$server_pid" ]; then
    kill "$server_pid" 2>/dev/null || true
    wait "$server_pid" 2>/dev/null || true
    # what the server said (its warnings: refused or evicted connections) goes to the run's log
    {
      # our server logs an eviction or a refusal per line, "(N similar lines suppressed)" after some
      echo "   server: $(wc -l <"$out/server.err") lines on stderr;" \
        "$(count_logged 'closed to make room') connections evicted," \
        "$(count_logged 'refused a connection') refused; the first lines:"
      head -20 "$out/server.err" | cut -c1-400 | sed 's/^/   server: /'
    } >>"$log" || true
  fi
  server_pid=""
}
trap stop_server EXIT

# Rounds for N peers: at least min_echoes echoes, and 20 rounds.
rounds_for() {
  local n="$1" min_echoes="$2"
  local r=$(((min_echoes + n - 1) / n))
  [ "$r" -lt 20 ] && r=20
  echo "$r"
}

run_one() {
  local scenario="$1" impl="$2"
  local mode="${scenario%%:*}" n="${scenario#*:}"
  local kind=echo args=()
  case "$mode" in
    echo) args=(--batch 100 --warmup "$(rounds_for "$n" 200000)" --rounds "$(rounds_for "$n" 100000)") ;;
    storm) args=(--retry-ms 100 --deadline-s 60) ;;
    handshake) args=(--batch 100 --cycles "$cycles" --settle-ms 200) ;;
    # the publishers start 6 s after binding, once the subscribers are connected; the window
    # follows 10 s after the connect phase, well into the publishing
    fanout) kind=pub; args=(--batch 100 --warmup-s 10 --seconds 10 --rate "$rate") ;;
  esac
  step "$mode N=$n: $impl"
  start_server "$kind" "$impl" || return 0
  echo "== manypeers --mode $mode --n $n --sources $sources ${args[*]}" >>"$log"
  if ! "$bin/manypeers" --mode "$mode" --n "$n" --sources "$sources" --target "127.0.0.1:$server_port" \
      --server-pid "$server_pid" --label "$impl" "${args[@]}" 2>>"$log" \
      | sed -u "s/^{/{\"run\":\"$run_id\",/" | tee -a "$results" | cut -c1-200 >>"$log"; then
    echo "  $impl $mode N=$n incomplete or failed: see $log"
  fi
  stop_server
  sleep 1 # the kernel finishes closing the connections before the next server starts
}

read -r -a impl_list <<<"$impls"
k=0
for _ in $(seq "$repeat"); do
  for scenario in "${scenarios[@]}"; do
    count=${#impl_list[@]}
    for j in $(seq 0 $((count - 1))); do
      run_one "$scenario" "${impl_list[$(((j + k) % count))]}"
    done
    k=$((k + 1))
  done
done
step "done: run $run_id in $results"
