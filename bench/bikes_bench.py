#!/usr/bin/env python3
"""The city-bike shape (issue 16): silt against DuckDB and Polars on data we did not tune for.

Generates CSV files shaped like the tutorials' city-bike trips (13 columns,
timestamps like `2019-04-02 08:05:25.330000+00:00`, quoted names with commas
and quotes, UTF-8, coordinates with six decimals) in /tmp/silt-bikes (reused
when present), a JSON-lines copy, and a Delta table that silt writes with
CTAS, then runs each workload with every engine on 2 threads, best of N:
silt as a `silt sql` process (its start-up, about 2 ms, is measured and
subtracted), DuckDB and Polars in this process (their engine time only).
Answers are compared (rounded); a mismatch is printed. A benchmark, never a
test: nothing fails on a time.

    .peers/venv/bin/python bench/bikes_bench.py [--silt build/silt] [--rows 2100000] [--runs 3]
"""
import argparse
import csv
import json
import os
import random
import subprocess
import sys
import time

import duckdb

try:
    import polars as pl
except ImportError:  # Polars is optional: the table then has no Polars column
    pl = None

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
COLUMNS = ["started_at", "ended_at", "duration", "start_station_id", "start_station_name",
           "start_station_description", "start_station_latitude", "start_station_longitude",
           "end_station_id", "end_station_name", "end_station_description",
           "end_station_latitude", "end_station_longitude"]
NAMES = ["Aker Brygge", "Bjørvika, øst", "Vår Frelsers gravlund", 'Torggata "Blå"',
         "Jernbanetorget", "Alexander Kiellands plass", "Frognerparken, hovedinngang"]
SCHEMA = ("started_at TIMESTAMP, ended_at TIMESTAMP, duration INT, start_station_id INT, "
          "start_station_name STRING, start_station_description STRING, "
          "start_station_latitude DOUBLE, start_station_longitude DOUBLE, end_station_id INT, "
          "end_station_name STRING, end_station_description STRING, "
          "end_station_latitude DOUBLE, end_station_longitude DOUBLE")


def generate(d, rows, n_files):
    stamp = os.path.join(d, "rows")
    if os.path.exists(stamp) and open(stamp).read().strip() == f"{rows}/{n_files}":
        return
    os.makedirs(os.path.join(d, "csv"), exist_ok=True)
    os.makedirs(os.path.join(d, "json"), exist_ok=True)
    subprocess.run(["rm", "-rf", os.path.join(d, "delta")], check=True)
    rnd = random.Random(16)
    per_file = rows // n_files
    for n in range(n_files):
        year, month = 2019 + n // 12, n % 12 + 1
        with open(os.path.join(d, "csv", f"{year}-{month:02d}.csv"), "w", newline="") as f, \
                open(os.path.join(d, "json", f"{year}-{month:02d}.json"), "w") as j:
            w = csv.writer(f, lineterminator="\n")
            w.writerow(COLUMNS)
            for _ in range(per_file):
                day, hour = rnd.randint(1, 28), rnd.randint(0, 22)
                minute, second, frac = rnd.randint(0, 59), rnd.randint(0, 59), rnd.randint(0, 999999)
                a, b = rnd.randint(300, 2400), rnd.randint(300, 2400)
                na, nb = rnd.choice(NAMES), rnd.choice(NAMES)
                row = [f"{year}-{month:02d}-{day:02d} {hour:02d}:{minute:02d}:{second:02d}.{frac:06d}+00:00",
                       f"{year}-{month:02d}-{day:02d} {hour + 1:02d}:{minute:02d}:{second:02d}."
                       f"{frac * 7 % 1000000:06d}+00:00",
                       rnd.randint(61, 7200), a, f"{na} {a}", f"ved {na.lower()}",
                       f"{59.9 + a / 100000:.6f}", f"{10.7 + a / 100000:.6f}", b, f"{nb} {b}",
                       f"ved {nb.lower()}", f"{59.9 + b / 100000:.6f}", f"{10.7 + b / 100000:.6f}"]
                w.writerow(row)
                j.write(json.dumps({"started_at": row[0], "duration": row[2],
                                    "start_station_id": a, "start_station_name": row[4],
                                    "start_station_latitude": float(row[6])},
                                   ensure_ascii=False) + "\n")
    open(stamp, "w").write(f"{rows}/{n_files}")


def run_silt(silt, sql, threads=2):
    t = time.perf_counter()
    p = subprocess.run([silt, "sql", "--threads", str(threads), "--format", "csv", sql],
                       capture_output=True, text=True)
    elapsed = time.perf_counter() - t
    if p.returncode != 0:
        raise RuntimeError(f"silt failed: {p.stderr.strip()}")
    lines = p.stdout.strip().split("\n")[1:]
    return elapsed, [tuple(line.split(",")) for line in lines]


def best(fn, runs):
    times, answer = [], None
    for _ in range(runs):
        t, answer = fn()
        times.append(t)
    return min(times), answer


def timed(fn):
    t = time.perf_counter()
    rows = fn()
    return time.perf_counter() - t, rows


