#!/usr/bin/env python3
"""Streaming between silt and Spark Structured Streaming (docs/streaming.md).

    spark_stream.py SILT_BIN WORK_DIR

1. The rate source: silt runs a batch of `rate(rowsPerSecond => 10,
   rampUpTime => '2s', numPartitions => 3)` into a Delta table; Spark resumes
   a copy of silt's checkpoint with that batch uncommitted, so it replays the
   batch from silt's recorded start time and offsets, and its rows (values,
   timestamps, order) equal the rows silt wrote.
2. Windows with a watermark: silt's appended windows equal Spark's.
3. Spark streams a silt streaming table (every row once, silt's txn
   actions); silt's Delta source follows the commits Spark appends.
4. readChangeFeed: silt's Delta source streams the change feed of a table
   Spark wrote (snapshot, startingVersion, maxFilesPerTrigger) with Spark's
   rows, batch by batch.

Runs under <repo>/.peers/venv/bin/python (re-executing itself there).
Without the venv it exits 77 (skip), or 1 when CI=true.
"""
import csv
import io
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "tests" / "peers"))
from peers import reexec_in_venv  # noqa: E402

reexec_in_venv(__file__)
os.environ["TZ"] = "UTC"

SILT = sys.argv[1]
WORK = Path(sys.argv[2])
failures = 0


def check(what, ok, detail=""):
    global failures
    failures += not ok
    print("%s %s%s" % ("ok  " if ok else "FAIL", what, "" if ok else ": " + detail))


def silt(*args, ok=True):
    proc = subprocess.run([SILT, *args], capture_output=True, text=True, timeout=300)
    if ok and proc.returncode != 0:
        raise SystemExit("silt %s failed:\n%s" % (args, proc.stderr))
    return proc


def silt_rows(sql):
    rows = list(csv.reader(io.StringIO(silt("sql", "--format", "csv", sql).stdout)))
    return [tuple(int(x) for x in r) for r in rows[1:]]


def spark_batches(spark, stream_df, ckpt, select):
    """Runs stream_df under availableNow on ckpt; the rows of each batch, by batch id."""
    got = {}

    def each(df, batch_id):
        got[batch_id] = [tuple(r) for r in df.selectExpr(*select).collect()]

    q = (stream_df.writeStream.foreachBatch(each).option("checkpointLocation", str(ckpt))
         .trigger(availableNow=True).start())
    q.awaitTermination()
    return got


def rate_replay(spark):
    table, ckpt = WORK / "rate_t", WORK / "rate_ck"
    silt("sql", "CREATE TABLE delta.`%s` (timestamp TIMESTAMP, value BIGINT) USING delta" % table)
    stmt = ("INSERT INTO delta.`%s` SELECT * FROM STREAM rate(rowsPerSecond => 10, "
            "rampUpTime => '2s', numPartitions => 3)" % table)
    silt("stream", "--trigger", "availableNow", "--checkpoint", str(ckpt), stmt)
    # as if the stream had started 4.5 s ago: the next run takes seconds (0, 4]
    creation = int(time.time() * 1000) - 4500
    (ckpt / "sources" / "0" / "0").write_text("v1\n%d" % creation)
    silt("stream", "--trigger", "availableNow", "--checkpoint", str(ckpt), stmt)
    ours = silt_rows("SELECT unix_micros(timestamp), value FROM delta.`%s`" % table)
    replay = WORK / "rate_spark_ck"
    shutil.copytree(ckpt, replay)
    (replay / "commits" / "0").unlink()
    (replay / ".lock").unlink()
    df = (spark.readStream.format("rate").option("rowsPerSecond", 10)
          .option("rampUpTime", "2s").option("numPartitions", 3).load())
    theirs = spark_batches(spark, df, replay, ["unix_micros(timestamp)", "value"])
    check("Spark replays silt's rate batch from its checkpoint", 0 in theirs, str(theirs.keys()))
    check("the rate batch's rows are Spark's: values, timestamps and order",
          len(ours) > 0 and theirs.get(0) == ours,
          "%s vs %s" % (ours[:6], (theirs.get(0) or [])[:6]))


WINDOW_FILES = [["2024-01-01 00:00:01,a", "2024-01-01 00:25:00,a"],
                ["2024-01-01 00:05:00,a", "2024-01-01 00:12:00,b"],
                ["2024-01-01 00:13:00,a", "2024-01-01 00:41:00,b", ",c"],
                ["2024-01-01 00:02:00,a", "2024-01-01 01:30:00,c"]]


