#!/usr/bin/env bash
# Makes zmtp.jsa beside zmtp.jar: a class-data-sharing archive (AppCDS) of the classes the
# commands load, which the zmtp launcher hands to the JVM. A JVM reads the archive's classes
# already parsed and verified instead of loading them from the jar one by one: a broker or a
# Titanic server restarted under its peers starts serving in about two thirds of the time
# (benchmarks/RESULTS.md, "A restarted broker: exec to first reply").
#
# The archive lists what two training runs loaded: `zmtp tripping` (a Majordomo broker, worker
# and client over tcp, NULL and CURVE) and a Titanic server with a directory store until it
# serves. It belongs to the JVM that made it: another JVM, or a zmtp.jar built since, finds it
# does not match and starts as it would without it (the launcher turns the JVM's warning off).
# A failed training run costs only speed, so this script warns and never fails the build.
#
# usage: class-data-archive.sh JAVA TARGET_DIR
set -u
java=$1
target=$2
jar="$target/zmtp.jar"
archive="$target/zmtp.jsa"
work=$(mktemp -d)
trap 'kill "${titanic:-}" 2>/dev/null; rm -rf "$work"' EXIT
rm -f "$archive"

train() { # NAME ARGS...: one run of the command, its loaded classes in $work/NAME.lst
    local name=$1
    shift
    "$java" -XX:DumpLoadedClassList="$work/$name.lst" -jar "$jar" "$@" >"$work/$name.out" 2>&1 \
        || echo "class-data-archive: the training run '$*' failed: $(tail -3 "$work/$name.out")" >&2
}

train tripping tripping --no-warmup --sync 200 --async 2000
train curve tripping --curve --no-warmup --sync 50 --async 200
# Titanic runs until stopped: trained until it serves (the broker need not be there)
"$java" -XX:DumpLoadedClassList="$work/titanic.lst" -jar "$jar" titanic -e "ipc://$work/broker" \
    --store "$work/store" >"$work/titanic.out" 2>&1 &
titanic=$!
for _ in $(seq 200); do
    grep -q "serving" "$work/titanic.out" 2>/dev/null && break
    sleep 0.1
done
kill "$titanic" 2>/dev/null
wait "$titanic" 2>/dev/null

# one line per class (the first run's line for it, with its id), every lambda line once
cat "$work"/*.lst | awk '{ k = ($1 ~ /^@/) ? $0 : $1 } !seen[k]++' >"$work/classes.lst"
if ! "$java" -Xshare:dump -XX:SharedClassListFile="$work/classes.lst" -XX:SharedArchiveFile="$archive" \
        -Xlog:cds=off -Xlog:cds+dynamic=off -cp "$jar" >"$work/dump.out" 2>&1; then
    echo "class-data-archive: no archive, the zmtp launcher starts without one: $(tail -3 "$work/dump.out")" >&2
    rm -f "$archive"
fi
exit 0
