#!/usr/bin/env python3
"""Write benchmark: the trips tutorial end to end, silt next to DuckDB.

The steps of tests/e2e/trips_tutorial.py (../shared/tutorials/001_*.txt),
timed one by one:

  ingest   2,000,000 JSON rows into a table partitioned by route_id
  csv      the same rows from CSV (header, inferSchema) into a second table
  append   20 rows with a new column (origin)
  update   destination 'Syracuse' -> 'Philadelphia'
  delete   destination = 'New Jersey'
  merge    10 rows by trip_id (5 matched and updated, 5 inserted)
  travel   count(*) at versions 0 to 4

silt runs each step as one `silt sql` process on a Delta table; the five
time-travel counts are one script (five statements, one process), as DuckDB
runs them in one connection. DuckDB has no
Delta writer, so its closest equivalent is Hive-partitioned Parquet written
with COPY ... (PARTITION_BY (route_id)) and a version list kept by this
script: an append adds files, UPDATE/DELETE/MERGE rewrite the partitions that
hold a touched row into new files (copy-on-write by partition, what a Delta
writer without statistics does), and time travel reads a version's file list.
DuckDB runs in this process with 2 threads (the machine has 2 cores); its
steps include no process start, silt's do (a few ms). Both sides' counts are
printed and compared. Each step reports wall seconds and CPU seconds (user +
system of all threads): the 2-core machine is shared, so the CPU time is the
steadier measure. A benchmark, never a test.

    .peers/venv/bin/python bench/write_bench.py [--silt build-rel/silt] [--dir /tmp/silt-wbench]
        [--rows 2000000]
"""
import argparse
import csv
import glob
import io
import os
import resource
import shutil
import subprocess
import sys
import time

import duckdb

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tests", "e2e"))
from trips_data import DEST, N_ROWS, write_csv_rows, write_inputs  # noqa: E402


class Clock:
    """Wall seconds and CPU seconds (user + system: this process's threads, or the
    children's) of a step. On a shared machine the CPU time is the steadier measure."""

    def __init__(self, children=False):
        self.who = resource.RUSAGE_CHILDREN if children else resource.RUSAGE_SELF

    def cpu(self):
        u = resource.getrusage(self.who)
        return u.ru_utime + u.ru_stime

    def __enter__(self):
        self.wall0, self.cpu0 = time.perf_counter(), self.cpu()
        return self

    def __exit__(self, *exc):
        self.wall = time.perf_counter() - self.wall0
        self.cpu_s = self.cpu() - self.cpu0


def silt_step(silt, sql, header=True):
    """One `silt sql` process; its CSV rows (without the header line unless header=False)."""
    with Clock(children=True) as c:
        proc = subprocess.run([silt, "sql", "--format", "csv", sql], capture_output=True,
                              text=True)
    if proc.returncode != 0:
        raise RuntimeError("silt failed on %r: %s" % (sql[:80], proc.stderr))
    rows = list(csv.reader(io.StringIO(proc.stdout)))
    return (c.wall, c.cpu_s), rows[1:] if header else rows


def run_silt(silt, work):
    t = "delta.`%s`" % os.path.join(work, "silt_trips")
    times, counts = {}, {}
    times["ingest"], _ = silt_step(silt, "CREATE TABLE %s USING DELTA PARTITIONED BY (route_id) "
                                   "AS SELECT * FROM json.`%s/trips.json`" % (t, work))
    times["csv"], _ = silt_step(silt, "CREATE TABLE delta.`%s` USING DELTA PARTITIONED BY "
                                "(route_id) AS SELECT * FROM read_files('%s/trips.csv', format => "
                                "'csv', header => true, inferSchema => true)"
                                % (os.path.join(work, "silt_trips_csv"), work))
    times["append"], _ = silt_step(silt, "SET spark.databricks.delta.schema.autoMerge.enabled = "
                                   "true; INSERT INTO %s BY NAME SELECT * FROM json.`%s/insert.json`"
                                   % (t, work))
    times["update"], _ = silt_step(silt, "UPDATE %s SET destination = 'Philadelphia' "
                                   "WHERE destination = 'Syracuse'" % t)
    times["delete"], _ = silt_step(silt, "DELETE FROM %s WHERE destination = 'New Jersey'" % t)
    times["merge"], _ = silt_step(silt, "MERGE INTO %s AS t USING json.`%s/merge.json` AS s ON "
                                  "t.trip_id = s.trip_id WHEN MATCHED THEN UPDATE SET * "
                                  "WHEN NOT MATCHED THEN INSERT *" % (t, work))
    # The five counts as one script in one process, as a user replaying the tutorial
    # runs them and as DuckDB runs them in one connection (until session 3: five
    # processes). With --format csv each result is its header line and its row.
    times["travel"], rows = silt_step(silt, "; ".join(
        "SELECT count(*) FROM %s VERSION AS OF %d" % (t, v) for v in range(5)), header=False)
    values = [r[0] for r in rows if r and r[0] != "count(1)"]
    if len(values) != 5:
        raise RuntimeError("silt printed %d counts for the five versions: %r" % (len(values), rows))
    for v in range(5):
        counts[v] = int(values[v])
    return times, counts


