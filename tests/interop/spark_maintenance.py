#!/usr/bin/env python3
"""Table maintenance between silt and Spark with Delta (issue 19).

    spark_maintenance.py SILT_BIN WORK_DIR [CASE,CASE...]

1. silt's OPTIMIZE: Spark reads the same rows from fewer files; every add
   and remove of the commit has dataChange = false; Spark's DESCRIBE HISTORY
   shows OPTIMIZE with silt's metrics. Then silt's ZORDER BY, the same.
2. silt's VACUUM RETAIN 0 HOURS (check off): Spark reads the current version
   right; an older version whose files went fails in Spark too; Spark's own
   VACUUM DRY RUN then finds nothing more to delete.
3. Spark's OPTIMIZE and VACUUM on a table silt wrote, then silt's OPTIMIZE,
   VACUUM and INSERT on it, interleaved: both read the same rows at the end.
   Spark deletes rows with deletion vectors; silt's OPTIMIZE applies them.
4. Manifests: silt's GENERATE symlink_format_manifest, read as Presto would
   (only the files listed, partition values from the folder names) gives the
   table's rows; Spark's manifest of the same table lists the same files.
   With delta.compatibility.symlinkFormatManifest.enabled, after silt's
   UPDATE the manifests list the new files and read the new rows.
5. silt's CONVERT TO DELTA of a Parquet folder Spark wrote (partitioned),
   read by Spark with silt's footer statistics; silt's DEEP CLONE of it, read
   by Spark, unchanged by a later DELETE on the source.
6. SHALLOW CLONE both ways: Spark reads silt's (absolute file: paths, the
   source's deletion vectors by absolute path) and its CLONE history; silt
   reads Spark's; silt's VACUUM of either clone deletes no source file.
8. Empty folders: the same layout (empty partition and other folders,
   nested ones, a hidden one, one holding a hidden file) vacuumed twice by
   silt and by Spark: the same DRY RUN lists, START/END metrics and trees
   after each of two VACUUMs.
9. Liquid clustering (not implemented): silt reads Spark's clustered table
   and shows its clustering columns in DESCRIBE DETAIL; OPTIMIZE is refused
   by the writer feature's name.
10. DESCRIBE DETAIL: silt's equals Spark's of the same table after INSERT,
   OPTIMIZE, ZORDER BY, VACUUM, GENERATE, DEEP and SHALLOW CLONE, LIKE and
   CONVERT (all but the times).
7. CONVERT of Parquet files of differing schemas (new columns, nested
   fields, a short beside an int, names differing in case): silt merges them
   to Spark's columns, rows and statistics; int and bigint fail in both.

Runs under <repo>/.peers/venv/bin/python (re-executing itself there).
Without the venv it exits 77 (skip), or 1 when CI=true.
"""
import glob
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from urllib.parse import unquote

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "tests" / "peers"))
from peers import reexec_in_venv  # noqa: E402

reexec_in_venv(__file__)
os.environ["TZ"] = "UTC"

SILT = sys.argv[1]
WORK = Path(sys.argv[2])
FAILURES = []


def silt(sql, ok=True):
    proc = subprocess.run([SILT, "sql", "--format", "csv",
                           "SET spark.databricks.delta.retentionDurationCheck.enabled = false; "
                           + sql], capture_output=True, text=True)
    if ok and proc.returncode != 0:
        raise SystemExit("silt failed on %s:\n%s" % (sql, proc.stderr))
    return proc


def check(cond, what):
    print(("ok   " if cond else "FAIL ") + what)
    if not cond:
        FAILURES.append(what)


def commit(table, version):
    with open(table / "_delta_log" / ("%020d.json" % version)) as f:
        return [json.loads(line) for line in f if line.strip()]


def latest(table):
    return max(int(n[:20]) for n in os.listdir(table / "_delta_log")
               if n.endswith(".json") and n[:20].isdigit())


def spark_rows(spark, table, version=None):
    reader = spark.read.format("delta")
    if version is not None:
        reader = reader.option("versionAsOf", version)
    return sorted(tuple(r) for r in reader.load(str(table)).collect())


def n_files(spark, table):
    return spark.sql(f"DESCRIBE DETAIL delta.`{table}`").collect()[0]["numFiles"]


