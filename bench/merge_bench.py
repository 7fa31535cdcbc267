#!/usr/bin/env python3
"""MERGE benchmark: wall time and peak memory of an upsert, silt next to DuckDB.

A 10,000,000-row target (id BIGINT, grp BIGINT, amount DOUBLE) and a
1,000,000-row source as Parquet: half of the source ids exist in the target,
spread over its whole id range (id * 20, so every target file holds matches
and is rewritten: the worst case for memory), the other half are new. The
statement is the usual upsert:

    MERGE INTO target t USING source s ON t.id = s.id
    WHEN MATCHED THEN UPDATE SET * WHEN NOT MATCHED THEN INSERT *

silt runs it with `silt sql` on a Delta table it wrote with CTAS; DuckDB (the
closest equivalent: its own MERGE INTO on a table in a database file, since it
has no Delta writer) runs it in a fresh process on a copy of a database file
holding the same target. Each MERGE runs in its own process, so peak RSS
(ru_maxrss of the child) is the MERGE's memory plus the process's baseline;
CPU seconds (user + system) are the steadier measure on a shared machine.
Both targets are checked afterwards: same row count and sum of amount.

With --threads 1,2 it then times silt alone on 1 and on 2 threads (`silt sql
--threads N`, each statement on a fresh copy of the target): the MERGE above,
an UPDATE and a DELETE that rewrite every file (id % 10 = 0 / = 1), with the
speed-up of 2 threads over 1 per statement. On a loaded machine the wall
speed-up says little; CPU seconds show whether the second thread added work.
--perf-split also records each run with `perf record -e task-clock` and prints
the CPU time of its busiest thread: one thread's total over the busiest
thread's time on 2 is the speed-up an idle machine would show (the critical
path), whatever the load.

A benchmark, never a test: nothing fails on a time.

    .peers/venv/bin/python bench/merge_bench.py [--silt build-rel/silt]
        [--rows 10000000] [--source-rows 1000000] [--dir /tmp/silt-mbench]
        [--threads 1,2] [--perf-split] [--no-duckdb]
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

DUCK_MERGE = """
import duckdb, sys
con = duckdb.connect(sys.argv[1])
con.execute("SET threads=2")
con.execute("MERGE INTO target t USING read_parquet('%s') s ON t.id = s.id "
            "WHEN MATCHED THEN UPDATE SET grp = s.grp, amount = s.amount "
            "WHEN NOT MATCHED THEN INSERT VALUES (s.id, s.grp, s.amount)" % sys.argv[2])
con.execute("CHECKPOINT")
print(con.execute("SELECT count(*), sum(amount) FROM target").fetchone())
"""


def run_measured(cmd):
    """Runs cmd; returns (wall seconds, CPU seconds (user + system), peak RSS in MiB,
    stdout). GNU time reports the child's rusage: rusage taken here would count this
    Python process's memory, which the child shares until its exec (vfork). Raises on
    failure."""
    with tempfile.NamedTemporaryFile("r") as report:
        start = time.perf_counter()
        proc = subprocess.run(["/usr/bin/time", "-f", "%M %U %S", "-o", report.name, *cmd],
                              capture_output=True, text=True)
        seconds = time.perf_counter() - start
        fields = report.read().split()
    if proc.returncode != 0:
        raise RuntimeError("%s failed: %s" % (cmd[0], proc.stderr.strip()[-500:]))
    rss_kib, user, system = int(fields[-3]), float(fields[-2]), float(fields[-1])
    return seconds, user + system, rss_kib / 1024.0, proc.stdout


def make_source(path, target_rows, source_rows):
    half = source_rows // 2
    step = max(1, target_rows // half)
    matched = pc.multiply(pa.array(range(half), pa.int64()), step)
    new = pa.array(range(target_rows, target_rows + source_rows - half), pa.int64())
    ids = pa.concat_arrays([matched, new])
    table = pa.table({"id": ids, "grp": pc.remainder(ids, 1000),
                      "amount": pc.cast(pc.remainder(ids, 977), pa.float64())})
    pq.write_table(table, path)


def merge_files(table):
    """numTargetFilesRemoved and numTargetFilesAdded of the table's last commit."""
    log = os.path.join(table, "_delta_log")
    last = sorted(f for f in os.listdir(log) if f.endswith(".json"))[-1]
    with open(os.path.join(log, last)) as f:
        for line in f:
            info = json.loads(line).get("commitInfo")
            if info:
                m = info.get("operationMetrics", {})
                return "%s, %s" % (m.get("numTargetFilesRemoved"), m.get("numTargetFilesAdded"))
    return "?"


def silt_sql(silt, text, threads=None):
    flags = ["--threads", str(threads)] if threads is not None else []
    return run_measured([silt, "sql", "--format", "csv", *flags, text])


def busiest_thread_ms(silt, text, threads, d):
    """CPU ms of the run's busiest thread and of all its threads, from perf's task-clock
    samples per thread (`perf report -s pid` sorts by thread)."""
    data = os.path.join(d, "split.perf")
    subprocess.run(["perf", "record", "-q", "-e", "task-clock", "-o", data, silt, "sql",
                    "--threads", str(threads), text], check=True, capture_output=True)
    rep = subprocess.run(["perf", "report", "-i", data, "-s", "pid", "--stdio", "-n",
                          "-F", "sample,pid"], check=True, capture_output=True, text=True).stdout
    counts = [int(line.split()[0]) for line in rep.splitlines()
              if line.strip() and not line.startswith("#")]
    rate = 4000.0  # perf's default sampling frequency: a task-clock sample is 0.25 ms
    return max(counts) / rate * 1000, sum(counts) / rate * 1000


