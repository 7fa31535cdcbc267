#!/usr/bin/env python3
"""Query benchmark: silt (`silt sql` process) against DuckDB (in-process).

Generates a 5,000,000-row trips table as Parquet (and a Delta copy written by
silt itself with CTAS) plus a 10-row routes table in /tmp/silt-qbench (reused
when present), then runs the same queries with both engines, best of N runs,
and prints query, silt seconds, DuckDB seconds and the ratio. Both answers are
compared (rows normalised, floats rounded) and MISMATCH is printed when they
differ. A benchmark, never a test: nothing fails on a time.

    .peers/venv/bin/python bench/query_bench.py [--silt build/silt] [--runs 3]
"""
import argparse
import csv
import io
import math
import os
import resource
import shutil
import subprocess
import sys
import time

import duckdb
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CITIES = ["Boston", "Chicago", "Denver", "Houston", "Miami",
          "New York", "Phoenix", "Portland", "San Diego", "Seattle"]


def generate(d, rows):
    trips = os.path.join(d, "trips.parquet")
    routes = os.path.join(d, "routes.parquet")
    stamp = os.path.join(d, "rows")
    if os.path.exists(stamp) and open(stamp).read().strip() == str(rows) \
            and os.path.exists(trips) and os.path.exists(routes):
        return trips, routes
    os.makedirs(d, exist_ok=True)
    # a Delta copy of older data would no longer match
    shutil.rmtree(os.path.join(d, "trips_delta"), ignore_errors=True)
    t0 = time.time()
    i = pa.array(range(rows), pa.int64())
    ten = pa.scalar(10, pa.int64())
    route_idx = pc.remainder(i, ten)
    # destination is not a function of route_id: mixes i and i // 10
    dest_idx = pc.remainder(pc.add(pc.multiply(i, 7), pc.divide(i, ten)), ten)
    # 10,000 distinct fares, spread over the rows
    fare = pc.add(pc.divide(pc.cast(pc.remainder(pc.multiply(i, 7919), 10000), pa.float64()),
                            100.0), 2.5)
    base = 1704067200 * 1_000_000  # 2024-01-01 00:00:00 UTC, microseconds
    tstamp = pc.cast(pc.add(pc.multiply(i, 7_000_000), base), pa.timestamp("us", tz="UTC"))
    letters = pa.array([chr(65 + k) for k in range(10)])
    table = pa.table({
        "trip_id": i,
        "tstamp": tstamp,
        "route_id": pc.take(letters, route_idx),
        "destination": pc.take(pa.array(CITIES), dest_idx),
        "fare": fare,
    })
    pq.write_table(table, trips, row_group_size=1_000_000)
    pq.write_table(pa.table({"route_id": letters,
                             "name": pa.array(["Route " + chr(65 + k) for k in range(10)])}),
                   routes)
    with open(stamp, "w") as f:
        f.write(str(rows))
    print(f"generated {rows:,} rows in {time.time() - t0:.1f} s", file=sys.stderr)
    return trips, routes


def children_cpu():
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


# CPU seconds (user + sys, all threads) of the last run_silt / duck run: on a shared,
# loaded machine CPU time says more than wall time.
LAST_CPU = [0.0]


def run_silt(silt, sql, threads):
    """Runs `silt sql`; returns (wall seconds, stdout). Raises on failure."""
    cmd = [silt, "sql", "--format", "csv", "--max-rows", "100000000",
           "--threads", str(threads), sql]
    c0 = children_cpu()
    t0 = time.perf_counter()
    p = subprocess.run(cmd, capture_output=True, text=True)
    t = time.perf_counter() - t0
    LAST_CPU[0] = children_cpu() - c0
    if p.returncode != 0:
        raise RuntimeError(f"silt exit {p.returncode}: {p.stderr.strip()}")
    return t, p.stdout


def make_delta(silt, d, trips, threads):
    delta = os.path.join(d, "trips_delta")
    if os.path.isdir(os.path.join(delta, "_delta_log")):
        return delta
    sql = (f"CREATE TABLE delta.`{delta}` USING DELTA PARTITIONED BY (route_id) "
           f"AS SELECT * FROM parquet.`{trips}`")
    t, _ = run_silt(silt, sql, threads)
    print(f"silt CTAS into {delta}: {t:.1f} s", file=sys.stderr)
    return delta


def queries(src, routes):
    return [
        ("scan-aggregate",
         f"SELECT sum(fare), avg(fare) FROM {src}"),
        ("filter-count",
         f"SELECT count(*) FROM {src} WHERE destination = 'Boston'"),
        ("group-by",
         f"SELECT destination, count(*), sum(fare) FROM {src} GROUP BY destination"),
        ("count distinct",
         f"SELECT count(DISTINCT fare) FROM {src}"),
        ("join + group-by",
         f"SELECT r.name, count(*), sum(t.fare) FROM {src} t "
         f"JOIN {routes} r ON t.route_id = r.route_id GROUP BY r.name"),
        ("top-N",
         f"SELECT trip_id, fare FROM {src} ORDER BY fare DESC, trip_id LIMIT 10"),
        ("window rn <= 3",
         f"SELECT route_id, trip_id, rn FROM (SELECT route_id, trip_id, "
         f"row_number() OVER (PARTITION BY route_id ORDER BY tstamp) AS rn FROM {src}) "
         f"WHERE rn <= 3"),
        ("window sum",
         f"SELECT route_id, count(*), max(s), sum(s) FROM (SELECT route_id, "
         f"sum(fare) OVER (PARTITION BY route_id ORDER BY tstamp) AS s FROM {src}) "
         f"GROUP BY route_id"),
    ]


