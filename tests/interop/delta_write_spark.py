#!/usr/bin/env python3
"""Tables written by silt's table writer and DML machinery, read by Spark and delta-rs.

    delta_write_spark.py DRIVER WORKDIR

DRIVER is tests/interop/delta_write_driver.c built. silt runs CTAS, an
append, UPDATE, DELETE (rewriting and whole-partition), RESTORE and a
mergeSchema append on one table, and 25 commits on another (Parquet
checkpoints at 10 and 20). Then:

  - Spark: the rows (also at an old version), DESCRIBE HISTORY operations,
    parameters and metric keys, the partition folder names Spark itself
    writes for the same values, the checkpoint files; Spark appends and
    updates after silt, and silt reads the result back (also from a
    checkpoint Spark wrote);
  - delta-rs: rows, version, history operations of both tables.

Runs under <repo>/.peers/venv/bin/python (re-executing itself there). Without
the venv it exits 77 (skip), or 1 when CI=true. Prints "N passed, M failed".
"""
import shutil
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "tests" / "peers"))
from peers import reexec_in_venv  # noqa: E402

reexec_in_venv(__file__)

import pyarrow.parquet as pq  # noqa: E402
from deltalake import DeltaTable  # noqa: E402

DRIVER = sys.argv[1]
WORK = Path(sys.argv[2])
RESULTS = {"passed": 0, "failed": 0}

# (id, name, p, score) after the whole sequence on the main table: the MERGE
# renames 3, inserts 11 and deletes 8 (the only row with p = 'q').
FINAL = sorted([
    (1, "one", "a", None), (2, "u-two", "a", None), (3, "m-three", "b/c", None),
    (4, "u-four", None, None), (5, "five", None, None), (6, "u-six", "x:y=z%", None),
    (7, "seven", "a", None), (9, "nine", "a", 90), (11, "m-eleven", "m", None),
], key=repr)
AT_V3 = sorted([(1, "one", "a"), (3, "three", "b/c"), (5, "five", None), (7, "seven", "a")], key=repr)
HISTORY = ["CREATE TABLE AS SELECT", "WRITE", "UPDATE", "DELETE", "DELETE", "RESTORE", "WRITE",
           "MERGE"]
METRIC_KEYS = {
    "CREATE TABLE AS SELECT": {"numFiles", "numOutputRows", "numOutputBytes"},
    "WRITE": {"numFiles", "numOutputRows", "numOutputBytes"},
    "UPDATE": {"numUpdatedRows", "numCopiedRows", "numAddedFiles", "numRemovedFiles"},
    "DELETE": {"numDeletedRows", "numCopiedRows", "numAddedFiles", "numRemovedFiles"},
    "MERGE": {"numSourceRows", "numTargetRowsInserted", "numTargetRowsUpdated",
              "numTargetRowsDeleted", "numTargetRowsCopied", "numOutputRows",
              "numTargetFilesAdded", "numTargetFilesRemoved",
              "numTargetRowsNotMatchedBySourceDeleted"},
    "RESTORE": {"tableSizeAfterRestore", "numOfFilesAfterRestore", "numRemovedFiles",
                "numRestoredFiles", "removedFilesSize", "restoredFilesSize"},
}


def silt(*args):
    proc = subprocess.run([DRIVER, *map(str, args)], capture_output=True, text=True)
    if proc.returncode != 0:
        raise RuntimeError(f"delta_write_driver {args[0]} failed: {proc.stderr.strip()}")
    return proc.stdout


def check(name, cond, detail=""):
    if cond:
        RESULTS["passed"] += 1
        print(f"ok   {name}")
    else:
        RESULTS["failed"] += 1
        print(f"FAIL {name} {detail}")


def silt_rows(root):
    rows = []
    for line in silt("dump", root).splitlines():
        vals = [None if v == "null" else v for v in line.split("|")]
        vals[0] = int(vals[0])
        if len(vals) > 3 and vals[3] is not None:
            vals[3] = int(vals[3])
        rows.append(tuple(vals))
    return sorted(rows, key=repr)


def build_main(root):
    silt("ctas", root, "1|one|a", "2|two|a", "3|three|b/c", "4|four|null", "5|five|",
         "6|six|x:y=z%")
    silt("append", root, "7|seven|a", "8|eight|q")
    silt("update-even", root)
    silt("delete-even", root)
    silt("delete-partition", root, "a")
    silt("restore", root, "2")
    silt("append-wide", root, "9|nine|a|90")
    silt("merge", root, "3|m-three|b/c", "11|m-eleven|m")


