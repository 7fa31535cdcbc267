#!/bin/sh
# The long crash run of issue 15: 1,000 rounds of 4 concurrent INSERTs, one writer a round killed
# by the fault shim at an exact point of the commit protocol and others with SIGKILL at random
# moments, the log replayed independently after each (tests/crash/kill_writers.py; `ctest`
# runs 50 rounds). Figures: docs/reliability.md.
# Usage: bench/crash_kill9.sh [BUILD_DIR] [ROUNDS] [SEED]
set -e
build=${1:-build}
here=$(cd "$(dirname "$0")/.." && pwd)
python=python3
[ -x "$here/.peers/venv/bin/python" ] && python="$here/.peers/venv/bin/python"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$python" "$here/tests/crash/kill_writers.py" "$build/silt" "$work" "${2:-1000}" "${3:-15}" \
    "$build/tests/libsilt_fault_shim.so"