def key_paths(obj, prefix=""):
    """The key paths of a progress JSON (a list's first element stands for all)."""
    out = set()
    if isinstance(obj, list):
        return key_paths(obj[0], prefix + "[]") if obj else {prefix + "[]"}
    if isinstance(obj, dict):
        for k, v in obj.items():
            out.add(prefix + "." + k)
            out |= key_paths(v, prefix + "." + k)
    return out


# Spark's progress fields silt does not fill (docs/streaming.md, "progress"): the planning
# time (silt plans the batch's statement in addBatch), the state store's internals, metrics
SPARK_ONLY = {".durationMs.queryPlanning", ".observedMetrics"}
SPARK_ONLY_PREFIXES = (".stateOperators[].", ".sources[].metrics", ".sink.metrics")


def progress_shape(q, src, w):
    """silt's StreamingQueryProgress JSON has Spark's fields, named and nested as Spark's."""
    # Spark's own JSON (PySpark's progress objects keep offsets as text and order keys their way)
    theirs = [p for p in q.recentProgress if p["numInputRows"] > 0][-1]
    theirs = json.loads(theirs.json) if hasattr(theirs, "json") else theirs
    run = silt("stream", "--trigger", "availableNow", "--progress", "json", "--output-mode",
               "append", "--checkpoint", str(WORK / "progress_ck"),
               "SELECT %s AS w, count(*) AS n FROM STREAM read_files('%s', format => 'csv', "
               "schema => 'ts TIMESTAMP, k STRING', maxFilesPerTrigger => 1) WATERMARK ts DELAY "
               "OF INTERVAL 10 MINUTES GROUP BY %s" % (w, src, w))
    ours = [json.loads(l) for l in run.stderr.splitlines() if l.startswith("{")]
    ours = [p for p in ours if p["numInputRows"] > 0][-1]
    mine, spark = key_paths(ours), key_paths(theirs)
    missing = {k for k in spark - mine
               if k not in SPARK_ONLY and not k.startswith(SPARK_ONLY_PREFIXES)}
    check("progress JSON: every field silt writes is Spark's, nested as Spark's",
          mine <= spark, "silt only: %s" % sorted(mine - spark))
    check("progress JSON: silt writes Spark's fields (all but the documented few)",
          not missing, "missing: %s" % sorted(missing))
    check("progress JSON: Spark's field order at the top", [k for k in theirs if k in ours] ==
          [k for k in ours if k in theirs], "%s vs %s" % (list(ours), list(theirs)))


def windows(spark):
    """Windowed aggregation with a watermark into Delta (append): silt's table equals Spark's."""
    src = WORK / "win_in"
    src.mkdir()
    for idx, rows in enumerate(WINDOW_FILES):
        path = src / ("f%d.csv" % idx)
        path.write_text("\n".join(rows) + "\n")
        os.utime(path, (1000 + idx, 1000 + idx))
    for slide in (None, "3 minutes"):
        w = "window(ts, '10 minutes'%s)" % (", '%s'" % slide if slide else "")
        ours_t, theirs_t = WORK / ("win_silt_%s" % bool(slide)), WORK / ("win_spark_%s" % bool(slide))
        silt("sql", "CREATE STREAMING TABLE delta.`%s` AS SELECT %s AS w, count(*) AS n, "
             "max(k) AS mk FROM STREAM read_files('%s', format => 'csv', schema => 'ts "
             "TIMESTAMP, k STRING', maxFilesPerTrigger => 1) WATERMARK ts DELAY OF INTERVAL 10 "
             "MINUTES GROUP BY %s" % (ours_t, w, src, w))
        from pyspark.sql import functions as F
        df = (spark.readStream.format("csv").schema("ts TIMESTAMP, k STRING")
              .option("maxFilesPerTrigger", 1).load(str(src)))
        agg = (df.withWatermark("ts", "10 minutes").groupBy(F.expr(w).alias("w"))
               .agg(F.count("*").alias("n"), F.max("k").alias("mk")))
        q = (agg.writeStream.format("delta").outputMode("append")
             .option("checkpointLocation", str(WORK / ("win_ck_%s" % bool(slide))))
             .trigger(availableNow=True).start(str(theirs_t)))
        q.awaitTermination()
        if slide is None:
            progress_shape(q, src, w)
        sel = "unix_micros(w.start), unix_micros(w.end), n, mk"
        ours = sorted(tuple(r) for r in spark.read.format("delta").load(str(ours_t))
                      .selectExpr(*sel.split(", ")).collect())
        theirs = sorted(tuple(r) for r in spark.read.format("delta").load(str(theirs_t))
                        .selectExpr(*sel.split(", ")).collect())
        check("window %s: silt's appended windows equal Spark's" % (slide or "tumbling"),
              ours == theirs and len(ours) > 0, "%s vs %s" % (ours, theirs))
        # per batch: the table's versions add the same windows at the same batches
        def by_version(t):
            h = spark.sql("DESCRIBE HISTORY delta.`%s`" % t).collect()
            return sorted(int((r.operationMetrics or {}).get("numOutputRows", 0))
                          for r in h if r.operation in ("STREAMING UPDATE", "WRITE"))
        check("window %s: Spark reads silt's table as written by batches" % (slide or "tumbling"),
              sum(by_version(ours_t)) == len(ours), str(by_version(ours_t)))


