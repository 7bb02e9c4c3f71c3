#!/usr/bin/env bash
# Installs what the interop tests and the libzmq benchmark peers need, where it is missing:
# Debian's libzmq5 with python3-zmq (used through /usr/bin/python3), libzmq3-dev and gcc;
# libsodium (libzmq's own CURVE, and ours for large frames: LibsodiumBoxTest requires it); chromium
# and npm for the browser example (examples/); Debian's postgresql server for Titanic's PostgreSQL
# store (the tests start private clusters of their own with its initdb and pg_ctl); npm's zeromq
# 6.8.0 in interop-tests/target/node, a libzmq 4.3.5 with its draft socket types on (Debian's
# libzmq5 has none) for the draft types' interop tests.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"

need=()
/usr/bin/python3 -c 'import zmq' >/dev/null 2>&1 || need+=(python3 python3-zmq)
[ -f /usr/include/zmq.h ] || need+=(libzmq3-dev)
command -v gcc >/dev/null 2>&1 || need+=(gcc libc6-dev)
ldconfig -p 2>/dev/null | grep 'libsodium\.so' >/dev/null || need+=(libsodium23)
command -v pkg-config >/dev/null 2>&1 || need+=(pkg-config)
# The browser example's test: a headless Chromium, and npm for jszmq (examples/js/build.sh).
[ -x /usr/bin/chromium ] || need+=(chromium)
command -v npm >/dev/null 2>&1 || need+=(npm)
ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || need+=(postgresql)

if [ ${#need[@]} -gt 0 ]; then
  echo "installing: ${need[*]}"
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  export DEBIAN_FRONTEND=noninteractive
  $sudo apt-get update -qq || true
  $sudo apt-get install -y -qq "${need[@]}"
fi

/usr/bin/python3 -c 'import zmq; print("libzmq", zmq.zmq_version(), "via pyzmq", zmq.__version__, "curve:", zmq.has("curve"))'

# The draft socket types' libzmq peer: npm's zeromq at the version package.json pins, whose
# prebuilt libzmq 4.3.5 has its drafts on; local to interop-tests/target/node, nothing global.
node_dir="$root/interop-tests/target/node"
node_pkg="$root/interop-tests/src/test/resources/node/package.json"
want="$(node -p 'require(process.argv[1]).dependencies.zeromq' "$node_pkg")"
have="$(cd "$node_dir" 2>/dev/null && node -p 'require("zeromq/package.json").version' 2>/dev/null || true)"
if [ "$have" != "$want" ]; then
  echo "installing: zeromq@$want from npm into $node_dir"
  mkdir -p "$node_dir"
  cp "$node_pkg" "$node_dir/package.json"
  (cd "$node_dir" && npm install --no-audit --no-fund --loglevel=error >/dev/null)
fi
(cd "$node_dir" && node --no-warnings -e 'const z = require("zeromq");
  console.log("libzmq", z.version, "via zeromq", require("zeromq/package.json").version, "draft:", z.capability.draft)')
