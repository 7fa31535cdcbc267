#!/usr/bin/env python3
"""Z-order benchmark: files read by point predicates after ZORDER BY, and OPTIMIZE time.

A table of --rows (10,000,000) rows (id BIGINT, a BIGINT, b BIGINT), a and b
two high-cardinality columns uncorrelated with each other and with id
(multiplicative hashes of id), written by silt's CTAS into files of
--file-size bytes (delta.targetFileSize, so that the table has files enough
for file skipping to mean something). Two copies: silt runs
`OPTIMIZE t ZORDER BY (a, b)` on one, Spark with Delta on the other
(spark.databricks.delta.optimize.maxFileSize = the same size), each timed
alone (silt: the `silt sql` process; Spark: the statement in a warm
session). Then, for each copy, silt's EXPLAIN ANALYZE of a point predicate
on a and on b (the value of a row in the middle of the table) gives the
files read and skipped (DeltaScan's note), and the counts are checked
against the same query without ZORDER (before OPTIMIZE). The issue's bar:
at most 10% of the files read after ZORDER BY (a, b), on either column.

A benchmark, never a test: nothing fails on a time.

    .peers/venv/bin/python bench/zorder_bench.py [--silt build/silt]
        [--rows 10000000] [--file-size 184320] [--dir /tmp/silt-zbench] [--no-spark]
        [--memory-limit 256MB]

silt runs OPTIMIZE twice, on two copies: with the default memory_limit and
with --memory-limit (ZORDER holds at most half of it in decoded rows per
pass, docs/maintenance.md), each with its peak RSS (the process's
ru_maxrss), to show that the bounded run needs less memory than the table.
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tests", "peers"))


def silt(binary, sql):
    start = time.monotonic()
    proc = subprocess.run([binary, "sql", "--format", "csv", sql], capture_output=True,
                          text=True)
    if proc.returncode != 0:
        raise SystemExit("silt failed on %s:\n%s" % (sql[:200], proc.stderr))
    return proc.stdout, time.monotonic() - start


def silt_rss(binary, sql):
    """Runs silt in a child of a small Python wrapper: wall time and the peak RSS in MiB."""
    wrapper = ("import resource, subprocess, sys\n"
               "rc = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL).returncode\n"
               "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)\n"
               "sys.exit(rc)\n")
    start = time.monotonic()
    proc = subprocess.run([sys.executable, "-c", wrapper, binary, "sql", "--format", "csv", sql],
                          capture_output=True, text=True)
    if proc.returncode != 0:
        raise SystemExit("silt failed on %s:\n%s" % (sql[:200], proc.stderr))
    return time.monotonic() - start, int(proc.stdout.strip()) / 1024.0


def files_read(binary, table, pred):
    out, _ = silt(binary, f"EXPLAIN ANALYZE SELECT count(*) FROM delta.`{table}` WHERE {pred}")
    m = re.search(r"DeltaScan files: (\d+) of (\d+) read", out)
    if m is None:
        raise SystemExit("no DeltaScan note in:\n" + out)
    return int(m.group(1)), int(m.group(2))


def count(binary, table, pred):
    out, _ = silt(binary, f"SELECT count(*) FROM delta.`{table}` WHERE {pred}")
    return int(out.splitlines()[1])


def report(binary, label, table, preds):
    for pred in preds:
        n_read, n_files = files_read(binary, table, pred)
        print("  %-28s %-14s %5d of %5d files read (%.1f%%), %d rows"
              % (label, pred, n_read, n_files, 100.0 * n_read / n_files,
                 count(binary, table, pred)))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--silt", default=os.path.join(ROOT, "build", "silt"))
    ap.add_argument("--rows", type=int, default=10_000_000)
    ap.add_argument("--file-size", type=int, default=184320)
    ap.add_argument("--dir", default="/tmp/silt-zbench")
    ap.add_argument("--no-spark", action="store_true")
    ap.add_argument("--memory-limit", default="256MB")
    args = ap.parse_args()
    shutil.rmtree(args.dir, ignore_errors=True)
    os.makedirs(args.dir)
    base = os.path.join(args.dir, "silt_t")
    _, t_ctas = silt(args.silt, f"CREATE TABLE delta.`{base}` USING DELTA TBLPROPERTIES "
                     f"('delta.targetFileSize' = '{args.file_size}') AS SELECT id, "
                     f"(id * 2654435761) % 1000000007 AS a, (id * 2246822519 + 7) % 999999937 AS b "
                     f"FROM range({args.rows})")
    mid = args.rows // 2
    out, _ = silt(args.silt, f"SELECT a, b FROM delta.`{base}` WHERE id = {mid}")
    a_val, b_val = out.splitlines()[1].split(",")
    preds = [f"a = {a_val}", f"b = {b_val}"]
    print("table: %d rows, CTAS %.1f s" % (args.rows, t_ctas))
    report(args.silt, "before OPTIMIZE", base, preds)
    spark_copy = os.path.join(args.dir, "spark_t")
    shutil.copytree(base, spark_copy)
    bounded = os.path.join(args.dir, "silt_bounded")
    shutil.copytree(base, bounded)
    table_mib = sum(os.path.getsize(os.path.join(r, f)) for r, _, fs in os.walk(base)
                    for f in fs) / 1048576.0

    t_silt, rss = silt_rss(args.silt, f"OPTIMIZE delta.`{base}` ZORDER BY (a, b)")
    print("silt OPTIMIZE ZORDER BY (a, b): %.1f s, peak RSS %.0f MiB (table %.0f MiB on disk)"
          % (t_silt, rss, table_mib))
    report(args.silt, "after silt's ZORDER", base, preds)
    t_bounded, rss_bounded = silt_rss(args.silt, f"SET memory_limit = '{args.memory_limit}'; "
                                      f"OPTIMIZE delta.`{bounded}` ZORDER BY (a, b)")
    print("silt OPTIMIZE ZORDER BY (a, b) with memory_limit %s: %.1f s, peak RSS %.0f MiB"
          % (args.memory_limit, t_bounded, rss_bounded))
    report(args.silt, "after bounded ZORDER", bounded, preds)

    if not args.no_spark:
        from peers import spark_session
        spark = spark_session()
        spark.conf.set("spark.databricks.delta.optimize.maxFileSize", str(args.file_size))
        spark.sql(f"SELECT count(*) FROM delta.`{spark_copy}`").collect()  # warm up
        start = time.monotonic()
        spark.sql(f"OPTIMIZE delta.`{spark_copy}` ZORDER BY (a, b)").collect()
        t_spark = time.monotonic() - start
        print("Spark OPTIMIZE ZORDER BY (a, b): %.1f s (silt/Spark %.2f)"
              % (t_spark, t_silt / t_spark))
        report(args.silt, "after Spark's ZORDER", spark_copy, preds)
    return 0


if __name__ == "__main__":
    sys.exit(main())
