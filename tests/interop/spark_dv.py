#!/usr/bin/env python3
"""Deletion vectors written by silt, read by Spark and delta-rs; Spark's read by silt (docs/dv.md).

    spark_dv.py SILT_BIN WORK_DIR

1. silt writes tables with delta.enableDeletionVectors (plain and partitioned)
   and runs DELETE, a second DELETE on the same file, UPDATE and MERGE; after
   each statement Spark and delta-rs (its QueryBuilder: the pyarrow reader
   refuses DV tables) read exactly silt's rows, and the commit's
   actions are a remove + add of the same path with a 'u' vector.
2. The same statements in Spark on a twin table (a copy of silt's before the
   first statement, so both have the same files): silt's commitInfo DV metrics
   (numDeletionVectors*, numRemovedFiles, numDeletedRows/numUpdatedRows) are
   Spark's.
3. Spark DELETEs on a silt-written DV table and silt DELETEs on a Spark-written
   one: both read the other's vectors (rows compared); silt's REORG ... APPLY
   (PURGE) of the latter leaves no vector and Spark reads the rows.
DuckDB's delta extension is not available offline here, so DuckDB is not a peer.

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
    print("%s %s%s" % ("ok  " if ok else "FAIL", what, "" if ok else ": " + str(detail)))


def silt(sql):
    proc = subprocess.run([SILT, "sql", "--format", "csv", sql], capture_output=True, text=True)
    if proc.returncode != 0:
        raise SystemExit("silt failed on %s:\n%s" % (sql, proc.stderr))
    return proc.stdout


def silt_rows(path):
    out = silt("SELECT id, v, p FROM delta.`%s`" % path)
    rows = list(csv.reader(io.StringIO(out)))[1:]
    return sorted((int(r[0]), r[1], int(r[2])) for r in rows)


def spark_rows(spark, path):
    return sorted((r.id, r.v, r.p) for r in spark.read.format("delta").load(str(path)).collect())


def deltars_rows(path):
    # delta-rs's pyarrow reader refuses the deletionVectors reader feature; its DataFusion
    # query engine (QueryBuilder) applies the vectors
    import pyarrow as pa
    from deltalake import DeltaTable, QueryBuilder
    out = QueryBuilder().register("t", DeltaTable(str(path))).execute("SELECT id, v, p FROM t")
    return sorted((r["id"], r["v"], r["p"]) for r in pa.table(out.read_all()).to_pylist())


def last_commit(path):
    logs = sorted((Path(path) / "_delta_log").glob("*.json"))
    return [json.loads(line) for line in logs[-1].read_text().splitlines()]


def metrics(actions):
    ci = [a["commitInfo"] for a in actions if "commitInfo" in a][0]
    keys = ("numDeletionVectorsAdded", "numDeletionVectorsRemoved", "numDeletionVectorsUpdated",
            "numRemovedFiles", "numAddedFiles", "numDeletedRows", "numUpdatedRows",
            "numCopiedRows", "numTargetDeletionVectorsAdded", "numTargetDeletionVectorsRemoved",
            "numTargetDeletionVectorsUpdated", "numTargetRowsDeleted", "numTargetRowsUpdated")
    return {k: v for k, v in ci["operationMetrics"].items() if k in keys}


STATEMENTS = [
    ("DELETE", "DELETE FROM delta.`{t}` WHERE id % 10 = 3"),
    ("second DELETE", "DELETE FROM delta.`{t}` WHERE id % 10 = 4 OR id % 10 = 3"),
    ("UPDATE", "UPDATE delta.`{t}` SET v = 'u' WHERE id % 25 = 5"),
    ("MERGE", "MERGE INTO delta.`{t}` t USING (SELECT 6 AS id, 'm' AS v, 0 AS p UNION ALL "
              "SELECT 1000, 'n', 1) s ON t.id = s.id WHEN MATCHED THEN UPDATE SET v = s.v "
              "WHEN NOT MATCHED THEN INSERT *"),
]


def make_table(runner, path, partitioned):
    runner("CREATE TABLE delta.`%s` (id INT, v STRING, p INT) USING delta %s "
           "TBLPROPERTIES ('delta.enableDeletionVectors' = 'true')"
           % (path, "PARTITIONED BY (p)" if partitioned else ""))
    runner("INSERT INTO delta.`%s` SELECT CAST(id AS INT), CAST(id AS STRING), "
           "CAST(id %% 2 AS INT) FROM range(0, 200)" % path)


def silt_writes(spark):
    for partitioned in (False, True):
        kind = "partitioned" if partitioned else "plain"
        t = WORK / ("silt_" + kind)
        twin = WORK / ("spark_" + kind)
        make_table(silt, t, partitioned)
        shutil.copytree(t, twin)  # the same files: the metrics count them alike
        for what, sql in STATEMENTS:
            silt(sql.format(t=t))
            spark.sql(sql.format(t=twin))
            want = silt_rows(t)
            check("%s %s: Spark reads silt's rows" % (kind, what), spark_rows(spark, t) == want)
            check("%s %s: delta-rs reads silt's rows" % (kind, what), deltars_rows(t) == want)
            check("%s %s: Spark's twin has the same rows" % (kind, what),
                  spark_rows(spark, twin) == want)
            acts = last_commit(t)
            if what != "MERGE":
                dvs = [a["add"] for a in acts if "add" in a and "deletionVector" in a["add"]]
                rm = {a["remove"]["path"] for a in acts if "remove" in a}
                check("%s %s: remove + add of one path with a 'u' vector" % (kind, what),
                      dvs and all(d["deletionVector"]["storageType"] == "u" and d["path"] in rm
                                  for d in dvs), acts)
                mine, theirs = metrics(acts), metrics(last_commit(twin))
                check("%s %s: DV metrics as Spark's" % (kind, what), mine == theirs,
                      (mine, theirs))


def cross_writes(spark):
    t = WORK / "silt_then_spark"
    make_table(silt, t, False)
    silt("DELETE FROM delta.`%s` WHERE id < 50" % t)
    spark.sql("DELETE FROM delta.`%s` WHERE id >= 150" % t)
    check("Spark DELETE over a silt vector: silt reads it", silt_rows(t) == spark_rows(spark, t)
          and len(silt_rows(t)) == 100)
    t = WORK / "spark_then_silt"
    make_table(spark.sql, t, False)
    spark.sql("DELETE FROM delta.`%s` WHERE id < 50" % t)
    silt("DELETE FROM delta.`%s` WHERE id >= 150" % t)
    silt("UPDATE delta.`%s` SET v = 'x' WHERE id = 100" % t)
    check("silt DELETE over a Spark vector: Spark reads it", silt_rows(t) == spark_rows(spark, t)
          and len(silt_rows(t)) == 100)
    silt("REORG TABLE delta.`%s` APPLY (PURGE)" % t)
    acts = last_commit(t)
    check("silt REORG: no vector left, Spark reads the rows",
          silt_rows(t) == spark_rows(spark, t) and len(silt_rows(t)) == 100 and
          not any("deletionVector" in a.get("add", {}) for a in acts) and
          all(not a[k]["dataChange"] for a in acts for k in ("add", "remove") if k in a), acts)


def main():
    from peers import spark_session
    shutil.rmtree(WORK, ignore_errors=True)
    WORK.mkdir(parents=True)
    spark = spark_session()
    silt_writes(spark)
    cross_writes(spark)
    print("%d failure(s)" % failures)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
