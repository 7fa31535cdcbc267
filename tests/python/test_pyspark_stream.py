"""readStream / writeStream: the same streaming programs under real PySpark
(the Spark peer) and under silt.pyspark (issue 23), on the same input
folders, with triggers that end (availableNow, once), compared on:

- the rows of the sink table after each run (sorted),
- the number of batches and each batch's numInputRows (recentProgress),
- isActive before and after awaitTermination,
- for the refused programs: both sides refuse (the message is silt's).

Then silt alone: a restart over the same checkpoint takes only the new
file (exactly once), the console sink's text, stop() of a stream with the
default trigger, lastProgress fields, and what is refused by name."""

import contextlib
import io
import json
import os
import shutil
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "peers"))

import peers  # noqa: E402

try:
    peers.delta_jars()
    import pyspark  # noqa: F401
except Exception as e:  # noqa: BLE001
    print("no Spark peer: %s" % e, file=sys.stderr)
    sys.exit(1 if peers.in_ci() else 77)

TMP = tempfile.mkdtemp(prefix="silt-pyspark-stream-")
IN = os.path.join(TMP, "in")
SCHEMA = "id INT, name STRING, amount DOUBLE, day DATE"


def write_inputs():
    for fmt in ("csv", "json"):
        os.makedirs(os.path.join(IN, fmt), exist_ok=True)
    for part in range(3):
        rows = [(part * 10 + i, "n%d" % ((part * 10 + i) % 4), (part * 10 + i) * 1.5,
                 "2024-01-%02d" % (1 + i)) for i in range(4 + part)]
        path = os.path.join(IN, "csv", "p%d.csv" % part)
        with open(path, "w") as f:
            f.write("id,name,amount,day\n")
            for r in rows:
                f.write("%d,%s,%s,%s\n" % r)
        os.utime(path, (1700000000 + part, 1700000000 + part))  # oldest first, in order
        path = os.path.join(IN, "json", "p%d.json" % part)
        with open(path, "w") as f:
            for r in rows:
                f.write(json.dumps({"id": r[0], "name": r[1], "amount": r[2], "day": r[3]}) + "\n")
        os.utime(path, (1700000000 + part, 1700000000 + part))
    os.makedirs(os.path.join(IN, "parquet"), exist_ok=True)
    import pyarrow as pa
    import pyarrow.parquet as pq
    pq.write_table(pa.table({"k": ["a", "b", "a"], "v": pa.array([1, 2, 3], pa.int64())}),
                   os.path.join(IN, "parquet", "a.parquet"))


def progress_of(q):
    return [p["numInputRows"] for p in q.recentProgress]


def run(q):
    q.awaitTermination()
    return {"batches": progress_of(q), "active_after": q.isActive}


def table_rows(spark, path):
    return sorted(tuple(r) for r in spark.read.format("delta").load(path).collect())


