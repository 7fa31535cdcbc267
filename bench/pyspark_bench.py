#!/usr/bin/env python3
"""The Python package's benchmark (issue 23), every peer measured in the same run.

1. The trips tutorial (tutorial 001: trips as JSON through sc.parallelize,
   a partitioned overwrite, SQL over a temporary view, saveAsTable, an
   append with mergeSchema, UPDATE, DELETE, MERGE, history and time travel,
   with the notebook's show() calls) under real PySpark (local[2], the Spark
   peer) and under silt.pyspark (local[2]) on the same rows. Each side runs
   in a process of its own; the time is the program's, from getOrCreate()
   returned to the last cell (the session's start is printed apart). The
   answers of both (counts, maxima, history length, time-travel counts) must
   be equal. Goal: silt at least 20 times PySpark's speed.
2. A scan-aggregate and a join over the same Parquet files with silt's
   native face (silt.connect(threads=2), the result as an Arrow table),
   DuckDB (threads=2, .arrow()) and Polars (POLARS_MAX_THREADS=2, a lazy
   scan collected): best of --runs, answers compared. Goal: silt within
   1.2 times the best of DuckDB and Polars.

A benchmark, never a test: nothing fails on a time.

    .peers/venv/bin/python bench/pyspark_bench.py [--rows 2000000] [--fact-rows 10000000] [--runs 3]
"""
import argparse
import contextlib
import io
import json
import os
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tests", "peers"))

# --- 1. the trips tutorial ----------------------------------------------------------

DEST = ["Seattle", "New York", "New Jersey", "Los Angeles", "Las Vagas",
        "Tucson", "Washinton DC", "Philadelphia", "Miami", "San Francisco"]


def trips(spark, DeltaTable, data, rows):
    """Tutorial 001's cells (its paths local), answers collected for the comparison."""
    from datetime import datetime
    out = []
    deltaHivePath = os.path.join(data, "delta-hive-table")
    deltaSparkPath = os.path.join(data, "delta-spark-table")

    def get_json_data(start, count, dest, origin=None):
        time_stamp = datetime.now().strftime('%Y-%m-%d %H:%M:%S')
        rows_ = []
        for i in range(start, start + count):
            r = {'trip_id': i, 'tstamp': time_stamp, 'route_id': chr(65 + (i % 10)),
                 'destination': dest[i % 10]}
            if origin is not None:
                r['origin'] = origin[i % 10]
            rows_.append(r)
        return rows_

    def create_json_df(data_):
        return spark.read.json(spark.sparkContext.parallelize(data_))

    df1 = create_json_df(get_json_data(0, rows, DEST))
    out.append(df1.count())
    df1.show()
    df1.write.mode("overwrite").format("delta").partitionBy("route_id").save(deltaHivePath)
    spark.read.format("delta").load(deltaHivePath).createOrReplaceTempView("temp_trip_table")
    out.append(spark.sql("SELECT count(*) FROM temp_trip_table").collect()[0][0])
    spark.sql("SELECT * FROM temp_trip_table LIMIT 5").show()
    out.append(spark.sql("SELECT max(trip_id) FROM temp_trip_table").collect()[0][0])
    spark.sql("CREATE DATABASE IF NOT EXISTS my_delta_db")
    df1.write.format("delta").mode("overwrite").partitionBy("route_id") \
        .option("path", deltaSparkPath).saveAsTable("my_delta_db.delta_spark_table")
    out.append(spark.sql("select count(*) from my_delta_db.delta_spark_table").collect()[0][0])
    out.append([r[0] for r in spark.sql("select distinct route_id from "
                                        "my_delta_db.delta_spark_table order by route_id")
                .collect()])
    ups = create_json_df(get_json_data(rows, 20, ["Syracuse"] * 10, DEST))
    ups.write.format("delta").mode("append").option("mergeSchema", "true") \
        .partitionBy("route_id").save(deltaHivePath)
    spark.read.format("delta").load(deltaHivePath).createOrReplaceTempView("temp_trip_table")
    out.append(spark.sql("SELECT count(*) FROM temp_trip_table").collect()[0][0])
    spark.sql("SELECT * FROM temp_trip_table WHERE trip_id > %d ORDER BY trip_id"
              % (rows - 4)).show()
    dt = DeltaTable.forPath(spark, deltaHivePath)
    dt.update("destination = 'Syracuse'", {"destination": "'Philadelphia'"})
    out.append(spark.sql("SELECT count(*) FROM delta.`%s` WHERE destination = 'Philadelphia'"
                         % deltaHivePath).collect()[0][0])
    dt.delete("destination = 'New Jersey'")
    out.append(spark.read.format("delta").load(deltaHivePath).count())
    ups1 = create_json_df(get_json_data(rows + 15, 10, ["Avon"] * 10, ["Seattle"] * 10))
    (dt.alias('t').merge(ups1.alias('s'), 't.trip_id = s.trip_id')
     .whenMatchedUpdateAll().whenNotMatchedInsertAll().execute())
    out.append(spark.read.format("delta").load(deltaHivePath).count())
    dt.history(100).select("version", "timestamp", "operation", "operationParameters") \
        .show(truncate=False)
    out.append(dt.history(100).count())
    for v in (1, 2):
        df_v = spark.read.format("delta").option("versionAsOf", str(v)).load(deltaHivePath)
        df_v.take(5)
        out.append(df_v.filter("destination = 'Syracuse'").count())
    return out


