#!/usr/bin/env bash
# The main job: builds the zmtp command line and runs the guide's round-trip demonstrator
# (client, broker and worker in one process), printing synchronous and asynchronous calls/s.
set -euo pipefail
cd "$(dirname "$0")/.."
mvn -B -ntp -q -DskipTests package
exec java -jar zmtp-cli/target/zmtp.jar tripping "$@"