def thread_scaling(args, target, source, counts):
    """Each statement on a fresh copy of target, once per thread count; prints a table."""
    steps = [
        ("MERGE upsert", "MERGE INTO delta.`{t}` t USING parquet.`%s` s ON t.id = s.id "
         "WHEN MATCHED THEN UPDATE SET * WHEN NOT MATCHED THEN INSERT *" % source),
        ("UPDATE every file", "UPDATE delta.`{t}` SET amount = amount + 1 WHERE id % 10 = 0"),
        ("DELETE every file", "DELETE FROM delta.`{t}` WHERE id % 10 = 1"),
    ]
    copy = target + "-copy"
    print()
    print("silt on 1 and 2 threads (%d target rows):" % args.rows)
    print("| statement | threads | wall s | CPU s | peak RSS MiB | result |")
    print("| --- | --- | --- | --- | --- | --- |")
    for name, text in steps:
        walls = {}
        for n in counts:
            shutil.rmtree(copy, ignore_errors=True)
            shutil.copytree(target, copy)
            secs, cpu, rss, out = silt_sql(args.silt, text.replace("{t}", copy), n)
            walls[n] = secs
            print("| %s | %d | %.1f | %.1f | %.0f | %s |"
                  % (name, n, secs, cpu, rss, " ".join(out.split()[1:])))
        if 1 in walls and 2 in walls:
            print("| %s | 2 over 1 | %.2fx | | | |" % (name, walls[1] / walls[2]))
        if args.perf_split:
            busy = {}
            for n in counts:
                shutil.rmtree(copy, ignore_errors=True)
                shutil.copytree(target, copy)
                busy[n], total = busiest_thread_ms(args.silt, text.replace("{t}", copy), n,
                                                   args.dir)
                print("| %s | %d | busiest thread %.0f ms of %.0f ms CPU | | | |"
                      % (name, n, busy[n], total))
            if 1 in busy and 2 in busy:
                print("| %s | 2 over 1 | %.2fx (critical path) | | | |"
                      % (name, busy[1] / busy[2]))
    shutil.rmtree(copy, ignore_errors=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--silt", default=os.path.join(ROOT, "build-rel", "silt"))
    ap.add_argument("--rows", type=int, default=10_000_000)
    ap.add_argument("--source-rows", type=int, default=1_000_000)
    ap.add_argument("--dir", default="/tmp/silt-mbench")
    ap.add_argument("--threads", default="", help="e.g. 1,2: silt alone on these thread counts")
    ap.add_argument("--perf-split", action="store_true",
                    help="with --threads: the busiest thread's CPU time, from perf")
    ap.add_argument("--no-duckdb", action="store_true", help="skip the DuckDB comparison")
    args = ap.parse_args()
    d = args.dir
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    source = os.path.join(d, "source.parquet")
    make_source(source, args.rows, args.source_rows)
    target = os.path.join(d, "target")
    create = ("CREATE TABLE delta.`%s` USING DELTA AS SELECT id, id %% 1000 AS grp, "
              "CAST(id %% 1013 AS DOUBLE) AS amount FROM range(%d)" % (target, args.rows))
    secs, cpu, rss, _ = silt_sql(args.silt, create)
    print("setup: silt CTAS of %d rows %.1f s (CPU %.1f s), %.0f MiB" % (args.rows, secs, cpu, rss))
    if args.threads:
        thread_scaling(args, target, source, [int(n) for n in args.threads.split(",")])
    if args.no_duckdb:
        return

    import duckdb
    duck_base = os.path.join(d, "base.duckdb")
    con = duckdb.connect(duck_base)
    con.execute("CREATE TABLE target AS SELECT range AS id, range %% 1000 AS grp, "
                "CAST(range %% 1013 AS DOUBLE) AS amount FROM range(%d)" % args.rows)
    con.close()

    merge = ("MERGE INTO delta.`%s` t USING parquet.`%s` s ON t.id = s.id "
             "WHEN MATCHED THEN UPDATE SET * WHEN NOT MATCHED THEN INSERT *" % (target, source))
    s_secs, s_cpu, s_rss, s_out = silt_sql(args.silt, merge)
    _, _, _, s_check = silt_sql(args.silt, "SELECT count(*), sum(amount) FROM delta.`%s`" % target)
    s_files = merge_files(target)

    duck_db = os.path.join(d, "merge.duckdb")
    shutil.copy(duck_base, duck_db)
    d_secs, d_cpu, d_rss, d_out = run_measured([sys.executable, "-c", DUCK_MERGE, duck_db, source])

    print("silt MERGE result:", " ".join(s_out.split()))
    print("silt target files removed, added:", s_files)
    print("silt after: count, sum(amount):", " ".join(s_check.split()[1:]))
    print("DuckDB after: count, sum(amount):", d_out.strip())
    print()
    print("MERGE of %d source rows into %d target rows:" % (args.source_rows, args.rows))
    print("| engine | wall s | CPU s | peak RSS MiB |")
    print("| --- | --- | --- | --- |")
    print("| silt (Delta) | %.1f | %.1f | %.0f |" % (s_secs, s_cpu, s_rss))
    print("| DuckDB (native table) | %.1f | %.1f | %.0f |" % (d_secs, d_cpu, d_rss))
    print("ratio silt/DuckDB: wall %.2f, CPU %.2f, memory %.2f"
          % (s_secs / d_secs, s_cpu / d_cpu, s_rss / d_rss))


if __name__ == "__main__":
    main()
