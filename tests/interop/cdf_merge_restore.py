#!/usr/bin/env python3
"""The change data feed of silt's MERGE and RESTORE, read by Spark and delta-rs.

    cdf_merge_restore.py SILT_BIN WORK_DIR

silt creates a table with delta.enableChangeDataFeed = true and runs, one
version each: an INSERT of 1..3 (v1), an INSERT of 4 (v2), a MERGE that
updates 1, deletes 3 and inserts 9 (v3: cdc files with update_preimage,
update_postimage, delete and insert rows), an insert-only MERGE of 10 (v4:
no cdc files, its add file is the change, as Delta writes it), an UPDATE of
2 (v5), a partitioned-style MERGE with WHEN NOT MATCHED BY SOURCE DELETE
(v6) and a RESTORE TABLE ... TO VERSION AS OF 2 (v7: no cdc files; the
removed files read as deletes and the re-added files as inserts, as Spark
reads its own RESTORE). Spark's readChangeFeed and delta-rs's load_cdf of
every version must give exactly the expected change rows (id, v,
_change_type, _commit_version), and the final rows must equal Spark's read.

Runs under <repo>/.peers/venv/bin/python (re-executing itself there).
Without the venv it exits 77 (skip), or 1 when CI=true.
"""
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

# (statement, expected change rows of its version as (id, v, _change_type))
STEPS = [
    ("INSERT INTO {t} VALUES (1, 'a'), (2, 'b'), (3, 'c')",
     [(1, "a", "insert"), (2, "b", "insert"), (3, "c", "insert")]),
    ("INSERT INTO {t} VALUES (4, 'd')", [(4, "d", "insert")]),
    ("MERGE INTO {t} t USING (SELECT * FROM VALUES (1, 'A'), (3, 'X'), (9, 'z') AS s(id, v)) s "
     "ON t.id = s.id WHEN MATCHED AND s.v = 'X' THEN DELETE WHEN MATCHED THEN UPDATE SET * "
     "WHEN NOT MATCHED THEN INSERT *",
     [(1, "a", "update_preimage"), (1, "A", "update_postimage"), (3, "c", "delete"),
      (9, "z", "insert")]),
    ("MERGE INTO {t} t USING (SELECT * FROM VALUES (10, 'n') AS s(id, v)) s ON t.id = s.id "
     "WHEN NOT MATCHED THEN INSERT *", [(10, "n", "insert")]),
    ("UPDATE {t} SET v = 'B' WHERE id = 2", [(2, "b", "update_preimage"),
                                              (2, "B", "update_postimage")]),
    ("MERGE INTO {t} t USING (SELECT * FROM VALUES (1, 'A2'), (4, 'd')) AS s(id, v) "
     "ON t.id = s.id WHEN MATCHED AND t.v <> s.v THEN UPDATE SET v = s.v "
     "WHEN NOT MATCHED BY SOURCE AND t.id > 9 THEN DELETE",
     [(1, "A", "update_preimage"), (1, "A2", "update_postimage"), (10, "n", "delete")]),
    # Live before: 1 A2, 2 B, 4 d, 9 z; at version 2: 1 a, 2 b, 3 c, 4 d.
    ("RESTORE TABLE {t} TO VERSION AS OF 2", None),
]


def silt(sql):
    proc = subprocess.run([SILT, "sql", "--format", "csv", sql], capture_output=True, text=True)
    if proc.returncode != 0:
        raise SystemExit("silt failed on %s:\n%s" % (sql, proc.stderr))
    return proc.stdout


def has_cdc(table, version):
    with open(table / "_delta_log" / ("%020d.json" % version)) as f:
        return any(json.loads(line).get("cdc") for line in f)


def rows_of_files(table, version, kind):
    """The rows of the data files commit `version` adds or removes (dataChange), read with
    pyarrow: what a RESTORE commit's change feed is."""
    import pyarrow.parquet as pq
    out = []
    with open(table / "_delta_log" / ("%020d.json" % version)) as f:
        for line in f:
            act = json.loads(line).get(kind)
            if act and act.get("dataChange", True):
                t = pq.read_table(table / act["path"])
                out += [(r["id"], r["v"]) for r in t.to_pylist()]
    return out


def main():
    shutil.rmtree(WORK, ignore_errors=True)
    WORK.mkdir(parents=True)
    table = WORK / "t"
    t = "delta.`%s`" % table
    silt("CREATE TABLE %s (id INT, v STRING) USING DELTA "
         "TBLPROPERTIES ('delta.enableChangeDataFeed' = 'true')" % t)
    expected = {}
    for version, (sql, changes) in enumerate(STEPS, start=1):
        silt(sql.format(t=t))
        if changes is None:
            changes = ([r + ("delete",) for r in rows_of_files(table, version, "remove")]
                       + [r + ("insert",) for r in rows_of_files(table, version, "add")])
            want_restore = {(1, "A2", "delete"), (2, "B", "delete"), (9, "z", "delete"),
                            (1, "a", "insert"), (2, "b", "insert"), (3, "c", "insert")}
            # 4 d stays in the file both versions share (not re-added, not removed).
            if set(changes) != want_restore:
                raise SystemExit("RESTORE commit files give %s" % sorted(changes))
        expected[version] = sorted(c + (version,) for c in changes)
    failures = 0
    cdc_at = {v: has_cdc(table, v) for v in expected}
    for v, want_cdc in ((3, True), (4, False), (5, True), (6, True), (7, False)):
        ok = cdc_at[v] == want_cdc
        failures += not ok
        print("%s cdc files at version %d: %s" % ("ok  " if ok else "FAIL", v, cdc_at[v]))

    from peers import spark_session
    spark = spark_session()
    for v, want in expected.items():
        rows = (spark.read.format("delta").option("readChangeFeed", "true")
                .option("startingVersion", v).option("endingVersion", v).load(str(table))
                .select("id", "v", "_change_type", "_commit_version").collect())
        got = sorted(tuple(r) for r in rows)
        ok = got == want
        failures += not ok
        print("%s Spark change feed of version %d%s" % ("ok  " if ok else "FAIL", v,
                                                       "" if ok else ": %s, want %s" % (got, want)))
    final = sorted(tuple(r) for r in spark.read.format("delta").load(str(table)).collect())
    silt_rows = sorted(tuple((int(a), b)) for a, b in
                       (line.split(",", 1) for line in
                        silt("SELECT id, v FROM %s" % t).splitlines()[1:]))
    ok = final == silt_rows == [(1, "a"), (2, "b"), (3, "c"), (4, "d")]
    failures += not ok
    print("%s rows after RESTORE: Spark %s, silt %s" % ("ok  " if ok else "FAIL", final, silt_rows))

    import pyarrow as pa
    from deltalake import DeltaTable
    dt = DeltaTable(str(table))
    for v, want in expected.items():
        got = sorted((r["id"], r["v"], r["_change_type"], r["_commit_version"])
                     for r in pa.table(dt.load_cdf(starting_version=v, ending_version=v)
                                       .read_all()).to_pylist())
        ok = got == want
        failures += not ok
        print("%s delta-rs change feed of version %d%s" % ("ok  " if ok else "FAIL", v,
                                                          "" if ok else ": %s, want %s" % (got, want)))
    print("%d failed" % failures)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