def watermark_expression(spark):
    """WATERMARK expr AS name: silt's windows equal Spark's withColumn + withWatermark."""
    src = WORK / "win_in"
    ours_t, theirs_t = WORK / "winx_silt", WORK / "winx_spark"
    silt("sql", "CREATE STREAMING TABLE delta.`%s` AS SELECT window(t, '10 minutes') AS w, "
         "count(*) AS n FROM STREAM read_files('%s', format => 'csv', schema => 's STRING, "
         "k STRING', maxFilesPerTrigger => 1) WATERMARK to_timestamp(s) + INTERVAL 1 MINUTE AS t "
         "DELAY OF INTERVAL 10 MINUTES GROUP BY window(t, '10 minutes')" % (ours_t, src))
    from pyspark.sql import functions as F
    df = (spark.readStream.format("csv").schema("s STRING, k STRING")
          .option("maxFilesPerTrigger", 1).load(str(src))
          .withColumn("t", F.expr("to_timestamp(s) + INTERVAL 1 MINUTE")))
    agg = (df.withWatermark("t", "10 minutes").groupBy(F.window("t", "10 minutes").alias("w"))
           .agg(F.count("*").alias("n")))
    q = (agg.writeStream.format("delta").outputMode("append")
         .option("checkpointLocation", str(WORK / "winx_ck")).trigger(availableNow=True)
         .start(str(theirs_t)))
    q.awaitTermination()
    sel = ["unix_micros(w.start)", "n"]
    ours = sorted(tuple(r) for r in spark.read.format("delta").load(str(ours_t))
                  .selectExpr(*sel).collect())
    theirs = sorted(tuple(r) for r in spark.read.format("delta").load(str(theirs_t))
                    .selectExpr(*sel).collect())
    check("WATERMARK expr AS name: silt's appended windows equal Spark's",
          ours == theirs and len(ours) > 0, "%s vs %s" % (ours, theirs))


def spark_reads_silt_table(spark):
    """Spark Structured Streaming reads a silt streaming table: every row once, silt's txns."""
    src, table = WORK / "st_in", WORK / "st_t"
    src.mkdir()
    for idx in range(3):
        path = src / ("f%d.csv" % idx)
        path.write_text("".join("%d,r%d\n" % (idx * 100 + n, n % 3) for n in range(100)))
        os.utime(path, (1000 + idx, 1000 + idx))
    silt("sql", "CREATE STREAMING TABLE delta.`%s` AS SELECT * FROM STREAM read_files('%s', "
         "format => 'csv', schema => 'id INT, route STRING', maxFilesPerTrigger => 1)"
         % (table, src))
    got = spark_batches(spark, spark.readStream.format("delta").load(str(table)),
                        WORK / "st_spark_ck", ["id"])
    ids = sorted(r[0] for rows in got.values() for r in rows)
    check("Spark streams silt's streaming table: every row exactly once", ids == list(range(300)),
          "%d rows" % len(ids))
    txns = []
    for name in sorted(os.listdir(table / "_delta_log")):
        if name.endswith(".json"):
            for line in (table / "_delta_log" / name).read_text().splitlines():
                if '"txn"' in line:
                    txns.append(json.loads(line)["txn"]["version"])
    check("silt's streaming commits carry txn(appId, batch id) 0..2", txns == [0, 1, 2], str(txns))
    # silt follows commits Spark writes to that table
    spark.createDataFrame([(1000 + n, "s") for n in range(50)], "id INT, route STRING") \
        .write.format("delta").mode("append").save(str(table))
    out = WORK / "st_follow"
    silt("sql", "CREATE TABLE delta.`%s` (id INT, route STRING) USING delta" % out)
    silt("stream", "--trigger", "availableNow", "--checkpoint", str(WORK / "st_follow_ck"),
         "INSERT INTO delta.`%s` SELECT * FROM STREAM delta.`%s`" % (out, table))
    n = silt_rows("SELECT count(*), count(DISTINCT id) FROM delta.`%s`" % out)
    check("silt's Delta source reads silt's and Spark's commits once", n == [(350, 350)], str(n))
    spark.createDataFrame([(2000 + n, "s") for n in range(7)], "id INT, route STRING") \
        .write.format("delta").mode("append").save(str(table))
    silt("stream", "--trigger", "availableNow", "--checkpoint", str(WORK / "st_follow_ck"),
         "INSERT INTO delta.`%s` SELECT * FROM STREAM delta.`%s`" % (out, table))
    n = silt_rows("SELECT count(*), count(DISTINCT id) FROM delta.`%s`" % out)
    check("silt's Delta source follows a new commit Spark wrote", n == [(357, 357)], str(n))