def build_checkpointed(root):
    silt("ctas", root, "0|c0|k")
    for version in range(1, 25):
        silt("append", root, f"{version}|c{version}|k{version % 3}")


def partition_dirs(root):
    return sorted(d.name for d in Path(root).iterdir() if d.is_dir() and d.name.startswith("p="))


def test_delta_rs(main, ck):
    dt = DeltaTable(str(main))
    check("delta-rs version", dt.version() == 7, dt.version())
    tbl = dt.to_pyarrow_table()
    rows = sorted(zip(*(tbl.column(c).to_pylist() for c in ("id", "name", "p", "score"))), key=repr)
    check("delta-rs rows", rows == FINAL, rows)
    ops = [h["operation"] for h in sorted(dt.history(), key=lambda h: h["version"])]
    check("delta-rs history", ops == HISTORY, ops)
    old = DeltaTable(str(main), version=3).to_pyarrow_table()
    rows3 = sorted(zip(*(old.column(c).to_pylist() for c in ("id", "name", "p"))), key=repr)
    check("delta-rs time travel", rows3 == AT_V3, rows3)
    ckt = DeltaTable(str(ck))
    check("delta-rs reads the checkpointed table",
          ckt.version() == 24 and ckt.to_pyarrow_table().num_rows == 25,
          (ckt.version(), ckt.to_pyarrow_table().num_rows))


def test_checkpoint_files(ck):
    log = Path(ck) / "_delta_log"
    cps = sorted(p.name for p in log.glob("*.checkpoint.parquet"))
    check("checkpoints at 10 and 20",
          cps == ["00000000000000000010.checkpoint.parquet", "00000000000000000020.checkpoint.parquet"],
          cps)
    last = (log / "_last_checkpoint").read_text()
    check("_last_checkpoint names 20", '"version":20' in last, last)
    t = pq.read_table(log / "00000000000000000020.checkpoint.parquet")
    adds = [a for a in t.column("add").to_pylist() if a is not None]
    check("pyarrow reads the checkpoint: 21 adds, protocol, metaData",
          len(adds) == 21 and any(p is not None for p in t.column("protocol").to_pylist())
          and any(m is not None for m in t.column("metaData").to_pylist()), len(adds))