def trips_child(side, rows, data):
    """In a child process: one side's session, the program timed, JSON on the last line."""
    t0 = time.time()
    if side == "spark":
        import peers
        spark = peers.spark_session()
        from delta.tables import DeltaTable
    else:
        from silt.pyspark.sql import SparkSession
        from silt.delta.tables import DeltaTable
        os.chdir(data)
        spark = SparkSession.builder.master("local[2]").getOrCreate()
    t1 = time.time()
    with contextlib.redirect_stdout(io.StringIO()):
        answers = trips(spark, DeltaTable, data, rows)
    t2 = time.time()
    print("@@" + json.dumps({"start": t1 - t0, "program": t2 - t1, "answers": answers}))


def run_trips(rows):
    res = {}
    for side in ("spark", "silt"):
        with tempfile.TemporaryDirectory(prefix="silt-trips-%s-" % side) as data:
            env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "build", "python"), TZ="UTC")
            p = subprocess.run([sys.executable, __file__, "--child", side, "--rows", str(rows),
                                "--data", data], capture_output=True, text=True, env=env)
            line = [x for x in p.stdout.splitlines() if x.startswith("@@")]
            if p.returncode != 0 or not line:
                sys.exit("the %s run failed:\n%s\n%s" % (side, p.stdout[-2000:],
                                                         p.stderr[-4000:]))
            res[side] = json.loads(line[-1][2:])
    s, t = res["spark"], res["silt"]
    same = s["answers"] == t["answers"]
    print("trips tutorial, %d rows: PySpark %.2f s, silt.pyspark %.2f s: %.1fx PySpark's speed "
          "(goal 20x); session start %.1f s vs %.2f s; answers %s"
          % (rows, s["program"], t["program"], s["program"] / t["program"], s["start"],
             t["start"], "equal" if same else "DIFFER"))
    if not same:
        print("  spark: %r\n  silt:  %r" % (s["answers"], t["answers"]))
    return s["program"] / t["program"]


# --- 2. scan-aggregate and join against DuckDB and Polars ------------------------

SCAN_AGG = ("SELECT s, count(*) AS n, sum(v) AS total, avg(v) AS mean, max(k) AS top "
            "FROM fact GROUP BY s ORDER BY s")
JOIN = ("SELECT d.name, count(*) AS n, sum(f.v) AS total FROM fact f JOIN dim d ON f.k = d.k "
        "WHERE d.grp < 20 GROUP BY d.name ORDER BY d.name")