def change_feed(spark):
    """readChangeFeed on the Delta source: silt's rows and batches equal Spark's on one table."""
    table = WORK / "cdf_t"
    spark.sql("CREATE TABLE delta.`%s` (id INT, name STRING) USING delta "
              "TBLPROPERTIES (delta.enableChangeDataFeed = true)" % table)
    # one file a commit: silt admits whole commits where Delta splits one by its files
    # (docs/streaming.md), so with maxFilesPerTrigger 1 the batches agree on such commits
    spark.createDataFrame([(1, "a"), (2, "b")], "id INT, name STRING").coalesce(1) \
        .write.format("delta").mode("append").save(str(table))
    spark.sql("INSERT INTO delta.`%s` VALUES (3, 'c')" % table)
    spark.sql("UPDATE delta.`%s` SET name = 'z' WHERE id = 2" % table)
    spark.sql("DELETE FROM delta.`%s` WHERE id = 1" % table)
    spark.sql("INSERT INTO delta.`%s` VALUES (4, 'd')" % table)
    cols = ["id", "name", "_change_type", "_commit_version"]
    for opts in ({}, {"startingVersion": "1", "maxFilesPerTrigger": "1"}):
        tag = ", ".join("%s = %s" % kv for kv in opts.items()) or "from the snapshot"
        reader = spark.readStream.format("delta").option("readChangeFeed", "true")
        for k, v in opts.items():
            reader = reader.option(k, v)
        theirs = spark_batches(spark, reader.load(str(table)),
                               WORK / ("cdf_spark_ck_%d" % len(opts)), cols)
        with_opts = ", ".join("%s = %s" % kv for kv in opts.items())
        run = silt("stream", "--trigger", "availableNow", "--progress", "json", "--checkpoint",
                   str(WORK / ("cdf_silt_ck_%d" % len(opts))),
                   "SELECT %s FROM STREAM delta.`%s` WITH (readChangeFeed = true%s)"
                   % (", ".join(cols), table, ", " + with_opts if with_opts else ""))
        ours = {}
        for block in run.stdout.split("Batch: ")[1:]:
            batch_id = int(block.split("\n")[0])
            rows = [line.strip("|").split("|") for line in block.splitlines()
                    if line.startswith("|") and "_change_type" not in line]
            ours[batch_id] = sorted((int(r[0]), r[1].strip(), r[2].strip(), int(r[3]))
                                    for r in rows)
        theirs = {b: sorted(rows) for b, rows in theirs.items() if rows}
        check("readChangeFeed (%s): silt's rows equal Spark's" % tag,
              sorted(r for b in ours.values() for r in b) ==
              sorted(r for b in theirs.values() for r in b), "%s vs %s" % (ours, theirs))
        check("readChangeFeed (%s): batch by batch as Spark" % tag,
              list(ours.values()) == [theirs[b] for b in sorted(theirs)],
              "%s vs %s" % (ours, theirs))


def main():
    shutil.rmtree(WORK, ignore_errors=True)
    WORK.mkdir(parents=True)
    from peers import spark_session
    spark = spark_session()
    rate_replay(spark)
    windows(spark)
    watermark_expression(spark)
    spark_reads_silt_table(spark)
    change_feed(spark)
    print("%d failed" % failures)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
