#!/usr/bin/env python3
"""The change data feed: silt's table_changes against Spark's, both ways (docs/cdf.md).

    spark_cdf.py SILT_BIN WORK_DIR

1. silt writes tables with the feed on (plain, partitioned, column mapping by
   name) and runs INSERT, UPDATE, DELETE and MERGE; Spark's table_changes_by_path
   of the whole range gives exactly silt's rows (data columns, _change_type,
   _commit_version and unix_millis(_commit_timestamp)).
2. Spark writes tables the same way (also with deletion vectors, whose DELETE
   and UPDATE have no change files: the feed comes from the vector updates);
   silt reads them and gets Spark's rows.
3. The cdf-* tables of ../shared/conformance: silt's rows equal the expected
   cdf_<A>_<B>.jsonl (written by a reference reader; no timestamps there).
4. The errors of a start before the feed was enabled and after the latest
   version carry Spark's error class.

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
SHARED = Path(os.environ.get("SILT_SHARED_DIR", REPO.parent / "shared"))
failures = 0


def check(what, ok, detail=""):
    global failures
    failures += not ok
    print("%s %s%s" % ("ok  " if ok else "FAIL", what, "" if ok else ": " + detail))


def silt(sql, ok=True):
    proc = subprocess.run([SILT, "sql", "--format", "csv", sql], capture_output=True, text=True)
    if ok and proc.returncode != 0:
        raise SystemExit("silt failed on %s:\n%s" % (sql, proc.stderr))
    return proc


def silt_rows(sql):
    out = silt(sql).stdout
    lines = out.splitlines()
    # the last result of the statements: from its header on
    rows = list(csv.reader(io.StringIO("\n".join(lines))))
    return sorted(tuple(r) for r in rows[1:])


def changes_sql(path, cols, start=0):
    return ("SELECT %s, _change_type, _commit_version, unix_millis(_commit_timestamp) AS ts "
            "FROM table_changes_by_path('%s', %d)" % (", ".join(cols), path, start))


def spark_rows(spark, sql):
    out = []
    for r in spark.sql(sql).collect():
        out.append(tuple("" if v is None else str(v) for v in r))
    return sorted(out)


# (name, create options, statements over {t})
SCENARIOS = [
    ("plain", "", [
        "INSERT INTO {t} VALUES (1, 'a', 'x'), (2, 'b', 'y'), (3, 'c', 'x')",
        "UPDATE {t} SET v = 'B' WHERE id = 2",
        "DELETE FROM {t} WHERE id = 3",
        "MERGE INTO {t} t USING (SELECT * FROM VALUES (1, 'A', 'x'), (9, 'z', 'y') AS s(id, v, p)) s "
        "ON t.id = s.id WHEN MATCHED THEN UPDATE SET * WHEN NOT MATCHED THEN INSERT *",
    ]),
    ("partitioned", "PARTITIONED BY (p)", [
        "INSERT INTO {t} VALUES (1, 'a', 'x'), (2, 'b', 'y'), (3, 'c', 'x')",
        "UPDATE {t} SET v = 'B' WHERE id = 2",
        "DELETE FROM {t} WHERE p = 'x' AND id = 3",
        "DELETE FROM {t} WHERE p = 'y'",
        "MERGE INTO {t} t USING (SELECT * FROM VALUES (1, 'A', 'x'), (9, 'z', 'y') AS s(id, v, p)) s "
        "ON t.id = s.id WHEN MATCHED THEN UPDATE SET * WHEN NOT MATCHED THEN INSERT *",
    ]),
    ("column-mapping", "TBLPROPERTIES_CM", [
        "INSERT INTO {t} VALUES (1, 'a', 'x'), (2, 'b', 'y')",
        "UPDATE {t} SET v = 'B' WHERE id = 2",
        "DELETE FROM {t} WHERE id = 1",
    ]),
]
COLS = ["id", "v", "p"]


def create_sql(t, opts, extra_props=""):
    props = "'delta.enableChangeDataFeed' = 'true'" + extra_props
    if opts == "TBLPROPERTIES_CM":
        opts = ""
        props += ", 'delta.columnMapping.mode' = 'name'"
    return "CREATE TABLE %s (id INT, v STRING, p STRING) USING delta %s TBLPROPERTIES (%s)" % (
        t, opts, props)


def silt_written(spark):
    for name, opts, steps in SCENARIOS:
        table = WORK / ("silt-" + name)
        t = "delta.`%s`" % table
        proc = silt(create_sql(t, opts), ok=False)
        if proc.returncode != 0:
            check("silt-written %s: created" % name, False, proc.stderr.strip()[:300])
            continue
        for sql in steps:
            silt(sql.format(t=t))
        mine = silt_rows(changes_sql(table, COLS))
        theirs = spark_rows(spark, changes_sql(table, COLS))
        check("silt-written %s: Spark's table_changes equals silt's (%d rows)" % (name, len(mine)),
              mine == theirs and len(mine) > 0, "silt %s\nSpark %s" % (mine, theirs))


def spark_written(spark):
    for name, opts, steps in SCENARIOS + [("deletion-vectors", "", SCENARIOS[0][2])]:
        table = WORK / ("spark-" + name)
        t = "delta.`%s`" % table
        extra = ", 'delta.enableDeletionVectors' = 'true'" if name == "deletion-vectors" else ""
        spark.sql(create_sql(t, opts, extra))
        for sql in steps:
            spark.sql(sql.format(t=t))
        theirs = spark_rows(spark, changes_sql(table, COLS))
        proc = silt(changes_sql(table, COLS), ok=False)
        mine = silt_rows(changes_sql(table, COLS)) if proc.returncode == 0 else proc.stderr
        check("Spark-written %s: silt's table_changes equals Spark's (%d rows)" % (name, len(theirs)),
              mine == theirs, "silt %s\nSpark %s" % (mine, theirs))


def canon(row):
    """A row as text with numbers compared by value (silt writes a double 100 as 100.0)."""
    return json.dumps({k: float(v) if isinstance(v, (int, float)) and not isinstance(v, bool)
                       else v for k, v in row.items()}, sort_keys=True, ensure_ascii=False)


def conformance():
    for case in sorted((SHARED / "conformance" / "expected").glob("cdf-*")):
        meta = json.loads((case / "case.json").read_text())
        for rng in meta.get("cdf", []):
            table = SHARED / "conformance" / "tables" / case.name
            want = [w for w in (case / rng["file"]).read_text().splitlines() if w.strip()]
            proc = subprocess.run([SILT, "sql", "--format", "json",
                                   "SELECT * FROM table_changes_by_path('%s', %d, %d)"
                                   % (table, rng["from"], rng["to"])],
                                  capture_output=True, text=True)
            got = []
            for line in proc.stdout.splitlines():
                row = json.loads(line)
                row.pop("_commit_timestamp", None)
                got.append(canon(row))
            got.sort()
            want_rows = sorted(canon(json.loads(w)) for w in want)
            check("conformance %s %d..%d: %d rows as expected" % (case.name, rng["from"], rng["to"],
                                                               len(want_rows)),
                  proc.returncode == 0 and got == want_rows,
                  proc.stderr.strip()[:300] or "silt %s\nwant %s" % (got[:8], want_rows[:8]))


def error_class(text):
    return text[text.index("[") + 1:text.index("]")] if "[" in text else None


def errors(spark):
    table = WORK / "errors"
    t = "delta.`%s`" % table
    silt("CREATE TABLE %s (id INT) USING delta" % t)
    silt("INSERT INTO %s VALUES (1)" % t)
    silt("ALTER TABLE %s SET TBLPROPERTIES (delta.enableChangeDataFeed = true)" % t)
    silt("DELETE FROM %s WHERE id = 1" % t)
    for start in (1, 9):
        sql = "SELECT * FROM table_changes_by_path('%s', %d)" % (table, start)
        mine = silt(sql, ok=False)
        try:
            spark.sql(sql).collect()
            theirs = None
        except Exception as e:  # noqa: BLE001 - the peer's error is what is compared
            theirs = str(e)
        want = "[%s]" % (error_class(theirs) if theirs and error_class(theirs) else
                         "DELTA_INVALID_CDC_RANGE")
        check("error of start %d is Spark's (%s)" % (start, want),
              mine.returncode != 0 and want in mine.stderr,
              "silt %r, Spark %r" % (mine.stderr.strip()[:200], (theirs or "")[:200]))


def main():
    shutil.rmtree(WORK, ignore_errors=True)
    WORK.mkdir(parents=True)
    conformance()
    from peers import spark_session
    spark = spark_session()
    silt_written(spark)
    spark_written(spark)
    errors(spark)
    print("%d failed" % failures)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
