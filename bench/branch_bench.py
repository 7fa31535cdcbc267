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
  - the peer: a copy of hot's folder (shutil.copytree), what creating a branch costs when a
    branch copies the data (of one table only: a lower bound).
The sizes are set up first and then measured in turns (run 1 of each size, run 2 of each, ...)
so that the load of a shared machine weighs on both alike.
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


def one_run(con, wh, root, size, r, m):
    m["create"].append(timed(lambda: con.execute("CREATE BRANCH c%d" % r)))
    for kind in ("ff", "rebased"):
        name = "%s%d" % (kind[:2], r)
        con.execute("CREATE BRANCH %s" % name)
        con.execute("USE REFERENCE %s" % name)
        for i in range(100):
            con.execute("INSERT INTO hot VALUES (%d, 'b')" % (-1 - i))
        con.execute("USE REFERENCE main")
        if kind == "rebased":
            con.execute("INSERT INTO hot VALUES (-1000, 'main')")
        m[kind].append(timed(lambda: con.execute("MERGE BRANCH %s INTO main" % name)))
    dest = os.path.join(root, "copy-%d-%d" % (size, r))
    m["copy"].append(timed(lambda: shutil.copytree(os.path.join(wh, "hot"), dest)))
    shutil.rmtree(dest)


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
                                                   "MERGE rebased", "copy hot", "create/copy",
                                                   "(setup s)"))
        sizes = [int(s) for s in args.sizes.split(",")]
        setups = [setup(root, args.tables, size) for size in sizes]
        runs = [{"create": [], "ff": [], "rebased": [], "copy": []} for _ in sizes]
        for r in range(args.runs):  # the sizes alternate, so the machine's load hits both alike
            for k, size in enumerate(sizes):
                one_run(setups[k][1], setups[k][0], root, size, r, runs[k])
        for k, size in enumerate(sizes):
            m = {key: statistics.median(v) for key, v in runs[k].items()}
            want = size + args.runs * 201
            got = setups[k][1].execute("SELECT count(*) FROM hot").fetchall()[0][0]
            if got != want:
                sys.exit("hot has %d rows after the merges, not %d" % (got, want))
            print("%10d %10.2f %12.2f %14.2f %10.2f %12.4f (%.1f)" % (
                size, m["create"] * 1e3, m["ff"] * 1e3, m["rebased"] * 1e3, m["copy"] * 1e3,
                m["create"] / m["copy"], setups[k][2]))
    finally:
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
