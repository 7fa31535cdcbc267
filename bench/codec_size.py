#!/usr/bin/env python3
"""Size of the trips table per Parquet codec (spark.sql.parquet.compression.codec).

Writes the trips tutorial's 2M rows (tests/e2e/trips_data.py) as JSON lines,
then CTAS PARTITIONED BY (route_id) with each codec, and prints the data
files' bytes (and the wall time of the CTAS, one run: a rough figure).

Usage: codec_size.py SILT_BIN [WORKDIR] [N_ROWS]
"""
import json
import os
import shutil
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "e2e"))
from trips_data import DEST, N_ROWS, write_rows  # noqa: E402

CODECS = ["snappy", "zstd", "gzip", "lz4", "lz4_raw", "none"]


def data_bytes(table):
    total = 0
    for root, dirs, files in os.walk(table):
        if "_delta_log" in root:
            continue
        total += sum(os.path.getsize(os.path.join(root, f)) for f in files
                     if f.endswith(".parquet"))
    return total


def main():
    silt = sys.argv[1]
    work = sys.argv[2] if len(sys.argv) > 2 else "/tmp/silt-codec-size"
    n = int(sys.argv[3]) if len(sys.argv) > 3 else N_ROWS
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    src = os.path.join(work, "trips.json")
    write_rows(src, 0, n, DEST)
    print("trips rows: %d, JSON input %d bytes" % (n, os.path.getsize(src)))
    base = None
    for codec in CODECS:
        table = os.path.join(work, "t_" + codec)
        sql = ("SET spark.sql.parquet.compression.codec = %s; CREATE TABLE delta.`%s` USING "
               "DELTA PARTITIONED BY (route_id) AS SELECT * FROM json.`%s`" % (codec, table, src))
        start = time.monotonic()
        subprocess.run([silt, "sql", sql], check=True, capture_output=True)
        secs = time.monotonic() - start
        size = data_bytes(table)
        base = base or size
        print("%-8s %10d bytes  %5.2fx snappy  CTAS %.2f s" % (codec, size, size / base, secs))


if __name__ == "__main__":
    main()
