#!/usr/bin/env bash
# Compares zmtp-netty with JeroMQ and libzmq in one run: for each workload, the JMH benchmark
# (zmtp-netty and JeroMQ, as its impl parameter) and then the libzmq C programs, back to back;
# then prints one table (also saved as benchmarks/target/compare/table.txt).
#
#   benchmarks/compare.sh [--short|--full] [--many]
#
#   --short  (default) 1 fork, 2 warm-up + 3 measured iterations of 1 s: a few minutes on 2
#            cores; for development, noisy.
#   --full   2 forks, 5 warm-up + 5 measured iterations of 2 s (libzmq: 5 warm-up + 10 measured):
#            about half an hour; the honest one, on a quiet machine. Includes --many.
#   --many   also the many-peers scenarios (benchmarks/manypeers.sh with its defaults: 1,000 and
#            10,000 connections; about 10 minutes more), printed as rows of the same table.
#            With it, the Majordomo crowd (MajordomoCrowdBenchmark: one broker with 10 workers
#            and 10 clients, 10 and 1,000, then 1,000 and 1,000; about 3 minutes more): issue
#            #43's goal is that the last keeps half the throughput with 10 workers.
#
# Installs libzmq3-dev and gcc where missing (scripts/install-test-deps.sh), builds the
# benchmarks jar when sources changed and the C programs. Raw results and logs are kept in
# benchmarks/target/compare/.
set -euo pipefail

usage() { awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; }

profile=short
many=""
for arg in "$@"; do
  case "$arg" in
    --short) profile=short ;;
    --full) profile=full; many=yes ;;
    --many) many=yes ;;
    -h|--help) usage; exit 0 ;;
    *) usage >&2; exit 2 ;;
  esac
done

root="$(cd "$(dirname "$0")/.." && pwd)"
jar="$root/benchmarks/target/benchmarks.jar"
bin="$root/benchmarks/native/build"
out="$root/benchmarks/target/compare"
python=/usr/bin/python3

if [ "$profile" = short ]; then
  jmh_opts=(-f 1 -wi 2 -w 1s -i 3 -r 1s)
  native_opts=(--warmup 2 --iterations 3 --time 1)
  # 1,000 workers and 1,000 clients warm up slowly (few requests per second at first)
  crowd_opts=(-f 1 -wi 5 -w 2s -i 3 -r 2s)
else
  jmh_opts=(-f 2 -wi 5 -w 2s -i 5 -r 2s)
  native_opts=(--warmup 5 --iterations 10 --time 2)
  crowd_opts=("${jmh_opts[@]}")
fi

"$root/scripts/install-test-deps.sh" >/dev/null
stale=""
if [ -f "$jar" ]; then
  # -L: a checkout seen through symbolic links (a link is newer than what it points to) is not stale
  stale="$(find -L "$root/zmtp-codec/src/main" "$root/zmtp-socket/src/main" "$root/patterns/src/main" \
    "$root/titanic-sqlite/src/main" "$root/benchmarks/src/main" "$root/pom.xml" "$root/zmtp-codec/pom.xml" \
    "$root/zmtp-socket/pom.xml" "$root/patterns/pom.xml" \
    "$root/titanic-sqlite/pom.xml" "$root/benchmarks/pom.xml" -newer "$jar" -print -quit)"
fi
if [ ! -f "$jar" ] || [ -n "$stale" ]; then
  echo "building $jar"
  (cd "$root" && mvn -B -ntp -q -DskipTests package -pl benchmarks -am)
fi
"$root/benchmarks/native/build.sh" >/dev/null

rm -rf "$out"
mkdir -p "$out"
cpu="$(lscpu | sed -n 's/^Model name: *//p' | head -1)"
libzmq_version="$(pkg-config --modversion libzmq 2>/dev/null || echo '?')"
# our CURVE boxes of 256 bytes and more go through the system's libsodium when it is there
libsodium_version="$(pkg-config --modversion libsodium 2>/dev/null || echo 'none')"
java_version="$(java -version 2>&1 | head -1)"
"$python" - "$out/meta.json" "$profile" "$cpu" "$(nproc)" "$(cut -d' ' -f1-3 /proc/loadavg)" \
  "$java_version" "$libzmq_version" "${jmh_opts[*]}" "${native_opts[*]}" "$libsodium_version" "${crowd_opts[*]}" <<'PY'
import json, sys, datetime
keys = ["profile", "cpu", "nproc", "load", "java", "libzmq", "jmh_options", "native_options", "libsodium",
        "crowd_options"]
meta = dict(zip(keys, sys.argv[2:]))
meta["jeromq"] = "0.6.0"
meta["date"] = datetime.datetime.now().strftime("%Y-%m-%d %H:%M")
json.dump(meta, open(sys.argv[1], "w"))
PY

