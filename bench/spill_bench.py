#!/usr/bin/env python3
"""Spilling benchmark: a large sort, a high-cardinality GROUP BY, a big
join, a window over many partitions, a ROLLUP and a cross join, each run
by `silt sql` once with a small memory_limit (so it spills to disk) and
once with a large one (in memory), reporting wall time and the peak RSS
of the silt process, and checking that both answers are equal.

    bench/spill_bench.py [--silt build-rel/silt] [--rows 2000000]
                         [--small 64MB] [--large 8GB] [--temp DIR]

A benchmark, never a test: numbers go to docs/benchmarks.md ("Spilling").
The data comes from range(), so only the operators under test (and the
spill files) are measured, not a file reader.
"""
import argparse
import os
import subprocess
import sys
import tempfile
import time


def queries(rows):
    groups = rows // 2
    return [
        ("sort", f"SELECT max(r) AS hi, min(r) AS lo, count(*) AS n FROM "
                 f"(SELECT id, id * 7919 % {rows * 3 + 1} AS r FROM range({rows}) ORDER BY r)"),
        ("group-by", f"SELECT count(*) AS groups, sum(n) AS rows FROM "
                     f"(SELECT id * 7919 % {groups} AS k, count(*) AS n, max(id) AS m "
                     f"FROM range({rows}) GROUP BY id * 7919 % {groups})"),
        ("join", f"SELECT count(*) AS pairs, sum(b.id) AS s FROM range({rows}) a "
                 f"JOIN range({rows}) b ON a.id = b.id * 2"),
        ("window", f"SELECT count(*) AS n, sum(rn) AS rn, sum(s) AS s FROM "
                   f"(SELECT row_number() OVER (PARTITION BY id % {groups} ORDER BY id DESC) AS rn, "
                   f"sum(id) OVER (PARTITION BY id % {groups} ORDER BY id) AS s "
                   f"FROM range({rows}))"),
        ("rollup", f"SELECT count(*) AS groups, sum(n) AS rows FROM "
                   f"(SELECT id * 7919 % {groups} AS k, id % 10 AS d, count(*) AS n "
                   f"FROM range({rows}) GROUP BY ROLLUP(id * 7919 % {groups}, id % 10))"),
        # a build side of rows / 4 wide rows, crossed with 20 rows: the blocks re-read those 20
        ("cross-join", f"SELECT count(*) AS pairs, sum(a.id + b.id) AS s, sum(length(b.t)) AS t "
                       f"FROM range(20) a CROSS JOIN (SELECT id, repeat('x', id % 100) AS t "
                       f"FROM range({rows // 4})) b"),
    ]


def run_measured(silt, sql, limit, temp):
    """Runs one statement; (seconds, peak RSS MiB of that silt process, last output line)."""
    text = f"SET memory_limit = '{limit}'; SET temp_directory = '{temp}'; {sql}"
    start = time.monotonic()
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        pid = os.posix_spawn(silt, [silt, "sql", "--format", "csv", text], os.environ,
                             file_actions=[(os.POSIX_SPAWN_DUP2, out.fileno(), 1),
                                           (os.POSIX_SPAWN_DUP2, err.fileno(), 2)])
        _, status, usage = os.wait4(pid, 0)
        seconds = time.monotonic() - start
        out.seek(0)
        err.seek(0)
        if os.waitstatus_to_exitcode(status) != 0:
            sys.exit(f"silt failed with memory_limit {limit}: {err.read().decode().strip()}")
        answer = out.read().decode().strip().splitlines()[-1]
    return seconds, usage.ru_maxrss / 1024.0, answer


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--silt", default="build-rel/silt")
    ap.add_argument("--rows", type=int, default=2_000_000)
    ap.add_argument("--small", default="64MB", help="the memory_limit that makes queries spill")
    ap.add_argument("--large", default="8GB", help="a memory_limit with room for everything")
    ap.add_argument("--temp", default=None, help="temp_directory (default: a fresh folder)")
    args = ap.parse_args()
    silt = os.path.abspath(args.silt)
    temp = args.temp or tempfile.mkdtemp(prefix="silt-spill-bench-")
    print(f"{args.rows:,} rows; memory_limit {args.small} (spilling) vs {args.large}; "
          f"temp_directory {temp}")
    print(f"| query | limit | wall s | peak RSS MiB | answer |")
    print(f"| --- | --- | --- | --- | --- |")
    for name, sql in queries(args.rows):
        answers = []
        for limit in (args.large, args.small):
            seconds, rss, answer = run_measured(silt, sql, limit, temp)
            answers.append(answer)
            print(f"| {name} | {limit} | {seconds:.2f} | {rss:.0f} | {answer} |", flush=True)
        if answers[0] != answers[1]:
            sys.exit(f"{name}: answers differ: {answers[0]} vs {answers[1]}")
        left = os.listdir(temp)
        if left:
            sys.exit(f"{name}: spill files left in {temp}: {left[:5]}")
    print("answers equal; temp_directory empty after every query")


if __name__ == "__main__":
    main()