def silt_rows(table, cols):
    proc = subprocess.run([SILT, "sql", "--format", "csv", f"SELECT {cols} FROM delta.`{table}`"],
                          capture_output=True, text=True, check=True)
    return proc.stdout.strip().splitlines()[1:]


def optimize_case(spark):
    t = WORK / "opt"
    silt(f"CREATE TABLE delta.`{t}` (id BIGINT, s STRING, p INT) USING DELTA PARTITIONED BY (p)")
    for k in range(6):
        silt(f"INSERT INTO delta.`{t}` SELECT id, 'v' || id, CAST(id % 2 AS INT) "
             f"FROM range({k * 100}, {(k + 1) * 100})")
    before, files_before = spark_rows(spark, t), n_files(spark, t)
    silt(f"OPTIMIZE delta.`{t}`")
    acts = commit(t, latest(t))
    changes = [a.get("add") or a.get("remove") for a in acts if "add" in a or "remove" in a]
    check(all(c["dataChange"] is False for c in changes) and len(changes) == 14,
          "silt OPTIMIZE: 12 removes and 2 adds, all dataChange false")
    check(spark_rows(spark, t) == before, "Spark reads the same rows after silt's OPTIMIZE")
    check(n_files(spark, t) == 2 < files_before, "Spark counts 2 files instead of %d"
          % files_before)
    hist = spark.sql(f"DESCRIBE HISTORY delta.`{t}` LIMIT 1").collect()[0]
    check(hist["operation"] == "OPTIMIZE" and hist["operationMetrics"]["numRemovedFiles"] == "12",
          "Spark's history shows silt's OPTIMIZE and its metrics")
    silt(f"OPTIMIZE delta.`{t}` ZORDER BY (id, s)")
    check(spark_rows(spark, t) == before, "Spark reads the same rows after silt's ZORDER BY")
    # Spark's data skipping on silt's statistics of the optimized files
    got = spark.sql(f"SELECT count(*) FROM delta.`{t}` WHERE id = 5").collect()[0][0]
    check(got == 1, "Spark's point query on the z-ordered table")


def vacuum_case(spark):
    t = WORK / "vac"
    silt(f"CREATE TABLE delta.`{t}` (id BIGINT) USING DELTA")
    silt(f"INSERT INTO delta.`{t}` SELECT id FROM range(10)")
    silt(f"INSERT INTO delta.`{t}` SELECT id FROM range(10, 20)")
    silt(f"DELETE FROM delta.`{t}` WHERE id < 10")  # version 3: the first file is removed
    old = spark_rows(spark, t, 1)
    out = silt(f"VACUUM delta.`{t}` RETAIN 0 HOURS DRY RUN").stdout
    check(out.count(".parquet") == 1, "silt's DRY RUN lists the one removed file")
    silt(f"VACUUM delta.`{t}` RETAIN 0 HOURS")
    check(spark_rows(spark, t) == [(i,) for i in range(10, 20)],
          "Spark reads the current version after silt's VACUUM")
    try:
        spark_rows(spark, t, 1)
        failed = False
    except Exception:  # noqa: BLE001 - Spark's FileNotFound in whatever wrapper
        failed = True
    check(failed and len(old) == 10, "Spark fails to read version 1, whose file VACUUM deleted")
    ops = [r["operation"] for r in spark.sql(f"DESCRIBE HISTORY delta.`{t}` LIMIT 2").collect()]
    check(ops == ["VACUUM END", "VACUUM START"], "Spark's history shows VACUUM START/END: %s" % ops)
    left = spark.sql(f"VACUUM delta.`{t}` RETAIN 0 HOURS DRY RUN").collect()
    check(len(left) == 0, "Spark's VACUUM DRY RUN finds nothing silt left: %s" % left)


