#!/usr/bin/env bash
# Runs every test: unit tests, the interop tests against real libzmq, and the CLI tests.
# On a fresh machine it first installs the libzmq peers the interop tests need.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-test-deps.sh
exec mvn -B -ntp verify "$@"