def programs(spark, F, out, label):
    """(name, fn): fn runs one stream to its end and returns what is compared."""
    ck = lambda n: os.path.join(out, "ck-" + n)  # noqa: E731
    tb = lambda n: os.path.join(out, "t-" + n)  # noqa: E731
    res = []

    def csv_files():
        q = (spark.readStream.format("csv").option("header", "true").schema(SCHEMA)
             .option("maxFilesPerTrigger", 1).load(os.path.join(IN, "csv"))
             .writeStream.format("delta").option("checkpointLocation", ck("csv"))
             .trigger(availableNow=True).start(tb("csv")))
        r = run(q)
        r["rows"] = table_rows(spark, tb("csv"))
        return r
    res.append(("csv_files_max1", csv_files))

    def csv_once():
        q = (spark.readStream.schema(SCHEMA).option("header", True).option("maxFilesPerTrigger", 1)
             .csv(os.path.join(IN, "csv")).writeStream.format("delta")
             .option("checkpointLocation", ck("once")).trigger(once=True).start(tb("once")))
        r = run(q)
        r["rows"] = table_rows(spark, tb("once"))
        return r
    res.append(("csv_once", csv_once))

    def json_transform():
        df = spark.readStream.schema(SCHEMA).json(os.path.join(IN, "json"))
        df = (df.filter(F.col("amount") > 3).withColumn("big", F.col("amount") * 2)
              .withColumn("up", F.upper("name")).select("id", "up", "big", "day"))
        q = (df.writeStream.format("delta").outputMode("append")
             .option("checkpointLocation", ck("json")).trigger(availableNow=True)
             .start(tb("json")))
        r = run(q)
        r["rows"] = table_rows(spark, tb("json"))
        return r
    res.append(("json_filter_withColumn", json_transform))

    def parquet_to_table():
        q = (spark.readStream.schema("k STRING, v BIGINT").parquet(os.path.join(IN, "parquet"))
             .selectExpr("k", "v * 10 AS v10").writeStream
             .option("checkpointLocation", ck("pq")).trigger(availableNow=True)
             .toTable("stream_pq_" + label))
        r = run(q)
        r["rows"] = sorted(tuple(x) for x in spark.table("stream_pq_" + label).collect())
        return r
    res.append(("parquet_toTable", parquet_to_table))

    def delta_source_agg():
        q = (spark.readStream.format("delta").load(tb("csv")).groupBy("name")
             .agg(F.count("*").alias("n"), F.sum("amount").alias("total"), F.max("id").alias("top"))
             .writeStream.format("delta").outputMode("complete")
             .option("checkpointLocation", ck("agg")).trigger(availableNow=True).start(tb("agg")))
        r = run(q)
        r["rows"] = table_rows(spark, tb("agg"))
        return r
    res.append(("delta_source_groupBy_complete", delta_source_agg))

    def delta_starting_version():
        src = spark.read.format("delta").load(tb("csv"))
        src.filter("id < 10").write.format("delta").save(tb("sv"))
        src.filter("id >= 10").write.format("delta").mode("append").save(tb("sv"))
        q = (spark.readStream.format("delta").option("startingVersion", 1).load(tb("sv"))
             .writeStream.format("delta").option("checkpointLocation", ck("sv2"))
             .trigger(availableNow=True).start(tb("sv2")))
        r = run(q)
        r["rows"] = table_rows(spark, tb("sv2"))
        return r
    res.append(("delta_startingVersion", delta_starting_version))

    def complete_without_agg():
        q = (spark.readStream.schema(SCHEMA).option("header", True).csv(os.path.join(IN, "csv"))
             .writeStream.format("delta").outputMode("complete")
             .option("checkpointLocation", ck("bad")).trigger(availableNow=True).start(tb("bad")))
        return run(q)
    res.append(("refused_complete_without_aggregation", complete_without_agg))

    def append_agg_no_watermark():
        q = (spark.readStream.schema(SCHEMA).option("header", True).csv(os.path.join(IN, "csv"))
             .groupBy("name").count().writeStream.format("delta").outputMode("append")
             .option("checkpointLocation", ck("bad2")).trigger(availableNow=True)
             .start(tb("bad2")))
        return run(q)
    res.append(("refused_append_aggregation_without_watermark", append_agg_no_watermark))

    def batch_action():
        return spark.readStream.schema(SCHEMA).csv(os.path.join(IN, "csv")).count()
    res.append(("refused_count_of_a_stream", batch_action))

    def write_stream_of_batch():
        return spark.range(3).writeStream
    res.append(("refused_writeStream_of_a_batch_DataFrame", write_stream_of_batch))

    def stream_schema():
        df = spark.readStream.schema(SCHEMA).option("header", True).csv(os.path.join(IN, "csv"))
        df = df.withColumn("x", F.col("id") + 1).drop("day")
        return {"streaming": df.isStreaming, "columns": df.columns, "dtypes": df.dtypes}
    res.append(("schema_of_a_stream", stream_schema))
    return res


def run_all(spark, F, label):
    out = os.path.join(TMP, "out-" + label)
    os.makedirs(out, exist_ok=True)
    got = {}
    for name, fn in programs(spark, F, out, label):
        t = time.time()
        try:
            got[name] = fn()
        except Exception as e:  # noqa: BLE001 - compared: both must refuse
            got[name] = {"error": "%s: %s" % (type(e).__name__, str(e).splitlines()[0][:200])}
        print("%s %s %.1f s" % (label, name, time.time() - t))
    return got


# Programs whose answers differ today, with the reason; one of them equal fails the test.
KNOWN = {
    "json_filter_withColumn": "numInputRows: Spark pushes the filter into the JSON scan and "
                              "counts the 12 rows left; silt's stream counts the 15 rows read "
                              "(src/stream; the sink's rows are equal)",
}


def norm(v):
    if isinstance(v, float):
        return float("%.9g" % v)
    if isinstance(v, (list, tuple)):
        return type(v)(norm(x) for x in v)
    if isinstance(v, dict):
        return {k: norm(x) for k, x in v.items()}
    return v