class DuckTable:
    """Hive-partitioned Parquet with a version list: version -> list of files."""

    def __init__(self, con, root):
        self.con, self.root, self.versions, self.seq = con, root, [], 0

    def _copy(self, select):
        out = os.path.join(self.root, "w%d" % self.seq)
        self.seq += 1
        self.con.execute("COPY (%s) TO '%s' (FORMAT parquet, PARTITION_BY (route_id))"
                         % (select, out))
        return sorted(glob.glob(os.path.join(out, "**", "*.parquet"), recursive=True))

    def read(self, files):
        return "read_parquet(%s, hive_partitioning = true, union_by_name = true)" % (
            "[" + ", ".join("'%s'" % f for f in files) + "]")

    def commit(self, files):
        self.versions.append(files)

    def current(self):
        return self.versions[-1]

    def part(self, f):
        return os.path.basename(os.path.dirname(f)).split("=", 1)[1]

    def rewrite(self, touched_sql, new_rows_sql):
        """Copy-on-write of the partitions touched_sql names: new_rows_sql(files) gives
        their new rows; the other partitions' files stay."""
        cur = self.current()
        touched = {r[0] for r in self.con.execute(touched_sql(self.read(cur))).fetchall()}
        old = [f for f in cur if self.part(f) in touched]
        keep = [f for f in cur if self.part(f) not in touched]
        new = self._copy(new_rows_sql(self.read(old))) if old else []
        self.commit(keep + new)


def run_duckdb(work):
    root = os.path.join(work, "duck")
    shutil.rmtree(root, ignore_errors=True)
    os.makedirs(root)
    con = duckdb.connect()
    con.execute("SET threads = 2")
    d = DuckTable(con, root)
    times, counts = {}, {}
    cols = "destination, route_id, trip_id, tstamp"

    with Clock() as c:
        d.commit(d._copy("SELECT %s FROM read_json('%s/trips.json')" % (cols, work)))
    times["ingest"] = (c.wall, c.cpu_s)

    with Clock() as c:
        con.execute("COPY (SELECT * FROM read_csv('%s/trips.csv', header = true)) TO '%s' "
                    "(FORMAT parquet, PARTITION_BY (route_id))"
                    % (work, os.path.join(root, "csv")))
    times["csv"] = (c.wall, c.cpu_s)

    with Clock() as c:
        d.commit(d.current() + d._copy("SELECT * FROM read_json('%s/insert.json')" % work))
    times["append"] = (c.wall, c.cpu_s)

    c = Clock().__enter__()
    d.rewrite(lambda src: "SELECT DISTINCT route_id FROM %s WHERE destination = 'Syracuse'" % src,
              lambda src: "SELECT * REPLACE (CASE WHEN destination = 'Syracuse' THEN "
                          "'Philadelphia' ELSE destination END AS destination) FROM %s" % src)
    c.__exit__()
    times["update"] = (c.wall, c.cpu_s)

    c = Clock().__enter__()
    d.rewrite(lambda src: "SELECT DISTINCT route_id FROM %s WHERE destination = 'New Jersey'"
                          % src,
              lambda src: "SELECT * FROM %s WHERE destination IS DISTINCT FROM 'New Jersey'" % src)
    c.__exit__()
    times["delete"] = (c.wall, c.cpu_s)

    c = Clock().__enter__()
    merge = "read_json('%s/merge.json')" % work
    d.rewrite(lambda src: "SELECT DISTINCT t.route_id FROM %s t JOIN %s s USING (trip_id) "
                          "UNION SELECT DISTINCT route_id FROM %s" % (src, merge, merge),
              lambda src: "SELECT * FROM %s t WHERE trip_id NOT IN (SELECT trip_id FROM %s) "
                          "UNION ALL BY NAME SELECT * FROM %s" % (src, merge, merge))
    c.__exit__()
    times["merge"] = (c.wall, c.cpu_s)

    with Clock() as c:
        for v in range(5):
            counts[v] = con.execute("SELECT count(*) FROM %s"
                                    % d.read(d.versions[v])).fetchone()[0]
    times["travel"] = (c.wall, c.cpu_s)
    return times, counts


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--silt", default=os.path.join(ROOT, "build-rel", "silt"))
    ap.add_argument("--dir", default="/tmp/silt-wbench")
    ap.add_argument("--rows", type=int, default=N_ROWS,
                    help="rows of the ingest (default the tutorial's 2,000,000)")
    args = ap.parse_args()
    work = args.dir
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    write_inputs(work, args.rows)
    write_csv_rows(os.path.join(work, "trips.csv"), 0, args.rows, DEST)
    # The inputs just written are still being flushed to disk; whichever engine ran
    # first paid for that writeback (silt's ingest did). Flush them before either runs.
    os.sync()

    s_times, s_counts = run_silt(args.silt, work)
    d_times, d_counts = run_duckdb(work)
    print("counts by version   silt: %s" % [s_counts[v] for v in range(5)])
    print("counts by version DuckDB: %s" % [d_counts[v] for v in range(5)])
    if s_counts != d_counts:
        print("MISMATCH between the engines' counts")
    print()
    print("| step | silt wall s | DuckDB wall s | ratio | silt CPU s | DuckDB CPU s | ratio |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    total_s, total_d = [0.0, 0.0], [0.0, 0.0]
    for step in ["ingest", "csv", "append", "update", "delete", "merge", "travel"]:
        sw, sc = s_times[step]
        dw, dc = d_times[step]
        total_s = [total_s[0] + sw, total_s[1] + sc]
        total_d = [total_d[0] + dw, total_d[1] + dc]
        print("| %s | %.2f | %.2f | %.2f | %.2f | %.2f | %.2f |"
              % (step, sw, dw, sw / dw, sc, dc, sc / max(dc, 1e-3)))
    print("| total | %.2f | %.2f | %.2f | %.2f | %.2f | %.2f |"
          % (total_s[0], total_d[0], total_s[0] / total_d[0], total_s[1], total_d[1],
             total_s[1] / total_d[1]))


if __name__ == "__main__":
    main()