def test_spark(main, ck, work):
    from peers import spark_session
    spark = spark_session()
    df = spark.read.format("delta").load(str(main))
    rows = sorted(((r.id, r.name, r.p, r.score) for r in df.collect()), key=repr)
    check("spark rows", rows == FINAL, rows)
    old = spark.read.format("delta").option("versionAsOf", 3).load(str(main))
    rows3 = sorted(((r.id, r.name, r.p) for r in old.collect()), key=repr)
    check("spark time travel", rows3 == AT_V3, rows3)
    hist = sorted(spark.sql(f"DESCRIBE HISTORY delta.`{main}`").collect(), key=lambda h: h.version)
    check("spark history operations", [h.operation for h in hist] == HISTORY,
          [h.operation for h in hist])
    for h in hist:
        want = METRIC_KEYS.get(h.operation, set())
        got = set((h.operationMetrics or {}).keys())
        check(f"spark history v{h.version} {h.operation} metrics", want <= got, sorted(got))
    params = {h.version: dict(h.operationParameters or {}) for h in hist}
    check("spark history WRITE parameters",
          params[1].get("mode") == "Append" and params[1].get("partitionBy") == "[]", params[1])
    check("spark history CTAS parameters",
          params[0].get("partitionBy") == '["p"]' and params[0].get("isManaged") == "false", params[0])
    check("spark history UPDATE predicate", params[2].get("predicate") == '["((id % 2) = 0)"]',
          params[2])
    check("spark history RESTORE parameters", params[5].get("version") == "2", params[5])
    check("spark history MERGE parameters",
          params[7].get("predicate") == '["(t.id = s.id)"]'
          and params[7].get("notMatchedPredicates") == '[{"actionType":"insert"}]', params[7])
    merge_metrics = dict(hist[7].operationMetrics)
    check("spark history MERGE metrics",
          (merge_metrics["numTargetRowsUpdated"], merge_metrics["numTargetRowsInserted"],
           merge_metrics["numTargetRowsDeleted"]) == ("1", "1", "1"), merge_metrics)
    check("spark history DELETE predicate", params[3].get("predicate") == '["((id % 2) = 0)"]',
          params[3])

    # The folders Spark writes for the same partition values.
    theirs = work / "spark-partitions"
    spark.createDataFrame([(1, "a"), (2, "b/c"), (3, None), (4, ""), (5, "x:y=z%"), (6, "q"), (7, "m")],
                          "id long, p string").write.format("delta").partitionBy("p").save(str(theirs))
    check("partition folders as Spark names them", partition_dirs(main) == partition_dirs(theirs),
          f"silt {partition_dirs(main)} spark {partition_dirs(theirs)}")

    # Spark writes after silt; silt reads Spark's versions.
    spark.createDataFrame([(10, "ten", "s", 100)], "id long, name string, p string, score int") \
        .write.format("delta").mode("append").save(str(main))
    spark.sql(f"UPDATE delta.`{main}` SET name = 'spark' WHERE id = 1")
    want = sorted([r for r in FINAL if r[0] != 1] + [(1, "spark", "a", None), (10, "ten", "s", 100)],
                  key=repr)
    got = silt_rows(main)
    check("silt reads Spark's append and update", got == want, got)

    test_spark_typed_partitions(spark, work)

    ckrows = spark.read.format("delta").load(str(ck)).count()
    check("spark reads the checkpointed table", ckrows == 25, ckrows)
    detail = spark.sql(f"DESCRIBE DETAIL delta.`{ck}`").collect()[0]
    check("spark sees 25 files", detail.numFiles == 25, detail.numFiles)
    for i in range(25, 31):
        spark.createDataFrame([(i, f"c{i}", "k0")], "id long, name string, p string") \
            .write.format("delta").mode("append").save(str(ck))
    spark_cp = (Path(ck) / "_delta_log" / "00000000000000000030.checkpoint.parquet").exists()
    got = silt_rows(ck)
    check("silt reads from Spark's checkpoint at 30", spark_cp and len(got) == 31, (spark_cp, len(got)))
    silt("append", ck, "31|c31|k1")
    check("silt appends after Spark's checkpoint",
          spark.read.format("delta").load(str(ck)).count() == 32)


def file_dirs(root):
    return sorted(str(p.parent.relative_to(root)) for p in Path(root).rglob("*.parquet")
                  if "_delta_log" not in p.parts)


def test_spark_typed_partitions(spark, work):
    ours = work / "typed"
    silt("typed", ours)
    query = ("SELECT id, v, n, CAST(d AS STRING) d, CAST(ts AS STRING) ts FROM delta.`{}` "
             "ORDER BY id")
    want = [(1, 0.0, 1, "2021-01-01", "2021-01-01 10:11:12"),
            (2, 1.5, -5, None, "2021-06-30 23:59:59.123456"),
            (3, 3.0, None, "1999-12-31", None)]
    got = [tuple(r) for r in spark.sql(query.format(ours)).collect()]
    check("spark reads int/date/timestamp partitions", got == want, got)
    theirs = work / "typed-spark"
    spark.sql(query.format(ours)).selectExpr("id", "v", "n", "CAST(d AS DATE) d",
                                             "CAST(ts AS TIMESTAMP) ts") \
        .write.format("delta").partitionBy("n", "d", "ts").save(str(theirs))
    check("typed partition folders as Spark names them", file_dirs(ours) == file_dirs(theirs),
          f"silt {file_dirs(ours)} spark {file_dirs(theirs)}")
    dt = DeltaTable(str(ours)).to_pyarrow_table()
    check("delta-rs reads typed partitions", sorted(dt.column("n").to_pylist(), key=repr)
          == sorted([1, -5, None], key=repr), dt.column("n").to_pylist())


def main():
    if WORK.exists():
        shutil.rmtree(WORK)
    WORK.mkdir(parents=True)
    main_root, ck_root = WORK / "main", WORK / "checkpointed"
    build_main(main_root)
    build_checkpointed(ck_root)
    check("silt reads its own table", silt_rows(main_root) == FINAL, silt_rows(main_root))
    test_checkpoint_files(ck_root)
    test_delta_rs(main_root, ck_root)
    test_spark(main_root, ck_root, WORK)
    print(f"{RESULTS['passed']} passed, {RESULTS['failed']} failed")
    return 1 if RESULTS["failed"] else 0


if __name__ == "__main__":
    sys.exit(main())