def vacuum_folders_case(spark):
    """Empty folders: the same layout vacuumed twice by each side gives Delta's lists, metrics, trees."""
    import re
    import time

    def layout(t):
        # no nested empty folders: Delta deletes in no set order, so x/ of an empty x/y/ goes
        # in the same VACUUM or the next (silt deletes deepest first: in the same)
        for d in ("p=9", "junk", "_tmp", "q", "p=0/sub"):
            (t / d).mkdir(parents=True, exist_ok=True)
        (t / "q" / ".hidden").write_text("h")  # a folder of hidden files only: not removable

    def tree(t):
        out = []
        for root, dirs, files in os.walk(t):
            dirs[:] = [d for d in dirs if d != "_delta_log"]
            names = sorted("part" if f.startswith("part-") else f for f in files
                           if not f.endswith(".crc"))
            out.append("%s/ %s" % (os.path.relpath(root, t), names))
        return sorted(out)

    def metrics(t):
        v = latest(t)
        return [(c["commitInfo"]["operation"], {k: m for k, m in
                 c["commitInfo"]["operationMetrics"].items() if k != "sizeOfDataToDelete"})
                for version in (v - 1, v) for c in commit(t, version) if "commitInfo" in c]

    def rel(t, paths):
        return sorted(re.sub(r"part-[^/]*$", "part", p.replace("file:%s/" % t, "")) for p in paths)

    mine, theirs = WORK / "vacdir_silt", WORK / "vacdir_spark"
    silt(f"CREATE TABLE delta.`{mine}` (id INT, p INT) USING DELTA PARTITIONED BY (p); "
         f"INSERT INTO delta.`{mine}` VALUES (1, 0), (2, 1), (3, 2)")
    spark.sql(f"CREATE TABLE delta.`{theirs}` (id INT, p INT) USING DELTA PARTITIONED BY (p)")
    spark.sql(f"INSERT INTO delta.`{theirs}` VALUES (1, 0), (2, 1), (3, 2)")
    for t in (mine, theirs):
        layout(t)
    silt(f"DELETE FROM delta.`{mine}` WHERE p = 1")
    spark.sql(f"DELETE FROM delta.`{theirs}` WHERE p = 1")
    time.sleep(1.1)  # every file older than RETAIN 0 HOURS' horizon
    for run in (1, 2):
        dry_mine = rel(mine, silt(f"VACUUM delta.`{mine}` RETAIN 0 HOURS DRY RUN").stdout
                       .splitlines()[3:])
        dry_theirs = rel(theirs, [r[0] for r in spark.sql(
            f"VACUUM delta.`{theirs}` RETAIN 0 HOURS DRY RUN").collect()])
        check(dry_mine == dry_theirs, "VACUUM %d: silt's DRY RUN lists Delta's files and empty "
              "folders: %s vs %s" % (run, dry_mine, dry_theirs))
        silt(f"VACUUM delta.`{mine}` RETAIN 0 HOURS")
        spark.sql(f"VACUUM delta.`{theirs}` RETAIN 0 HOURS")
        check(metrics(mine) == metrics(theirs), "VACUUM %d: silt's START/END metrics are Delta's: "
              "%s vs %s" % (run, metrics(mine), metrics(theirs)))
        check(tree(mine) == tree(theirs), "VACUUM %d: the folders left are Delta's: %s vs %s"
              % (run, tree(mine), tree(theirs)))


def interleave_case(spark):
    t = WORK / "mix"
    silt(f"CREATE TABLE delta.`{t}` (id BIGINT, p INT) USING DELTA PARTITIONED BY (p) "
         "TBLPROPERTIES ('delta.enableDeletionVectors' = 'true')")
    for k in range(4):
        silt(f"INSERT INTO delta.`{t}` SELECT id, CAST(id % 3 AS INT) FROM "
             f"range({k * 50}, {(k + 1) * 50})")
    spark.sql(f"OPTIMIZE delta.`{t}`").collect()
    spark.sql(f"DELETE FROM delta.`{t}` WHERE id % 10 = 0")  # deletion vectors
    dv = any("add" in a and a["add"].get("deletionVector") for a in commit(t, latest(t)))
    check(dv, "Spark's DELETE wrote deletion vectors")
    silt(f"INSERT INTO delta.`{t}` SELECT id, CAST(id % 3 AS INT) FROM range(200, 230)")
    res = silt(f"OPTIMIZE delta.`{t}`").stdout
    check('""numDeletionVectorsRemoved"":' in res, "silt's OPTIMIZE applied the deletion vectors")
    after = commit(t, latest(t))
    check(not any("add" in a and a["add"].get("deletionVector") for a in after),
          "silt's compacted files carry no deletion vector")
    spark.sql(f"VACUUM delta.`{t}` RETAIN 0 HOURS").collect()
    silt(f"VACUUM delta.`{t}` RETAIN 0 HOURS")
    spark.sql(f"INSERT INTO delta.`{t}` VALUES (1000, 1)")
    spark.sql(f"OPTIMIZE delta.`{t}` WHERE p = 1").collect()
    # the DELETE came before the rows 200..229 were inserted
    want = sorted([(i, i % 3) for i in range(200) if i % 10 != 0] +
                  [(i, i % 3) for i in range(200, 230)] + [(1000, 1)])
    check(spark_rows(spark, t) == want, "Spark reads the interleaved table right")
    got = sorted(tuple(int(x) for x in line.split(",")) for line in silt_rows(t, "id, p"))
    check(got == want, "silt reads the interleaved table right")


