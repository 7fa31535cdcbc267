#!/usr/bin/env python3
"""Streaming between silt and Spark Structured Streaming (docs/streaming.md).

    spark_stream.py SILT_BIN WORK_DIR

1. The rate source: silt runs a batch of `rate(rowsPerSecond => 10,
   rampUpTime => '2s', numPartitions => 3)` into a Delta table; Spark resumes
   a copy of silt's checkpoint with that batch uncommitted, so it replays the
   batch from silt's recorded start time and offsets, and its rows (values,
   timestamps, order) equal the rows silt wrote.

Runs under <repo>/.peers/venv/bin/python (re-executing itself there).
Without the venv it exits 77 (skip), or 1 when CI=true.
"""
import csv
import io
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


def main():
    shutil.rmtree(WORK, ignore_errors=True)
    WORK.mkdir(parents=True)
    from peers import spark_session
    spark = spark_session()
    rate_replay(spark)
    print("%d failed" % failures)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
