#!/bin/sh
# The long fuzz run of issue 15 (not CI): each libFuzzer target of fuzz/ for RUNS executions
# (10,000,000 by default) or SECONDS seconds, whichever comes first, one target at a time, on a
# copy of its committed corpus. Build first with clang:
#   CC=clang cmake -S . -B build-fuzz -G Ninja -DCMAKE_BUILD_TYPE=Release \
#       -DSILT_BUILD_FUZZERS=ON -DSILT_BUILD_TESTS=OFF && ninja -C build-fuzz
# Usage: bench/fuzz_long.sh [BUILD_DIR] [RUNS] [SECONDS] [TARGET ...]
# Prints one line per target (executions, seconds, coverage, crashes); a crash, leak or timeout
# input is left in OUT/<target>/ (OUT: $FUZZ_OUT or a temporary folder): keep it in
# fuzz/corpus/<target>/ once fixed. Figures: docs/reliability.md.
set -u
build=${1:-build-fuzz}
runs=${2:-10000000}
seconds=${3:-36000}
shift 3 2>/dev/null || shift $#
here=$(cd "$(dirname "$0")/.." && pwd)
out=${FUZZ_OUT:-$(mktemp -d)}
targets=${*:-snappy dv commit json csv sql_parse parquet sql_query}
for t in $targets; do
    mkdir -p "$out/$t/corpus" "$out/$t/artifacts"
    cp "$here/fuzz/corpus/$t/"* "$out/$t/corpus/"
    extra=""
    [ -f "$here/fuzz/fuzz_$t.dict" ] && extra="-dict=$here/fuzz/fuzz_$t.dict"
    [ "$t" = parquet ] && extra="$extra -max_len=40000"
    nice -n 19 "$build/fuzz/fuzz_$t" -runs="$runs" -max_total_time="$seconds" -timeout=30 \
        -rss_limit_mb=2048 -print_final_stats=1 -artifact_prefix="$out/$t/artifacts/" $extra \
        "$out/$t/corpus" > "$out/$t/log" 2>&1
    rc=$?
    execs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$out/$t/log" | grep -o '[0-9]*$')
    secs=$(grep -o 'Done [0-9]* runs in [0-9]* second' "$out/$t/log" | grep -o 'in [0-9]*' | grep -o '[0-9]*')
    cov=$(grep -o 'cov: [0-9]*' "$out/$t/log" | tail -1)
    found=$(ls "$out/$t/artifacts" | wc -l)
    echo "fuzz_$t: exit $rc, ${execs:-?} executions in ${secs:-?} s, $cov, $found findings ($out/$t)"
done