def read_manifests(spark, table, cols):
    """Rows as Presto reads them: the listed files only, partitions from the folders."""
    import pyarrow.parquet as pq
    rows = []
    for mf in glob.glob(str(table / "_symlink_format_manifest" / "**" / "manifest"),
                        recursive=True):
        rel = os.path.relpath(os.path.dirname(mf), table / "_symlink_format_manifest")
        part = {}
        if rel != ".":
            for seg in rel.split(os.sep):
                k, v = seg.split("=", 1)
                part[k] = unquote(v)
        for line in open(mf).read().splitlines():
            path = line[len("file:"):] if line.startswith("file:") else line
            data = pq.read_table(path).to_pylist()
            for r in data:
                r.update({k: (None if v == "__HIVE_DEFAULT_PARTITION__" else int(v))
                          for k, v in part.items()})
                rows.append(tuple(r[c] for c in cols))
    return sorted(rows, key=repr)


def listed(table):
    out = set()
    for mf in glob.glob(str(table / "_symlink_format_manifest" / "**" / "manifest"),
                        recursive=True):
        out |= set(open(mf).read().splitlines())
    return out


def manifest_case(spark):
    t = WORK / "man"
    silt(f"CREATE TABLE delta.`{t}` (id BIGINT, s STRING, p INT) USING DELTA PARTITIONED BY (p)")
    silt(f"INSERT INTO delta.`{t}` SELECT id, 'v' || id, CAST(id % 3 AS INT) FROM range(30)")
    silt(f"INSERT INTO delta.`{t}` VALUES (100, 'x', NULL)")
    silt(f"DELETE FROM delta.`{t}` WHERE id = 4")
    silt(f"GENERATE symlink_format_manifest FOR TABLE delta.`{t}`")
    want = sorted(spark_rows(spark, t), key=repr)
    check(read_manifests(spark, t, ["id", "s", "p"]) == want,
          "the manifests read as Presto give the table's rows")
    mine = listed(t)
    spark.sql(f"GENERATE symlink_format_manifest FOR TABLE delta.`{t}`")
    check(listed(t) == mine, "Spark's manifests list the same files as silt's")
    silt(f"ALTER TABLE delta.`{t}` SET TBLPROPERTIES "
         "('delta.compatibility.symlinkFormatManifest.enabled' = 'true')")
    silt(f"UPDATE delta.`{t}` SET s = 'upd' WHERE p = 1")
    want = sorted(spark_rows(spark, t), key=repr)
    got = read_manifests(spark, t, ["id", "s", "p"])
    check(got == want and any(r[1] == "upd" for r in got),
          "after silt's UPDATE with auto-update the manifests read the new rows")
    live = {"file:%s/%s" % (t, unquote(a["add"]["path"]))
            for v in range(latest(t) + 1) for a in commit(t, v) if "add" in a}
    check(listed(t) <= live, "the manifests list only files the log added")


def convert_clone_case(spark):
    src = WORK / "pq"
    df = spark.range(0, 300).selectExpr("id", "cast(id % 3 as int) as p", "concat('v', id) as s")
    df.write.partitionBy("p").parquet(str(src))
    want = sorted(tuple(r) for r in df.select("id", "s", "p").collect())
    silt(f"CONVERT TO DELTA parquet.`{src}` PARTITIONED BY (p INT)")
    check(spark_rows(spark, src) == want, "Spark reads the table silt converted from its Parquet")
    stats = [json.loads(a["add"]["stats"]) for a in commit(src, 0) if "add" in a]
    check(all(st["numRecords"] > 0 and "minValues" in st for st in stats),
          "silt's CONVERT collected statistics from the footers")
    got = spark.sql(f"SELECT count(*) FROM delta.`{src}` WHERE id = 7 AND p = 1").collect()[0][0]
    check(got == 1, "Spark's query on the converted table")
    clone = WORK / "clone"
    silt(f"CREATE TABLE delta.`{clone}` DEEP CLONE delta.`{src}`")
    check(spark_rows(spark, clone) == want, "Spark reads silt's DEEP CLONE")
    spark.sql(f"DELETE FROM delta.`{src}` WHERE p = 0")
    check(spark_rows(spark, clone) == want, "the clone keeps its rows when the source changes")


