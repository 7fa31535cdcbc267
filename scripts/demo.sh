#!/usr/bin/env bash
# The walkthrough `make demo` runs: what silt can do today, as a user runs it.
set -euo pipefail
SILT=${1:-build/silt}
echo "\$ silt --version"
"$SILT" --version
echo
echo "\$ silt --help"
"$SILT" --help
