#!/bin/sh
# Every fault (EIO, ENOSPC, a short write then ENOSPC) at every open/write/fsync/link/rename of
# every writing statement kind (tests/crash/io_faults.py --all-errors; `ctest` gives each call
# one fault in turn). Figures: docs/reliability.md. Usage: bench/io_faults.sh [BUILD_DIR]
set -e
build=${1:-build}
here=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
python3 "$here/tests/crash/io_faults.py" "$build/silt" "$work/faults" \
    "$build/tests/libsilt_fault_shim.so" --all-errors