def convert_merge_case(spark):
    """CONVERT of Parquet files whose schemas differ: merged as Delta merges them."""
    import pyarrow as pa
    import pyarrow.parquet as pq
    i64, i32 = pa.int64(), pa.int32()
    folders = {
        "merge": [("p=1/f1.parquet", pa.table({"id": pa.array([1, 2], i64), "A": pa.array([10, 20], i32),
                                               "s": pa.array([{"x": 1}, None], pa.struct([("x", i32)]))})),
                  ("p=1/f2.parquet", pa.table({"a": pa.array([30], pa.int16()), "id": pa.array([3], i64)})),
                  ("p=2/f3.parquet", pa.table({"b": pa.array(["x"]), "id": pa.array([4], i64),
                                               "s": pa.array([{"y": "q"}], pa.struct([("y", pa.string())]))}))],
        "clash": [("f1.parquet", pa.table({"a": pa.array([1], i32)})),
                  ("f2.parquet", pa.table({"a": pa.array([2], i64)}))],
    }
    for name, files in folders.items():
        for side in ("silt", "spark"):
            for rel, tbl in files:
                path = WORK / ("conv_%s_%s" % (name, side)) / rel
                path.parent.mkdir(parents=True, exist_ok=True)
                pq.write_table(tbl, str(path))
    part = "PARTITIONED BY (p INT)"
    mine, theirs = WORK / "conv_merge_silt", WORK / "conv_merge_spark"
    silt(f"CONVERT TO DELTA parquet.`{mine}` {part}")
    spark.sql(f"CONVERT TO DELTA parquet.`{theirs}` {part}")
    # Spark folds the files' schemas in the order its parallel footer reads return;
    # silt in listing order: the columns are the same, their order may differ.
    def norm(v):  # struct fields sorted by name at every depth, names lower-cased
        if isinstance(v, dict):
            v = {k.lower(): norm(x) for k, x in v.items() if x != {}}  # Spark writes "s": {} for none
            if "fields" in v:
                v["fields"] = sorted(v["fields"], key=lambda f: f["name"])
            return v
        if isinstance(v, list):
            return [norm(x) for x in v]
        return v.lower() if isinstance(v, str) else v
    fields = lambda t: norm(spark.read.format("delta").load(str(t)).schema.jsonValue())  # noqa: E731
    check(fields(mine) == fields(theirs), "silt's merged CONVERT schema has Spark's columns and "
          "types: %s vs %s" % (fields(mine), fields(theirs)))
    # names compared ignoring case: each side keeps the spelling of the file it merged first
    by_name = lambda t: sorted(json.dumps(r.asDict(recursive=True), sort_keys=True).lower()  # noqa: E731
                               for r in spark.read.format("delta").load(str(t)).collect())
    check(by_name(mine) == by_name(theirs), "Spark reads silt's merged CONVERT as its own")
    stats = lambda t: sorted(json.dumps(norm(json.loads(a["add"]["stats"])), sort_keys=True)  # noqa: E731
                             for a in commit(t, 0) if "add" in a)
    check(stats(mine) == stats(theirs), "silt's statistics of the merged files are Spark's: %s vs %s"
          % (stats(mine), stats(theirs)))
    got = silt(f"SELECT id, a, b, s.x, s.y, p FROM delta.`{mine}` ORDER BY id").stdout
    check(got.splitlines()[-4:] == ["1,10,,1,,1", "2,20,,,,1", "3,30,,,,1", "4,,x,,q,2"],
          "silt reads its merged CONVERT: %r" % got)
    refused = silt(f"CONVERT TO DELTA parquet.`{WORK / 'conv_clash_silt'}`", ok=False)
    try:
        spark.sql(f"CONVERT TO DELTA parquet.`{WORK / 'conv_clash_spark'}`")
        spark_err = ""
    except Exception as e:  # noqa: BLE001 - the error class is compared
        spark_err = str(e)
    check(refused.returncode != 0 and "[DELTA_FAILED_TO_MERGE_FIELDS]" in refused.stderr
          and "[DELTA_FAILED_TO_MERGE_FIELDS]" in spark_err,
          "int and bigint files fail to merge in both: %r / %r" % (refused.stderr[:200], spark_err[:200]))


