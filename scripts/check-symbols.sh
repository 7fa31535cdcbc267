#!/usr/bin/env bash
# Compares the symbols libsilt.so exports with docs/symbols.txt, so that the
# public ABI changes only on purpose (STYLE.md, section 2). After adding a
# public function, regenerate the list:
#   nm -D --defined-only build/libsilt.so | awk '{print $3}' | sort > docs/symbols.txt
set -euo pipefail
lib=$1
list=$2
actual=$(nm -D --defined-only "$lib" | awk '{print $3}' | sort)
if ! diff <(echo "$actual") "$list" > /tmp/silt-symbols.diff; then
  echo "exported symbols differ from $list (< exported, > listed):"
  cat /tmp/silt-symbols.diff
  echo "0 passed, 1 failed"
  exit 1
fi
echo "exported symbols match $list ($(echo "$actual" | wc -l) symbols)"
echo "1 passed, 0 failed"
