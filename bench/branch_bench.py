#!/usr/bin/env python3
"""Branch benchmark (issue 21): CREATE BRANCH and MERGE BRANCH of 100 appends on a 1,000-table
catalog, at two data sizes, next to copying the warehouse (what a branch that copies data costs).

    PYTHONPATH=build/python python3 bench/branch_bench.py [--tables 1000] [--sizes 1000,5000000]

For each size the warehouse has `--tables` empty Delta tables plus `hot`, which holds SIZE rows.
Timed in-process through the Python package (no process start in the figures), each the median
of 5 runs:
  - CREATE BRANCH (each a new name, from main);
  - MERGE BRANCH of a branch with 100 one-row appends to hot, main unmoved (fast-forward: 100
    commits published);
  - the same when main appended to hot after the fork (the branch's 100 appends become one
    rebased commit, judged by Delta's conflict rules);
  - the peer: a copy of the warehouse folder (shutil.copytree), what creating a branch costs
    when a branch copies the data.
The claim: the branch and merge figures do not grow with SIZE (the copy does).
"""
import argparse
import os
import shutil
import statistics
import sys
import tempfile
import time

import silt


def timed(fn):
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def setup(root, tables, size):
    wh = os.path.join(root, "wh-%d" % size)
    con = silt.connect(warehouse=wh)
    start = time.perf_counter()
    for k in range(tables):
        con.execute("CREATE TABLE t%04d (id BIGINT, v STRING) USING delta" % k)
    con.execute("CREATE TABLE hot USING delta AS SELECT id, CAST(id AS STRING) AS v "
                "FROM range(%d)" % size)
    return wh, con, time.perf_counter() - start


def bench_size(root, tables, size, runs):
    wh, con, setup_s = setup(root, tables, size)
    create, ff, rebased, copy = [], [], [], []
    for r in range(runs):
        create.append(timed(lambda: con.execute("CREATE BRANCH c%d" % r)))
        for kind, out in (("ff", ff), ("rb", rebased)):
            name = "%s%d" % (kind, r)
            con.execute("CREATE BRANCH %s" % name)
            con.execute("USE REFERENCE %s" % name)
            for i in range(100):
                con.execute("INSERT INTO hot VALUES (%d, 'b')" % (-1 - i))
            con.execute("USE REFERENCE main")
            if kind == "rb":
                con.execute("INSERT INTO hot VALUES (-1000, 'main')")
            out.append(timed(lambda: con.execute("MERGE BRANCH %s INTO main" % name)))
        dest = os.path.join(root, "copy-%d-%d" % (size, r))
        copy.append(timed(lambda: shutil.copytree(wh, dest)))
        shutil.rmtree(dest)
    want = size + runs * 201
    got = con.execute("SELECT count(*) FROM hot").fetchall()[0][0]
    if got != want:
        sys.exit("hot has %d rows after the merges, not %d" % (got, want))
    return {"setup_s": setup_s, "create": statistics.median(create),
            "ff": statistics.median(ff), "rebased": statistics.median(rebased),
            "copy": statistics.median(copy)}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--tables", type=int, default=1000)
    ap.add_argument("--sizes", default="1000,5000000")
    ap.add_argument("--runs", type=int, default=5)
    args = ap.parse_args()
    root = tempfile.mkdtemp(prefix="branch-bench-")
    try:
        print("%d tables + hot; medians of %d runs; ms" % (args.tables, args.runs))
        print("%10s %10s %12s %14s %10s %12s %s" % ("hot rows", "CREATE BR", "MERGE ff100",
                                                   "MERGE rebased", "copy wh", "create/copy",
                                                   "(setup s)"))
        for size in [int(s) for s in args.sizes.split(",")]:
            m = bench_size(root, args.tables, size, args.runs)
            print("%10d %10.2f %12.2f %14.2f %10.2f %12.4f (%.1f)" % (
                size, m["create"] * 1e3, m["ff"] * 1e3, m["rebased"] * 1e3, m["copy"] * 1e3,
                m["create"] / m["copy"], m["setup_s"]))
            sys.stdout.flush()
    finally:
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