def liquid_case(spark):
    """Liquid clustering is not implemented: Spark's clustered table reads, writes are refused."""
    t = WORK / "liquid"
    spark.sql(f"CREATE TABLE delta.`{t}` (a INT, b STRING) USING DELTA CLUSTER BY (a, b)")
    spark.sql(f"INSERT INTO delta.`{t}` VALUES (1, 'x'), (2, 'y')")
    got = sorted(silt_rows(t, "a, b"))
    check(got == ["1,x", "2,y"], "silt reads Spark's clustered table: %s" % got)
    theirs = list(spark.sql(f"DESCRIBE DETAIL delta.`{t}`").collect()[0]["clusteringColumns"])
    out = silt(f"DESCRIBE DETAIL delta.`{t}`").stdout
    check(theirs == ["a", "b"] and '"[""a"",""b""]"' in out,
          "DESCRIBE DETAIL shows Spark's clustering columns %s: %s" % (theirs, out[-300:]))
    refused = silt(f"OPTIMIZE delta.`{t}`", ok=False)
    check(refused.returncode != 0 and 'writer feature "clustering"' in refused.stderr,
          "silt's OPTIMIZE of a clustered table is refused by name: %r" % refused.stderr[:200])


def detail_case(spark):
    """DESCRIBE DETAIL by silt equals Spark's of the same table after each maintenance statement."""
    keys = ("format", "id", "location", "partitionColumns", "clusteringColumns", "numFiles",
            "sizeInBytes", "properties", "minReaderVersion", "minWriterVersion", "tableFeatures")

    def both(t, what):
        row = spark.sql(f"DESCRIBE DETAIL delta.`{t}`").collect()[0].asDict()
        theirs = {k: row[k] for k in keys}
        theirs["location"] = str(theirs["location"]).rstrip("/")
        theirs["properties"] = dict(theirs["properties"] or {})
        out = silt(f"DESCRIBE DETAIL delta.`{t}`").stdout
        import csv
        import io
        rows = list(csv.DictReader(io.StringIO(out[out.index("format,"):])))
        mine = {k: rows[0][k] for k in keys}
        for k in ("numFiles", "sizeInBytes", "minReaderVersion", "minWriterVersion"):
            mine[k] = int(mine[k])
        for k in ("partitionColumns", "clusteringColumns", "tableFeatures"):
            mine[k] = json.loads(mine[k])
            theirs[k] = list(theirs[k] or [])
        mine["properties"] = dict(json.loads(mine["properties"]) or [])
        mine["tableFeatures"], theirs["tableFeatures"] = (sorted(mine["tableFeatures"]),
                                                          sorted(theirs["tableFeatures"]))
        check(mine == theirs, "DESCRIBE DETAIL after %s is Spark's: %s vs %s" % (what, mine, theirs))

    t = WORK / "detail"
    silt(f"CREATE TABLE delta.`{t}` (id BIGINT, p INT) USING DELTA PARTITIONED BY (p) "
         "TBLPROPERTIES ('delta.appendOnly' = 'false')")
    for k in range(3):
        silt(f"INSERT INTO delta.`{t}` SELECT id, CAST(id % 2 AS INT) FROM range({k * 50}, {k * 50 + 50})")
    both(t, "INSERTs")
    silt(f"OPTIMIZE delta.`{t}`")
    both(t, "OPTIMIZE")
    silt(f"OPTIMIZE delta.`{t}` ZORDER BY (id)")
    both(t, "OPTIMIZE ZORDER BY")
    silt(f"VACUUM delta.`{t}` RETAIN 0 HOURS")
    both(t, "VACUUM")
    silt(f"GENERATE symlink_format_manifest FOR TABLE delta.`{t}`")
    both(t, "GENERATE")
    for kind in ("DEEP", "SHALLOW"):
        c = WORK / ("detail_%s" % kind.lower())
        silt(f"CREATE TABLE delta.`{c}` {kind} CLONE delta.`{t}`")
        both(c, "%s CLONE" % kind)
    like = WORK / "detail_like"
    silt(f"CREATE TABLE delta.`{like}` LIKE delta.`{t}`")
    both(like, "CREATE TABLE LIKE")
    pq_dir = WORK / "detail_pq"
    spark.range(0, 20).selectExpr("id", "cast(id % 2 as int) as p").write.partitionBy("p") \
        .parquet(str(pq_dir))
    silt(f"CONVERT TO DELTA parquet.`{pq_dir}` PARTITIONED BY (p INT)")
    both(pq_dir, "CONVERT TO DELTA")


