#!/usr/bin/env bash
# Runs the browser example (io.zmtp.examples.browser.BrowserDemo): a PUB and a ROUTER socket on one
# ws:// port (paths /news and /rpc) and a web page that talks to them with jszmq.
#
#   examples/browser-demo.sh [HTTP_PORT [ZMTP_PORT]]     (defaults 8080 and 5560; 0: a free port)
#
# Needs what the build leaves in examples/target: the classes and the runtime class path
# (mvn -B -ntp -DskipTests package -pl examples -am writes classpath.txt), and the jszmq bundle
# (bash examples/js/build.sh). No Maven when it runs. It prints the page's address to open.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
target="$here/target"
if [ ! -f "$target/classpath.txt" ] || [ ! -d "$target/classes" ]; then
  echo "examples not built: mvn -B -ntp -DskipTests package -pl examples -am" >&2
  exit 2
fi
exec java -cp "$target/classes:$(cat "$target/classpath.txt")" io.zmtp.examples.browser.BrowserDemo \
  "${1:-8080}" "${2:-5560}" "$target/js/jszmq.js"