def norm(rows):
    out = []
    for r in rows:
        cells = []
        for v in r:
            try:
                f = float(v)
                cells.append(round(f, 3))
            except (TypeError, ValueError):
                cells.append(str(v))
        out.append(tuple(cells))
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--silt", default=os.path.join(ROOT, "build", "silt"))
    ap.add_argument("--rows", type=int, default=2_100_000)
    ap.add_argument("--files", type=int, default=15)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--dir", default="/tmp/silt-bikes")
    args = ap.parse_args()
    d = args.dir
    generate(d, args.rows, args.files)
    csv_dir, json_dir, delta = os.path.join(d, "csv"), os.path.join(d, "json"), os.path.join(d, "delta")
    if not os.path.exists(os.path.join(delta, "_delta_log")):
        run_silt(args.silt, f"CREATE TABLE delta.`{delta}` USING delta AS SELECT * FROM "
                 f"read_files('{csv_dir}', format => 'csv', header => true, inferSchema => true)")
    startup = best(lambda: run_silt(args.silt, "SELECT 1"), 5)[0]
    con = duckdb.connect()
    con.sql("SET threads = 2")
    os.environ["POLARS_MAX_THREADS"] = "2"
    rf = f"read_files('{csv_dir}', format => 'csv', header => true"
    dcsv = f"read_csv('{csv_dir}/*.csv', header = true"
    work = [
        ("CSV, inferSchema: count, sum(duration)",
         f"SELECT count(*), sum(duration) FROM {rf}, inferSchema => true)",
         f"SELECT count(*), sum(duration) FROM {dcsv})",
         lambda: pl.scan_csv(f"{csv_dir}/*.csv").select(pl.len(), pl.col("duration").sum())),
        ("CSV, given schema: count, sum(duration)",
         f"SELECT count(*), sum(duration) FROM {rf}, schema => '{SCHEMA}')",
         f"SELECT count(*), sum(duration) FROM {dcsv}, columns = {{'started_at': 'TIMESTAMPTZ', "
         "'ended_at': 'TIMESTAMPTZ', 'duration': 'INT', 'start_station_id': 'INT', "
         "'start_station_name': 'VARCHAR', 'start_station_description': 'VARCHAR', "
         "'start_station_latitude': 'DOUBLE', 'start_station_longitude': 'DOUBLE', "
         "'end_station_id': 'INT', 'end_station_name': 'VARCHAR', "
         "'end_station_description': 'VARCHAR', 'end_station_latitude': 'DOUBLE', "
         "'end_station_longitude': 'DOUBLE'})",
         None),
        ("CSV, inferSchema: avg latitude by start station, top 5",
         f"SELECT start_station_id, round(avg(start_station_latitude), 4) AS l, count(*) AS n "
         f"FROM {rf}, inferSchema => true) GROUP BY start_station_id ORDER BY n DESC, "
         "start_station_id LIMIT 5",
         f"SELECT start_station_id, round(avg(start_station_latitude), 4) AS l, count(*) AS n "
         f"FROM {dcsv}) GROUP BY start_station_id ORDER BY n DESC, start_station_id LIMIT 5",
         None),
        ("Delta: top 10 by duration, all columns",
         f"SELECT duration, start_station_id, end_station_id FROM (SELECT * FROM "
         f"delta.`{delta}` ORDER BY duration DESC, started_at LIMIT 10) ORDER BY duration DESC, "
         "started_at",
         f"SELECT duration, start_station_id, end_station_id FROM (SELECT * FROM "
         f"read_parquet('{delta}/*.parquet') ORDER BY duration DESC, started_at LIMIT 10) "
         "ORDER BY duration DESC, started_at",
         lambda: pl.scan_parquet(f"{delta}/*.parquet").sort(["duration", "started_at"],
                                                            descending=[True, False]).head(10)
         .select("duration", "start_station_id", "end_station_id")),
        ("Delta: count(DISTINCT start_station_id)",
         f"SELECT count(DISTINCT start_station_id) FROM delta.`{delta}`",
         f"SELECT count(DISTINCT start_station_id) FROM read_parquet('{delta}/*.parquet')",
         lambda: pl.scan_parquet(f"{delta}/*.parquet").select(pl.col("start_station_id").n_unique())),
        ("JSON lines: count, max(duration)",
         f"SELECT count(*), max(duration) FROM json.`{json_dir}`",
         f"SELECT count(*), max(duration) FROM read_json('{json_dir}/*.json')",
         lambda: pl.scan_ndjson(f"{json_dir}/*.json").select(pl.len(), pl.col("duration").max())),
    ]
    print(f"rows {args.rows}, files {args.files}, silt start-up {startup * 1000:.1f} ms "
          "(subtracted)")
    print(f"{'workload':58s} {'silt s':>8s} {'duckdb s':>9s} {'polars s':>9s} {'ratio':>6s}")
    for name, silt_sql, duck_sql, polars_q in work:
        ts, sa = best(lambda: run_silt(args.silt, silt_sql), args.runs)
        ts = max(ts - startup, 1e-6)
        td = tp = None
        da = pa_ = None
        # The Delta table holds only CTAS's adds, so its Parquet files are its rows.
        td, da = best(lambda: timed(lambda: con.sql(duck_sql).fetchall()), args.runs)
        if pl is not None and polars_q is not None:
            tp, pa_ = best(lambda: timed(lambda: polars_q().collect().rows()), args.runs)
        peers = [t for t in (td, tp) if t is not None]
        ratio = ts / min(peers) if peers else float("nan")
        flag = ""
        for other in (da, pa_):
            if other is not None and norm(other) != norm(sa):
                flag = f"  MISMATCH silt {sa[:3]} peer {other[:3]}"
        fmt = lambda t: f"{t:9.3f}" if t is not None else f"{'-':>9s}"
        print(f"{name:58s} {ts:8.3f} {fmt(td)} {fmt(tp)} {ratio:6.2f}{flag}")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