def shallow_clone_case(spark):
    src = WORK / "shsrc"
    silt(f"CREATE TABLE delta.`{src}` (id INT, p INT) USING DELTA PARTITIONED BY (p) "
         "TBLPROPERTIES ('delta.enableDeletionVectors' = 'true'); "
         f"INSERT INTO delta.`{src}` SELECT id, id % 2 FROM range(0, 40); "
         f"INSERT INTO delta.`{src}` SELECT id, id % 2 FROM range(40, 60)")
    spark.sql(f"DELETE FROM delta.`{src}` WHERE id % 5 = 0")
    want = spark_rows(spark, src)
    mine = WORK / "shsilt"
    silt(f"CREATE TABLE delta.`{mine}` SHALLOW CLONE delta.`{src}`")
    adds = [a["add"] for a in commit(mine, 0) if "add" in a]
    check(adds and all(a["path"].startswith("file:/") for a in adds)
          and not list(mine.glob("p=*")), "silt's SHALLOW CLONE names the source's files, copies none")
    check(any(a.get("deletionVector", {}).get("storageType") == "p" for a in adds),
          "silt's SHALLOW CLONE names the source's vectors by absolute path")
    check(spark_rows(spark, mine) == want, "Spark reads silt's SHALLOW CLONE (deletion vectors applied)")
    hist = spark.sql(f"DESCRIBE HISTORY delta.`{mine}`").collect()[0]
    check(hist["operation"] == "CLONE" and hist["operationParameters"]["isShallow"] == "true"
          and hist["operationMetrics"]["numCopiedFiles"] == "0",
          "Spark's history of silt's clone: CLONE, isShallow true, nothing copied: %s"
          % dict(hist["operationMetrics"]))
    theirs = WORK / "shspark"
    spark.sql(f"CREATE TABLE delta.`{theirs}` SHALLOW CLONE delta.`{src}` VERSION AS OF 1")
    got = sorted(tuple(int(v) for v in line.split(",")) for line in silt_rows(theirs, "id, p"))
    check(got == spark_rows(spark, src, 1), "silt reads Spark's SHALLOW CLONE (version 1)")
    silt(f"DELETE FROM delta.`{theirs}` WHERE p = 0; VACUUM delta.`{theirs}` RETAIN 0 HOURS; "
         f"VACUUM delta.`{mine}` RETAIN 0 HOURS")
    check(spark_rows(spark, src) == want and spark_rows(spark, src, 1) == spark_rows(spark, theirs, 0),
          "silt's VACUUM of both clones deletes none of the source's files")


def main():
    from peers import spark_session
    shutil.rmtree(WORK, ignore_errors=True)
    WORK.mkdir(parents=True)
    spark = spark_session()
    # VACUUM and CONVERT list folders with this many tasks (10,000 by default): minutes locally
    spark.conf.set("spark.sql.sources.parallelPartitionDiscovery.parallelism", "4")
    spark.conf.set("spark.databricks.delta.retentionDurationCheck.enabled", "false")
    cases = (optimize_case, vacuum_case, vacuum_folders_case, interleave_case, manifest_case, convert_clone_case,
             convert_merge_case, liquid_case, detail_case, shallow_clone_case)
    only = sys.argv[3].split(",") if len(sys.argv) > 3 else None  # to rerun some by name
    for case in cases:
        if only is not None and case.__name__ not in only:
            continue
        try:
            case(spark)
        except Exception as e:  # noqa: BLE001 - report and go on
            check(False, "%s raised %s: %s" % (case.__name__, type(e).__name__, str(e)[:500]))
    print("%d failed" % len(FAILURES))
    return 1 if FAILURES else 0


if __name__ == "__main__":
    sys.exit(main())