def make_parquet(d, rows):
    import numpy as np
    import pyarrow as pa
    import pyarrow.parquet as pq
    fact, dim = os.path.join(d, "fact.parquet"), os.path.join(d, "dim.parquet")
    stamp = os.path.join(d, "rows")
    if os.path.exists(stamp) and open(stamp).read() == str(rows):
        return fact, dim
    rng = np.random.default_rng(23)
    k = rng.integers(0, 10000, rows, dtype=np.int64)
    v = np.round(rng.random(rows) * 1000, 2)
    s = np.array(["s%02d" % i for i in range(16)])[rng.integers(0, 16, rows)]
    pq.write_table(pa.table({"k": k, "v": v, "s": s}), fact, row_group_size=1 << 20)
    pq.write_table(pa.table({"k": np.arange(10000, dtype=np.int64),
                             "name": ["n%03d" % (i % 500) for i in range(10000)],
                             "grp": np.arange(10000, dtype=np.int64) % 100}), dim)
    with open(stamp, "w") as f:
        f.write(str(rows))
    return fact, dim


def best(fn, runs):
    times, res = [], None
    for _ in range(runs):
        t = time.perf_counter()
        res = fn()
        times.append(time.perf_counter() - t)
    return min(times), res


def rounded(table):
    rows = table.to_pylist() if hasattr(table, "to_pylist") else table.to_dicts()
    return [tuple(round(x, 4) if isinstance(x, float) else x for x in r.values()) for r in rows]


def _duck_table(rel):
    """DuckDB's result as a pyarrow Table (newer DuckDBs' arrow() gives a reader)."""
    t = rel.arrow()
    return t.read_all() if hasattr(t, "read_all") else t


def run_engines(fact_rows, runs):
    os.environ["POLARS_MAX_THREADS"] = "2"
    import duckdb
    import polars as pl
    sys.path.insert(0, os.path.join(ROOT, "build", "python"))
    import silt
    d = os.path.join(tempfile.gettempdir(), "silt-pybench")
    os.makedirs(d, exist_ok=True)
    fact, dim = make_parquet(d, fact_rows)
    scon = silt.connect(threads=2)
    scon.sql("CREATE TEMPORARY VIEW fact AS SELECT * FROM parquet.`%s`" % fact)
    scon.sql("CREATE TEMPORARY VIEW dim AS SELECT * FROM parquet.`%s`" % dim)
    dcon = duckdb.connect()
    dcon.execute("SET threads = 2")
    dcon.execute("CREATE VIEW fact AS SELECT * FROM read_parquet('%s')" % fact)
    dcon.execute("CREATE VIEW dim AS SELECT * FROM read_parquet('%s')" % dim)
    pf, pd_ = pl.scan_parquet(fact), pl.scan_parquet(dim)
    polars_q = {
        "scan-aggregate": lambda: pf.group_by("s").agg(
            pl.len().alias("n"), pl.col("v").sum().alias("total"),
            pl.col("v").mean().alias("mean"), pl.col("k").max().alias("top")).sort("s").collect(),
        "join": lambda: pf.join(pd_.filter(pl.col("grp") < 20), on="k").group_by("name").agg(
            pl.len().alias("n"), pl.col("v").sum().alias("total")).sort("name").collect(),
    }
    ratios = {}
    for name, q in (("scan-aggregate", SCAN_AGG), ("join", JOIN)):
        ts, rs = best(lambda: scon.sql(q).arrow(), runs)
        td, rd = best(lambda: _duck_table(dcon.sql(q)), runs)
        tp, rp = best(polars_q[name], runs)
        ok = rounded(rs) == rounded(rd) == rounded(rp)
        peer = min(td, tp)
        ratios[name] = ts / peer
        print("%s, %d rows: silt %.3f s, DuckDB %.3f s, Polars %.3f s: silt / best = %.2f "
              "(goal <= 1.2); answers %s" % (name, fact_rows, ts, td, tp, ts / peer,
                                              "equal" if ok else "DIFFER"))
    return ratios


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rows", type=int, default=2000000, help="the tutorial's trips")
    ap.add_argument("--fact-rows", type=int, default=10000000)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--child")
    ap.add_argument("--data")
    ap.add_argument("--skip-trips", action="store_true")
    a = ap.parse_args()
    if a.child:
        trips_child(a.child, a.rows, a.data)
        return
    print("load average at start: %.1f" % os.getloadavg()[0])
    if not a.skip_trips:
        run_trips(a.rows)
    run_engines(a.fact_rows, a.runs)


if __name__ == "__main__":
    main()
