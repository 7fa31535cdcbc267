#!/usr/bin/env bash
# The walkthrough `make demo` runs: what silt can do today, as a user runs it,
# on real Delta tables and Parquet files from ../shared.
set -euo pipefail
SILT=${1:-build/silt}
SHARED=${SILT_SHARED_DIR:-$(cd "$(dirname "$0")/../.." && pwd)/shared}
TABLES=$SHARED/conformance/tables

run() {
  echo "\$ silt $*"
  "$SILT" "$@"
  echo
}

run --version
run --help
# A Delta table written by Spark: its history, partitions and rows.
run table info "$TABLES/delta-0.8.0-special-partition"
run table scan "$TABLES/delta-0.8.0-special-partition"
# Time travel: the same table as of an older version.
run table scan "$TABLES/simple_table" --version 0 --format jsonl
run table scan "$TABLES/simple_table" --format csv
# Deletion vectors and a checkpoint, read like Spark reads them.
run table info "$TABLES/dv-partitioned-with-checkpoint"
run table scan "$TABLES/dv-partitioned-with-checkpoint" --max-rows 5
# Column mapping: physical names in the files, logical names to the user.
run table scan "$TABLES/table-with-columnmapping-mode-name"
# Parquet files directly.
PQ=$(ls "$TABLES"/data-reader-primitives/*.parquet | head -1)
run parquet schema "$PQ"
run parquet cat "$PQ" --limit 3 --format jsonl
# Spark SQL over the same tables and files.
run sql "SELECT part, count(*) AS n, max(col1) FROM delta.\`$TABLES/dv-partitioned-with-checkpoint\` GROUP BY part ORDER BY part"
run sql "SELECT count(*) FROM delta.\`$TABLES/simple_table\` VERSION AS OF 0"
run sql "EXPLAIN SELECT * FROM delta.\`$TABLES/delta-0.8.0-special-partition\` WHERE x = 'A/A'"