def norm_cell(v):
    if v is None or v == "" or v == "NULL" or v == "null":
        return None
    try:
        f = float(v)
    except (TypeError, ValueError):
        return str(v)
    if f == int(f) and abs(f) < 2**53:
        return int(f)
    return float(f"{f:.9g}")


def norm_rows(rows, ordered):
    out = [tuple(norm_cell(c) for c in r) for r in rows]
    return out if ordered else sorted(out, key=repr)


def same_cell(a, b):
    """Equal, or numbers within a relative 1e-8: sums of doubles added in
    another order differ in their last digits, and rounding both to 9 digits
    still splits a pair that straddles a rounding boundary, by one step of
    the 9th digit (up to 1e-8 of the value: 262594838500 went to ...838000
    and ...839000)."""
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return math.isclose(a, b, rel_tol=1e-8, abs_tol=1e-9)
    return a == b


def same_rows(x, y, ordered):
    x, y = norm_rows(x, ordered), norm_rows(y, ordered)
    return len(x) == len(y) and all(
        len(r) == len(q) and all(same_cell(a, b) for a, b in zip(r, q)) for r, q in zip(x, y))


def silt_rows(text):
    rows = list(csv.reader(io.StringIO(text)))
    return rows[1:]  # header


def best(fn, runs, cpu_out=None):
    """Best wall time of runs; cpu_out (a list) gets the best CPU time of the runs."""
    times, cpus, result = [], [], None
    for _ in range(runs):
        t, result = fn()
        times.append(t)
        cpus.append(LAST_CPU[0])
    if cpu_out is not None:
        cpu_out.append(min(cpus))
    return min(times), result


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--silt", default=os.path.join(ROOT, "build", "silt"))
    ap.add_argument("--dir", default="/tmp/silt-qbench")
    ap.add_argument("--rows", type=int, default=5_000_000)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--no-delta", action="store_true", help="skip the Delta copy")
    args = ap.parse_args()

    trips, routes = generate(args.dir, args.rows)
    delta = None
    if not args.no_delta:
        try:
            delta = make_delta(args.silt, args.dir, trips, args.threads)
        except RuntimeError as e:
            print(f"silt CTAS failed: {e}", file=sys.stderr)

    con = duckdb.connect()
    con.execute(f"SET threads={args.threads}")

    # silt's start-up, snapshot-free: a trivial query's process time.
    cpu_trivial = []
    t_trivial, _ = best(lambda: run_silt(args.silt, "SELECT 1", args.threads), args.runs,
                        cpu_trivial)

    pq_src = f"parquet.`{trips}`"
    rt_src = f"parquet.`{routes}`"
    dq = queries(f"read_parquet('{trips}')", f"read_parquet('{routes}')")
    sq = queries(pq_src, rt_src)
    dl = queries(f"delta.`{delta}`", rt_src) if delta else None

    hdr = (f"{'query':<16} {'silt s':>8} {'silt-net s':>10} {'DuckDB s':>9} "
           f"{'silt/DuckDB':>11} {'(no start-up)':>13} {'silt delta s':>12}  check"
           f"  {'silt cpu s':>10} {'DuckDB cpu s':>12} {'cpu ratio':>9}")
    print(f"silt start-up (SELECT 1): {t_trivial:.3f} s; best of {args.runs}; "
          f"threads={args.threads}; {args.rows:,} rows")
    print(hdr)
    for k, (name, ssql) in enumerate(sq):
        dsql = dq[k][1]

        def duck():
            c0 = time.process_time()  # the whole process: DuckDB's threads too
            t0 = time.perf_counter()
            r = con.execute(dsql).fetchall()
            t = time.perf_counter() - t0
            LAST_CPU[0] = time.process_time() - c0
            return t, r
        cpu_d, cpu_s = [], []
        td, drows = best(duck, args.runs, cpu_d)
        ordered = name == "top-N"
        try:
            ts, out = best(lambda: run_silt(args.silt, ssql, args.threads), args.runs, cpu_s)
        except RuntimeError as e:
            print(f"{name:<16} silt FAILED: {e}")
            print(f"    query: {ssql}")
            continue
        check = "ok" if same_rows(silt_rows(out), drows, ordered) else "MISMATCH"
        tdl = ""
        if dl:
            try:
                t, dout = best(lambda: run_silt(args.silt, dl[k][1], args.threads), args.runs)
                tdl = f"{t:.3f}"
                if not same_rows(silt_rows(dout), drows, ordered):
                    tdl += " MISMATCH"
            except RuntimeError as e:
                tdl = f"FAILED ({e})"
        net = max(ts - t_trivial, 1e-6)
        cpu_net = max(cpu_s[0] - cpu_trivial[0], 1e-6)
        print(f"{name:<16} {ts:>8.3f} {net:>10.3f} {td:>9.3f} {ts / td:>11.2f} "
              f"{net / td:>13.2f} {tdl:>12}  {check}"
              f"  {cpu_net:>10.3f} {cpu_d[0]:>12.3f} {cpu_net / max(cpu_d[0], 1e-6):>9.2f}")
        if check != "ok":
            print(f"    silt:   {norm_rows(silt_rows(out), ordered)[:5]}")
            print(f"    duckdb: {norm_rows(drows, ordered)[:5]}")
    sys.stdout.flush()


if __name__ == "__main__":
    main()