def silt_only(spark, F, checks):
    """Exactly once across a restart, the console's text, stop() of an endless stream."""
    out = os.path.join(TMP, "silt-only")
    src = os.path.join(out, "src")
    os.makedirs(src)
    with open(os.path.join(src, "a.csv"), "w") as f:
        f.write("k,v\na,1\nb,2\n")

    def start():
        return (spark.readStream.option("header", True).schema("k STRING, v INT").csv(src)
                .writeStream.format("delta").option("checkpointLocation", os.path.join(out, "ck"))
                .trigger(availableNow=True).start(os.path.join(out, "t")))
    q = start()
    q.awaitTermination()
    first_id = q.id
    with open(os.path.join(src, "b.csv"), "w") as f:
        f.write("k,v\nc,3\n")
    q = start()
    q.awaitTermination()
    rows = sorted(tuple(r) for r in spark.read.format("delta").load(os.path.join(out, "t"))
                  .collect())
    checks.append(("restart takes only the new file", rows == [("a", 1), ("b", 2), ("c", 3)],
                   rows))
    checks.append(("restart: one batch of 1 row", progress_of(q) == [1], progress_of(q)))
    checks.append(("the query id is kept in the checkpoint", q.id == first_id and q.id,
                   (first_id, q.id)))
    p = q.lastProgress
    keys = {"id", "runId", "batchId", "numInputRows", "sources", "sink", "durationMs"}
    checks.append(("lastProgress has Spark's fields", keys <= set(p), sorted(p)))
    checks.append(("lastProgress batchId", p["batchId"] == 1, p["batchId"]))

    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        q = (spark.readStream.option("header", True).schema("k STRING, v INT").csv(src)
             .filter("v > 1").writeStream.format("console").trigger(once=True).start())
        q.awaitTermination()
    want = ("-------------------------------------------\nBatch: 0\n"
            "-------------------------------------------\n+---+---+\n|  k|  v|\n+---+---+\n"
            "|  b|  2|\n|  c|  3|\n+---+---+\n\n")
    checks.append(("console sink prints as Spark's", buf.getvalue() == want, buf.getvalue()))

    q = (spark.readStream.format("rate").option("rowsPerSecond", 5).load()
         .writeStream.format("delta").option("checkpointLocation", os.path.join(out, "ckr"))
         .start(os.path.join(out, "rate")))
    active = q.isActive
    finished = q.awaitTermination(0.3)
    q.stop()
    checks.append(("default trigger: active until stop()", active and finished is False and
                   not q.isActive and q.exception() is None, (active, finished, q.isActive)))
    checks.append(("spark.streams.active is empty after stop", spark.streams.active == [],
                   spark.streams.active))

    def refused(fn):
        try:
            fn()
            return "ran"
        except NotImplementedError as e:
            return "NotImplementedError: " + str(e)
        except Exception as e:  # noqa: BLE001
            return "%s: %s" % (type(e).__name__, e)
    base = spark.readStream.option("header", True).schema("k STRING, v INT").csv(src)
    for what, fn in [
            ("foreachBatch", lambda: base.writeStream.foreachBatch(lambda d, i: None)),
            ("memory sink", lambda: base.writeStream.format("memory").queryName("m").start()),
            ("continuous trigger", lambda: base.writeStream.trigger(continuous="1 second")),
            ("kafka source", lambda: spark.readStream.format("kafka").load()),
            ("Delta sink option", lambda: base.writeStream.format("delta")
             .option("checkpointLocation", os.path.join(out, "ckx")).option("txnAppId", "x")
             .start(os.path.join(out, "x")))]:
        r = refused(fn)
        checks.append(("%s refused by name" % what, r.startswith("NotImplementedError"), r))


def main():
    os.environ.setdefault("TZ", "UTC")
    write_inputs()
    spark = peers.spark_session()
    import pyspark.sql.functions as SF
    t0 = time.time()
    want = run_all(spark, SF, "spark")
    t1 = time.time()
    cwd = os.getcwd()
    os.chdir(TMP)
    from silt.pyspark.sql import SparkSession
    from silt.pyspark.sql import functions as F
    silt_spark = SparkSession.builder.appName("stream").getOrCreate()
    got = run_all(silt_spark, F, "silt")
    t2 = time.time()
    print("Spark %.1f s, silt %.1f s" % (t1 - t0, t2 - t1))
    bad = []
    for name in want:
        w, g = norm(want[name]), norm(got[name])
        if "error" in w and "error" in g:
            print("ok %s (both refuse; silt: %s)" % (name, g["error"]))
            continue
        if name in KNOWN:
            if w == g:
                bad.append("%s: listed in KNOWN (%s) but now equal: remove it" % (name,
                                                                                 KNOWN[name]))
            elif w.get("rows") != g.get("rows"):
                bad.append("%s differs in its rows\n  spark: %r\n  silt:  %r" % (name, w, g))
            else:
                print("known difference %s: %s" % (name, KNOWN[name]))
        elif w != g:
            bad.append("%s differs\n  spark: %r\n  silt:  %r" % (name, w, g))
        else:
            print("ok %s" % name)
    checks = []
    silt_only(silt_spark, F, checks)
    for what, ok, detail in checks:
        print("%s %s" % ("ok" if ok else "FAIL", what))
        if not ok:
            bad.append("%s: %r" % (what, detail))
    os.chdir(cwd)
    print("%d programs against Spark, %d silt checks, %d failures" % (len(want), len(checks),
                                                                     len(bad)))
    for b in bad:
        print(b)
    shutil.rmtree(TMP, ignore_errors=True)
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
