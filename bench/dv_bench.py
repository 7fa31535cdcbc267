#!/usr/bin/env python3
"""Deletion vector benchmark: 10-row UPDATE, DELETE and MERGE into a 2,000,000-row table,
with deletion vectors (delta.enableDeletionVectors) next to silt's copy-on-write rewrite and
next to Spark on the same table; and a full read before and after (docs/dv.md).

The table (id BIGINT, grp BIGINT, amount DOUBLE, s STRING) is written once by silt (CTAS;
as many files as silt's writer makes); each statement runs in its own process on a fresh copy, so the
times are the statement's own. The 10 rows are spread over the whole id range (every file is
touched: the worst case for a rewrite). The read is `SELECT count(*), sum(amount),
max(length(s))` over the table, before and after the DELETE, best of 3.

A benchmark, never a test: nothing fails on a time.

    .peers/venv/bin/python bench/dv_bench.py [--silt build/silt] [--rows 2000000]
        [--dir /tmp/silt-dvbench] [--no-spark]
"""
import argparse
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def silt_run(silt, sql):
    t0 = time.monotonic()
    proc = subprocess.run([silt, "sql", "--format", "csv", sql], capture_output=True, text=True)
    if proc.returncode != 0:
        raise SystemExit("silt failed on %s: %s" % (sql[:200], proc.stderr))
    return time.monotonic() - t0, proc.stdout


def statements(t, rows):
    ids = ", ".join(str(rows // 10 * k + 7) for k in range(10))
    return {
        "DELETE": "DELETE FROM delta.`%s` WHERE id IN (%s)" % (t, ids),
        "UPDATE": "UPDATE delta.`%s` SET amount = -1 WHERE id IN (%s)" % (t, ids),
        "MERGE": "MERGE INTO delta.`%s` t USING (SELECT * FROM VALUES %s AS v(id)) s "
                 "ON t.id = s.id WHEN MATCHED THEN UPDATE SET amount = -2"
                 % (t, ", ".join("(%s)" % i for i in ids.split(", "))),
    }


def read_sql(t):
    return "SELECT count(*), sum(amount), max(length(s)) FROM delta.`%s`" % t


def best_read(silt, t, n=3):
    return min(silt_run(silt, read_sql(t))[0] for _ in range(n))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--silt", default=str(REPO / "build" / "silt"))
    ap.add_argument("--rows", type=int, default=2000000)
    ap.add_argument("--dir", default="/tmp/silt-dvbench")
    ap.add_argument("--no-spark", action="store_true")
    a = ap.parse_args()
    work = Path(a.dir)
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    bases = {}
    for mode, dv in (("dv", "true"), ("cow", "false")):
        t = work / ("base_" + mode)
        silt_run(a.silt, "CREATE TABLE delta.`%s` USING delta TBLPROPERTIES "
                 "('delta.enableDeletionVectors' = '%s') AS SELECT id, id %% 100 AS grp, "
                 "id * 0.5 AS amount, concat('row-', CAST(id AS STRING)) AS s "
                 "FROM range(0, %d)" % (t, dv, a.rows))
        bases[mode] = t
    print("table: %d rows, %d data files" % (a.rows, len(list(bases["dv"].glob("*.parquet")))))
    results = {}
    for what in ("DELETE", "UPDATE", "MERGE"):
        for mode, base in bases.items():
            t = work / ("%s_%s" % (what.lower(), mode))
            shutil.copytree(base, t)
            secs, _ = silt_run(a.silt, statements(t, a.rows)[what])
            results[(what, mode)] = secs
            if what == "DELETE":
                results[("read before", mode)] = best_read(a.silt, base)
                results[("read after", mode)] = best_read(a.silt, t)
    if not a.no_spark:
        sys.path.insert(0, str(REPO / "tests" / "peers"))
        from peers import spark_session
        spark = spark_session()
        for what in ("DELETE", "UPDATE", "MERGE"):
            t = work / ("%s_spark" % what.lower())
            shutil.copytree(bases["dv"], t)
            spark.read.format("delta").load(str(t)).count()  # warm the JVM on this table
            t0 = time.monotonic()
            spark.sql(statements(t, a.rows)[what])
            results[(what, "spark")] = time.monotonic() - t0
    print("%-12s %10s %10s %8s %10s" % ("", "silt DV", "silt CoW", "DV/CoW", "Spark DV"))
    for what in ("DELETE", "UPDATE", "MERGE", "read before", "read after"):
        dv, cow = results[(what, "dv")], results[(what, "cow")]
        spark = results.get((what, "spark"))
        print("%-12s %9.3fs %9.3fs %7.1f%% %10s" % (what, dv, cow, 100 * dv / cow,
                                                  "%.3fs" % spark if spark else "-"))
    rb, ra = results[("read before", "dv")], results[("read after", "dv")]
    print("read after the DV DELETE vs before: %+.1f%%" % (100 * (ra - rb) / rb))


if __name__ == "__main__":
    main()
