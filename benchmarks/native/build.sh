#!/usr/bin/env bash
# Builds the libzmq twins of the JMH benchmarks, and the many-peers harness (which speaks ZMTP
# itself, without libzmq), into benchmarks/native/build/ (gcc, libzmq3-dev).
# Usage: benchmarks/native/build.sh
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
out="$here/build"
mkdir -p "$out"
CC="${CC:-gcc}"
CFLAGS="${CFLAGS:--O2 -g -std=c11 -Wall -Wextra -Werror}"
zmq_libs="$(pkg-config --libs libzmq 2>/dev/null || echo -lzmq)"
for src in "$here"/*.c; do
  name="$(basename "$src" .c)"
  if [ ! -x "$out/$name" ] || [ "$src" -nt "$out/$name" ] || [ "$here/bench.h" -nt "$out/$name" ] || [ "$here/zmtp_null.h" -nt "$out/$name" ]; then
    libs="-lm"
    if grep -q '#include "bench.h"\|#include <zmq.h>' "$src"; then
      libs="$zmq_libs -lpthread -lm"
    fi
    # shellcheck disable=SC2086
    $CC $CFLAGS -o "$out/$name" "$src" $libs
  fi
done
echo "built: $(cd "$out" && ls | tr '\n' ' ')"
