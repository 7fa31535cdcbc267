#!/bin/sh
# The long crash run of issue 15: 1,000 rounds of 4 concurrent INSERTs with SIGKILL at random
# moments, the log replayed independently after each (tests/crash/kill_writers.py; `ctest`
# runs 50 rounds). Usage: bench/crash_kill9.sh build/silt [ROUNDS] [SEED]
set -e
silt=${1:-build/silt}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
python3 "$(dirname "$0")/../tests/crash/kill_writers.py" "$silt" "$work" "${2:-1000}" "${3:-15}"
