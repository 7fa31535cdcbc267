#!/usr/bin/env python3
"""Streaming ingestion: silt against Spark Structured Streaming (issue 17).

    stream_bench.py SILT_BIN WORK_DIR [N_FILES [ROWS]]

N_FILES CSV files (default 200) of the trips shape (tests/e2e/trips_data.py;
default 2M rows in all) into a Delta table with maxFilesPerTrigger 10, by
silt (`silt stream --trigger availableNow`) and by Spark Structured Streaming
(local[2], availableNow, Delta sink) in the same run over the same files:
total rows per second and per-batch latency (each engine's own progress:
silt's StreamingQueryProgress JSON, Spark's lastProgress per batch). Then one
small file (100 rows) arriving at a running silt stream, 9 times: its
micro-batch's durationMs (median, and the medians of its phases). Not a test:
nothing is asserted (docs/benchmarks.md has figures).
"""
import json
import os
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests" / "peers"))
sys.path.insert(0, str(REPO / "tests" / "e2e"))
from peers import reexec_in_venv  # noqa: E402

reexec_in_venv(__file__)
import trips_data  # noqa: E402

SILT, WORK = sys.argv[1], Path(sys.argv[2])
N_FILES = int(sys.argv[3]) if len(sys.argv) > 3 else 200
ROWS = int(sys.argv[4]) if len(sys.argv) > 4 else trips_data.N_ROWS // N_FILES
SCHEMA = "trip_id BIGINT, tstamp TIMESTAMP, route_id STRING, destination STRING"


def write_files(src):
    src.mkdir(parents=True)
    for idx in range(N_FILES):
        path = src / ("part-%03d.csv" % idx)
        trips_data.write_csv_rows(str(path), idx * ROWS, ROWS, trips_data.DEST)
        os.utime(path, (1_000_000 + idx, 1_000_000 + idx))


def silt_run(src, table):
    stmt = ("CREATE OR REFRESH STREAMING TABLE delta.`%s` AS SELECT * FROM STREAM read_files("
            "'%s', format => 'csv', header => true, schema => '%s', maxFilesPerTrigger => 10)"
            % (table, src, SCHEMA))
    t0 = time.monotonic()
    run = subprocess.run([SILT, "stream", "--trigger", "availableNow", "--progress", "json", stmt],
                         capture_output=True, text=True, check=True)
    wall = time.monotonic() - t0
    lat = [json.loads(l)["durationMs"]["triggerExecution"] for l in run.stderr.splitlines()
           if l.startswith("{")]
    return wall, lat


def spark_run(src, table):
    from peers import spark_session
    spark = spark_session()
    df = (spark.readStream.format("csv").option("header", True).schema(SCHEMA)
          .option("maxFilesPerTrigger", 10).load(str(src)))
    t0 = time.monotonic()
    q = (df.writeStream.format("delta").option("checkpointLocation", str(table) + "_ck")
         .trigger(availableNow=True).start(str(table)))
    q.awaitTermination()
    wall = time.monotonic() - t0
    lat = [p["durationMs"]["triggerExecution"] for p in q.recentProgress if p["numInputRows"] > 0]
    return wall, lat


def small_file_latency(src, table, n=9):
    """One 100-row file into a running silt stream, n times: each batch's durationMs."""
    stmt = ("INSERT INTO delta.`%s` SELECT * FROM STREAM read_files('%s', format => 'csv', "
            "header => true, schema => '%s')" % (table, src, SCHEMA))
    subprocess.run([SILT, "sql", "CREATE TABLE delta.`%s` (%s) USING delta" % (table, SCHEMA)],
                   check=True, capture_output=True)
    proc = subprocess.Popen([SILT, "stream", "--progress", "json", "--checkpoint",
                             str(table) + "_ck", stmt], stderr=subprocess.PIPE, text=True)
    got = []
    for idx in range(n):
        time.sleep(0.5)
        trips_data.write_csv_rows(str(src / ("small-%d.csv.tmp" % idx)), idx * 100, 100,
                                  trips_data.DEST)
        os.rename(src / ("small-%d.csv.tmp" % idx), src / ("small-%d.csv" % idx))
        line = proc.stderr.readline()
        while line and not line.startswith("{"):
            line = proc.stderr.readline()
        if not line:
            raise SystemExit("the silt stream ended early (exit %s): %s" % (proc.wait(), proc.stderr.read()))
        got.append(json.loads(line)["durationMs"])
    proc.terminate()
    proc.wait()
    return got


def main():
    shutil.rmtree(WORK, ignore_errors=True)
    src = WORK / "in"
    write_files(src)
    rows = N_FILES * ROWS
    s_wall, s_lat = silt_run(src, WORK / "silt_t")
    k_wall, k_lat = spark_run(src, WORK / "spark_t")
    print("%d files, %d rows, maxFilesPerTrigger 10" % (N_FILES, rows))
    print("silt : %.2f s, %.0f rows/s, %d batches, median batch %d ms" %
          (s_wall, rows / s_wall, len(s_lat), statistics.median(s_lat)))
    print("spark: %.2f s, %.0f rows/s, %d batches, median batch %d ms" %
          (k_wall, rows / k_wall, len(k_lat), statistics.median(k_lat) if k_lat else -1))
    print("throughput ratio silt/spark: %.1f" % (k_wall / s_wall))
    small = WORK / "small_in"
    small.mkdir()
    got = small_file_latency(small, WORK / "small_t")
    total = [d["triggerExecution"] for d in got]
    print("silt one small file micro-batch: median %s ms (%s)" % (statistics.median(total), total))
    # where the time goes: the checkpoint's write-ahead (walCommit), the Delta commit
    # (addBatch), the commit mark (commitOffsets); the rest is listing and binding
    print("  medians: " + ", ".join("%s %s ms" % (k, statistics.median(d[k] for d in got))
                                    for k in ("latestOffset", "walCommit", "getBatch", "addBatch",
                                              "commitOffsets")))
    print("  load average at the end: %.1f" % os.getloadavg()[0])


if __name__ == "__main__":
    main()