# JMH allows one run at a time per machine (/tmp/jmh.lock): wait for another engineer's run.
# jmh NAME REGEX [OPTIONS...]: OPTIONS instead of the profile's jmh_opts.
jmh() {
  local name="$1" regex="$2" tries=0
  shift 2
  local opts=("${jmh_opts[@]}")
  if [ $# -gt 0 ]; then
    opts=("$@")
  fi
  while :; do
    if java -jar "$jar" "$regex" "${opts[@]}" -rf json -rff "$out/jmh-$name.json" >"$out/jmh-$name.log" 2>&1; then
      break
    fi
    if grep -q "Unable to acquire the JMH lock" "$out/jmh-$name.log" && [ $tries -lt 120 ]; then
      [ $tries -eq 0 ] && echo "  another JMH run holds /tmp/jmh.lock; waiting for it"
      tries=$((tries + 1))
      sleep 10
      continue
    fi
    echo "  JMH $name failed: see $out/jmh-$name.log" >&2
    break
  done
  if grep -q "<failure" "$out/jmh-$name.log"; then
    echo "  some $name benchmarks failed: see $out/jmh-$name.log" >&2
  fi
}

native() {
  local program="$1"
  shift
  if ! "$bin/$program" "$@" "${native_opts[@]}" >>"$out/native.jsonl" 2>>"$out/native.log"; then
    echo "  libzmq $program $* failed: see $out/native.log" >&2
  fi
}

step() { echo "$(date +%H:%M:%S) $*"; }

step "round trip (tripping): zmtp-netty and JeroMQ"
jmh tripping '\.Tripping(Reactor)?Benchmark\.'
step "round trip (tripping): libzmq"
for mode in sync async; do
  for transport in tcp inproc; do
    native tripping --mode "$mode" --transport "$transport"
  done
done

step "REQ/REP latency: zmtp-netty and JeroMQ"
jmh latency '\.ReqRepLatencyBenchmark\.'
step "REQ/REP latency: libzmq"
for size in 1 1024; do
  native reqrep_latency --size "$size"
done

step "PUB/SUB and PUSH/PULL throughput: zmtp-netty and JeroMQ"
jmh throughput '\.throughput\.ThroughputBenchmark\.'
step "PUB/SUB and PUSH/PULL throughput: libzmq"
for pattern in pubsub pushpull; do
  for size in 10 100 1024; do
    native throughput --pattern "$pattern" --size "$size"
  done
done

step "CURVE throughput: zmtp-netty and JeroMQ"
jmh curve '\.CurveThroughputBenchmark\.'
step "CURVE throughput: libzmq"
for size in 100 1024; do
  native throughput --pattern pushpull --size "$size" --curve
done

step "CURVE round trip: zmtp-netty and JeroMQ"
jmh curve-tripping '\.CurveTrippingBenchmark\.'
step "CURVE round trip: libzmq"
native tripping --mode async --transport tcp --curve

step "DEALER/ROUTER pipelined: zmtp-netty and JeroMQ"
jmh pipelined '\.PipelinedRequestBenchmark\.'
step "DEALER/ROUTER pipelined: libzmq"
native pipelined

# libzmq has no twin: Debian's libzmq is built without the draft types; JeroMQ has no udp://
step "CLIENT/SERVER round trip and RADIO/DISH throughput (tcp, udp): zmtp-netty and JeroMQ"
jmh draft '\.(ClientServerBenchmark|RadioDishBenchmark)\.'

if [ -n "$many" ]; then
  step "many peers (benchmarks/manypeers.sh): zmtp-netty, libzmq and JeroMQ"
  many_run="compare-$(date +%Y%m%d-%H%M%S)"
  if ! "$root/benchmarks/manypeers.sh" --run-id "$many_run" >"$out/manypeers.log" 2>&1; then
    echo "  the many-peers run failed: see $out/manypeers.log" >&2
  fi
  grep -F "\"run\":\"$many_run\"" "$root/benchmarks/target/manypeers/results.jsonl" >"$out/manypeers.jsonl" || true
  grep -F "\"run\": \"$many_run\"" "$root/benchmarks/target/manypeers/results.jsonl" >>"$out/manypeers.jsonl" || true
  step "Majordomo crowd (10 and 1,000 workers and clients): zmtp-netty and JeroMQ"
  jmh majordomo-crowd '\.MajordomoCrowdBenchmark\.' "${crowd_opts[@]}" -p crowd=10x10,10x1000,1000x1000
fi

step "done"
echo
"$python" "$root/benchmarks/compare.py" "$out" | tee "$out/table.txt"
