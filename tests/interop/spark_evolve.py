#!/usr/bin/env python3
"""Table evolution and constraints between silt, Spark and delta-rs (docs/evolve.md).

    spark_evolve.py SILT_BIN WORK_DIR

1. silt evolves tables (column mapping on an existing table, RENAME COLUMN,
   DROP COLUMN, ADD COLUMNS FIRST/AFTER, ALTER COLUMN TYPE with type
   widening, ADD CONSTRAINT); Spark and delta-rs read them with the new names,
   without the dropped column and with the widened type, and get silt's rows.
2. Spark writes to silt's constrained table: a violating INSERT fails with
   DELTA_VIOLATE_CONSTRAINT_WITH_VALUES and leaves the table as it was; a
   valid one lands and silt reads it.
3. Spark evolves a table the same way; silt reads it, and silt's writes obey
   Spark's constraints (the same message as Spark's for the same row, the
   table unchanged) and land when they are valid; Spark reads them back.

Runs under <repo>/.peers/venv/bin/python (re-executing itself there).
Without the venv it exits 77 (skip), or 1 when CI=true.
"""
import csv
import io
import os
import re
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
    print("%s %s%s" % ("ok  " if ok else "FAIL", what, "" if ok else ": " + detail))


def silt(sql, ok=True):
    proc = subprocess.run([SILT, "sql", "--format", "csv", sql], capture_output=True, text=True)
    if ok and proc.returncode != 0:
        raise SystemExit("silt failed on %s:\n%s" % (sql, proc.stderr))
    return proc


def silt_rows(sql):
    rows = list(csv.reader(io.StringIO(silt(sql).stdout)))
    return rows[0], sorted(tuple(r) for r in rows[1:])


def cell(v):
    return "" if v is None else str(v)


def spark_rows(spark, sql):
    df = spark.sql(sql)
    return df.columns, sorted(tuple(cell(v) for v in r) for r in df.collect())


def rs_rows(path):
    """delta-rs: (column names, rows as strings) or the reason it cannot read the table.

    Through its query engine: delta-rs 1.6's to_pyarrow_table does not apply column
    mapping (it reads NULLs for every mapped column, Spark's tables included)."""
    import pyarrow as pa
    from deltalake import DeltaTable, QueryBuilder
    try:
        tbl = pa.table(QueryBuilder().register("t", DeltaTable(str(path)))
                       .execute("SELECT * FROM t").read_all())
    except Exception as e:  # noqa: BLE001 - the reader's own refusal is the answer
        return None, str(e).splitlines()[0]
    cols = tbl.column_names
    rows = [tuple(cell(r[c]) for c in cols) for r in tbl.to_pylist()]
    return cols, sorted(rows)


def versions(path):
    return sorted(p.name for p in (path / "_delta_log").glob("*.json"))


def violation_text(text):
    """From the error class to the last value line: the part silt and Spark share."""
    m = re.search(r"\[DELTA_VIOLATE_CONSTRAINT_WITH_VALUES\][^\n]*(\n - [^\n]*)*", text)
    return m.group(0) if m else text[:300]


def silt_evolved(spark):
    path = WORK / "silt_evolved"
    t = "delta.`%s`" % path
    silt("CREATE TABLE %s (id INT, name STRING, old STRING, n INT) USING delta" % t)
    silt("INSERT INTO %s VALUES (1, 'a', 'x', 10), (2, 'b', 'y', 20)" % t)
    silt("ALTER TABLE %s SET TBLPROPERTIES ('delta.columnMapping.mode' = 'name', "
         "'delta.enableTypeWidening' = 'true')" % t)
    silt("ALTER TABLE %s RENAME COLUMN name TO label" % t)
    silt("ALTER TABLE %s DROP COLUMN old" % t)
    silt("ALTER TABLE %s ALTER COLUMN n TYPE BIGINT" % t)
    silt("ALTER TABLE %s ADD COLUMNS (first_col STRING FIRST, mid DOUBLE AFTER id)" % t)
    silt("INSERT INTO %s VALUES ('f', 3, 1.5, 'c', 5000000000)" % t)
    silt("ALTER TABLE %s ADD CONSTRAINT pos CHECK (id > 0)" % t)
    cols, rows = silt_rows("SELECT * FROM %s" % t)
    check("silt's evolved schema", cols == ["first_col", "id", "mid", "label", "n"], str(cols))
    scols, srows = spark_rows(spark, "SELECT * FROM %s" % t)
    check("Spark reads silt's renamed/dropped/widened table: columns", scols == cols,
          "%s vs %s" % (scols, cols))
    check("Spark reads silt's evolved table: rows", srows == rows, "%s vs %s" % (srows, rows))
    ntype = [f.dataType.simpleString() for f in spark.table(t).schema.fields if f.name == "n"]
    check("Spark sees the widened type", ntype == ["bigint"], str(ntype))
    rcols, rrows = rs_rows(path)
    if rcols is None:
        # delta-rs may not know the typeWidening reader feature: it must say so, not misread
        check("delta-rs refuses silt's type-widened table by the feature",
              "typeWidening" in rrows or "feature" in rrows.lower(), rrows)
    else:
        check("delta-rs reads silt's evolved table", (rcols, rrows) == (cols, rows),
              "%s %s vs %s %s" % (rcols, rrows, cols, rows))

    # without type widening: column mapping on an existing table, rename, drop
    path2 = WORK / "silt_renamed"
    t2 = "delta.`%s`" % path2
    silt("CREATE TABLE %s (id INT, name STRING, old STRING) USING delta PARTITIONED BY (name)" % t2)
    silt("INSERT INTO %s VALUES (1, 'a', 'x'), (2, 'b', 'y')" % t2)
    silt("ALTER TABLE %s SET TBLPROPERTIES ('delta.columnMapping.mode' = 'name')" % t2)
    silt("ALTER TABLE %s RENAME COLUMN name TO label" % t2)
    silt("ALTER TABLE %s RENAME COLUMN id TO `the id`" % t2)
    silt("ALTER TABLE %s DROP COLUMN old" % t2)
    silt("INSERT INTO %s VALUES (3, 'c')" % t2)
    cols, rows = silt_rows("SELECT * FROM %s" % t2)
    scols, srows = spark_rows(spark, "SELECT * FROM %s" % t2)
    check("Spark reads silt's renamed partitioned table", (scols, srows) == (cols, rows),
          "%s %s vs %s %s" % (scols, srows, cols, rows))
    rcols, rrows = rs_rows(path2)
    check("delta-rs reads silt's renamed table with the new names, without the dropped column",
          rcols is not None and sorted(rcols) == sorted(cols) and
          sorted(tuple(r[rcols.index(c)] for c in cols) for r in rrows) == rows,
          "%s %s vs %s %s" % (rcols, rrows, cols, rows))

    # Spark writes to silt's constrained table
    before = versions(path)
    try:
        spark.sql("INSERT INTO %s VALUES ('g', -4, 0.0, 'bad', 1)" % t).collect()
        spark_err = ""
    except Exception as e:  # noqa: BLE001
        spark_err = str(e)
    check("Spark's violating INSERT into silt's table fails with Delta's error",
          "DELTA_VIOLATE_CONSTRAINT_WITH_VALUES" in spark_err, spark_err[:300])
    check("... and leaves the table unchanged", versions(path) == before,
          "%s vs %s" % (versions(path), before))
    silt_err = silt("INSERT INTO %s VALUES ('g', -4, 0.0, 'bad', 1)" % t, ok=False).stderr
    check("silt's message for the same row is Spark's", violation_text(silt_err) ==
          violation_text(spark_err), "%r vs %r" % (violation_text(silt_err),
                                                   violation_text(spark_err)))
    spark.sql("INSERT INTO %s VALUES ('h', 7, 0.5, 'ok', 70)" % t).collect()
    _, rows = silt_rows("SELECT id, label FROM %s WHERE id = 7" % t)
    check("silt reads Spark's valid write to its constrained table", rows == [("7", "ok")],
          str(rows))


def spark_evolved(spark):
    path = WORK / "spark_evolved"
    t = "delta.`%s`" % path
    spark.sql("CREATE TABLE %s (id INT, name STRING, old STRING, n INT) USING delta" % t)
    spark.sql("INSERT INTO %s VALUES (1, 'a', 'x', 10), (2, 'b', 'y', 20)" % t)
    spark.sql("ALTER TABLE %s SET TBLPROPERTIES ('delta.columnMapping.mode' = 'name', "
              "'delta.enableTypeWidening' = 'true')" % t)
    spark.sql("ALTER TABLE %s RENAME COLUMN name TO label" % t)
    spark.sql("ALTER TABLE %s DROP COLUMN old" % t)
    spark.sql("ALTER TABLE %s ALTER COLUMN n TYPE BIGINT" % t)
    spark.sql("ALTER TABLE %s ADD COLUMNS (first_col STRING FIRST, mid DOUBLE AFTER id)" % t)
    spark.sql("INSERT INTO %s VALUES ('f', 3, 1.5, 'c', 5000000000)" % t)
    spark.sql("ALTER TABLE %s ADD CONSTRAINT two CHECK (id > 0 AND label <> 'bad')" % t)
    scols, srows = spark_rows(spark, "SELECT * FROM %s" % t)
    cols, rows = silt_rows("SELECT * FROM %s" % t)
    check("silt reads Spark's evolved table", (cols, rows) == (scols, srows),
          "%s %s vs %s %s" % (cols, rows, scols, srows))

    before = versions(path)
    try:
        spark.sql("INSERT INTO %s VALUES ('g', 4, 0.0, 'bad', 1)" % t).collect()
        spark_err = ""
    except Exception as e:  # noqa: BLE001
        spark_err = str(e)
    proc = silt("INSERT INTO %s VALUES ('g', 4, 0.0, 'bad', 1)" % t, ok=False)
    check("silt's violating INSERT into Spark's table fails", proc.returncode != 0 and
          "DELTA_VIOLATE_CONSTRAINT_WITH_VALUES" in proc.stderr, proc.stderr[:300])
    check("... with Spark's message for the same row",
          violation_text(proc.stderr) == violation_text(spark_err),
          "%r vs %r" % (violation_text(proc.stderr), violation_text(spark_err)))
    proc = silt("UPDATE %s SET id = -1 WHERE id = 1" % t, ok=False)
    check("silt's violating UPDATE of Spark's table fails",
          "DELTA_VIOLATE_CONSTRAINT_WITH_VALUES" in proc.stderr, proc.stderr[:300])
    check("... and both leave the table unchanged", versions(path) == before,
          "%s vs %s" % (versions(path), before))
    silt("INSERT INTO %s VALUES ('h', 8, 2.5, 'fine', 80)" % t)
    silt("UPDATE %s SET n = n + 1 WHERE id = 1" % t)
    _, srows = spark_rows(spark, "SELECT id, label, n FROM %s" % t)
    check("Spark reads silt's valid writes to its table",
          srows == sorted([("1", "a", "11"), ("2", "b", "20"), ("3", "c", "5000000000"),
                           ("8", "fine", "80")]), str(srows))
    proc = silt("ALTER TABLE %s DROP COLUMN id" % t, ok=False)
    check("dropping a column a constraint reads is refused on Spark's table",
          "DELTA_CONSTRAINT_DEPENDENT_COLUMN_CHANGE" in proc.stderr, proc.stderr[:300])


def spark_error(spark, sql):
    try:
        spark.sql(sql).collect()
        return ""
    except Exception as e:  # noqa: BLE001 - the error text is the answer
        return str(e)


def nested_drop(spark):
    """silt drops a nested field; Spark and delta-rs read the table without it."""
    path = WORK / "silt_nested_drop"
    t = "delta.`%s`" % path
    silt("CREATE TABLE %s (a INT, s STRUCT<x:INT,y:STRING,z:INT>) USING delta "
         "TBLPROPERTIES ('delta.columnMapping.mode' = 'name')" % t)
    silt("INSERT INTO %s VALUES (1, named_struct('x', 1, 'y', 'p', 'z', 3))" % t)
    silt("ALTER TABLE %s DROP COLUMNS (s.y, s.z)" % t)
    silt("INSERT INTO %s VALUES (2, named_struct('x', 5))" % t)
    _, rows = silt_rows("SELECT a, s.x FROM %s" % t)
    _, srows = spark_rows(spark, "SELECT a, s.x FROM %s" % t)
    fields = [f.name for f in spark.table(t).schema["s"].dataType.fields]
    check("Spark reads silt's table after a nested DROP COLUMNS", srows == rows == [
        ("1", "1"), ("2", "5")] and fields == ["x"], "%s %s %s" % (srows, rows, fields))
    rcols, rrows = rs_rows(path)
    check("delta-rs reads it without the dropped fields", rcols == ["a", "s"] and
          len(rrows) == 2 and all("y" not in r[1] for r in rrows), "%s %s" % (rcols, rrows))


def identity_meta(path):
    """The id column's metadata in the table's last metaData action (the log itself: Spark's
    DataFrame schema does not show delta.identity.* keys)."""
    import json
    meta = None
    for f in sorted((path / "_delta_log").glob("*.json")):
        for line in f.read_text().splitlines():
            action = json.loads(line)
            if "metaData" in action:
                fields = json.loads(action["metaData"]["schemaString"])["fields"]
                meta = [x.get("metadata") for x in fields if x["name"] == "id"]
    return meta


def generated_columns(spark):
    """Generated and identity columns, both ways: silt creates and writes, Spark writes and
    reads; Spark creates (its DeltaTable builder: its SQL DDL refuses them on this catalog),
    silt writes and reads; the same rows and the same errors."""
    from delta.tables import DeltaTable, IdentityGenerator
    from pyspark.sql.types import LongType, IntegerType, DateType, TimestampType
    # silt's table
    path = WORK / "silt_generated"
    t = "delta.`%s`" % path
    silt("CREATE TABLE %s (id BIGINT GENERATED ALWAYS AS IDENTITY (START WITH 100 INCREMENT BY "
         "10), ts TIMESTAMP, a INT, b INT GENERATED ALWAYS AS (a * 2), d DATE GENERATED ALWAYS "
         "AS (CAST(ts AS DATE))) USING delta PARTITIONED BY (d)" % t)
    silt("INSERT INTO %s (ts, a) VALUES (TIMESTAMP '2024-01-02 10:00:00', 1), "
         "(TIMESTAMP '2024-01-03 10:00:00', 2)" % t)
    spark.sql("INSERT INTO %s (ts, a) VALUES (TIMESTAMP '2024-01-04 10:00:00', 3)" % t).collect()
    silt("UPDATE %s SET a = 10, ts = TIMESTAMP '2024-02-01 00:00:00' WHERE a = 1" % t)
    silt("MERGE INTO %s t USING (SELECT 4 AS a, TIMESTAMP '2024-03-01 00:00:00' AS ts) s "
         "ON t.a = s.a WHEN NOT MATCHED THEN INSERT (ts, a) VALUES (s.ts, s.a)" % t)
    spark.sql("INSERT INTO %s (ts, a) VALUES (TIMESTAMP '2024-01-05 10:00:00', 5)" % t).collect()
    q = "SELECT id, a, b, CAST(d AS STRING) FROM %s" % t
    _, rows = silt_rows(q)
    _, srows = spark_rows(spark, q)
    want = sorted([("100", "10", "20", "2024-02-01"), ("110", "2", "4", "2024-01-03"),
                   ("120", "3", "6", "2024-01-04"), ("130", "4", "8", "2024-03-01"),
                   ("140", "5", "10", "2024-01-05")])
    check("silt's generated/identity table: Spark and silt write it and read the same rows",
          rows == srows == want, "%s / %s / %s" % (rows, srows, want))
    before = versions(path)
    spark_err = spark_error(spark, "INSERT INTO %s (ts, a, b) VALUES (TIMESTAMP '2024-01-05 "
                            "10:00:00', 7, 5)" % t)
    silt_err = silt("INSERT INTO %s (ts, a, b) VALUES (TIMESTAMP '2024-01-05 10:00:00', 7, 5)"
                    % t, ok=False).stderr
    check("a wrong generated value: silt's message is Spark's", "Generated Column" in spark_err
          and violation_text(silt_err) == violation_text(spark_err),
          "%r vs %r" % (violation_text(silt_err), violation_text(spark_err)))
    for what, sql in (("explicit identity", "INSERT INTO %s (id, ts, a) VALUES (1, "
                       "TIMESTAMP '2024-01-05 10:00:00', 8)" % t),
                      ("UPDATE of identity", "UPDATE %s SET id = 1 WHERE a = 2" % t)):
        spark_err = spark_error(spark, sql)
        m = re.search(r"\[DELTA_IDENTITY_[A-Z_]+\]", spark_err)
        silt_err = silt(sql, ok=False).stderr
        check("%s: silt fails with Spark's error" % what, m is not None and m.group(0) in
              silt_err, "%r vs %r" % (silt_err[:200], spark_err[:200]))
    check("... and the refused writes leave the table unchanged", versions(path) == before,
          "%s vs %s" % (versions(path), before))

    # Spark's table
    path = WORK / "spark_generated"
    t = "delta.`%s`" % path
    (DeltaTable.create(spark).location(str(path))
     .addColumn("id", dataType=LongType(), generatedAlwaysAs=IdentityGenerator(start=5, step=-1))
     .addColumn("ts", TimestampType()).addColumn("a", IntegerType())
     .addColumn("b", IntegerType(), generatedAlwaysAs="a + 100")
     .addColumn("d", DateType(), generatedAlwaysAs="CAST(ts AS DATE)")
     .partitionedBy("d").execute())
    spark.sql("INSERT INTO %s (ts, a) VALUES (TIMESTAMP '2024-05-01 10:00:00', 1)" % t).collect()
    silt("INSERT INTO %s (ts, a) VALUES (TIMESTAMP '2024-05-02 10:00:00', 2), "
         "(TIMESTAMP '2024-05-03 10:00:00', 3)" % t)
    silt("UPDATE %s SET a = 20 WHERE a = 2" % t)
    silt("MERGE INTO %s t USING (SELECT 4 AS a, TIMESTAMP '2024-06-01 00:00:00' AS ts) s "
         "ON t.a = s.a WHEN NOT MATCHED THEN INSERT (ts, a) VALUES (s.ts, s.a)" % t)
    spark.sql("INSERT INTO %s (ts, a) VALUES (TIMESTAMP '2024-05-05 10:00:00', 5)" % t).collect()
    q = "SELECT id, a, b, CAST(d AS STRING) FROM %s" % t
    _, rows = silt_rows(q)
    _, srows = spark_rows(spark, q)
    want = sorted([("5", "1", "101", "2024-05-01"), ("4", "20", "120", "2024-05-02"),
                   ("3", "3", "103", "2024-05-03"), ("2", "4", "104", "2024-06-01"),
                   ("1", "5", "105", "2024-05-05")])
    check("Spark's generated/identity table: silt writes it, both read the same rows",
          rows == srows == want, "%s / %s / %s" % (rows, srows, want))
    spark_err = spark_error(spark, "UPDATE %s SET b = 1 WHERE a = 1" % t)
    silt_err = silt("UPDATE %s SET b = 1 WHERE a = 1" % t, ok=False).stderr
    check("silt's UPDATE of a generated column of Spark's table fails with Spark's message",
          "Generated Column" in spark_err and violation_text(silt_err) ==
          violation_text(spark_err), "%r vs %r" % (violation_text(silt_err),
                                                   violation_text(spark_err)))

    # the conformance corpus's identity tables: silt's INSERT gives what Spark's gives on a copy
    # (identity_test_written_by_version_5 is (1,2): Delta assigns the next value and drops the
    # column's identity metadata, which the protocol does not support)
    corpus = REPO.parent / "shared" / "conformance" / "tables"
    for name, cols, shown in (("identity_test_written_by_version_5",
                               "(part, value) VALUES (9, 'new')", "id, part, value"),
                              ("checkpoint-v2-table", "(name, created_at) VALUES ('new', "
                               "TIMESTAMP '2024-01-01 00:00:00')", "id, name")):
        if not (corpus / name).is_dir():
            check("conformance table %s present" % name, False, str(corpus / name))
            continue
        mine, theirs = WORK / ("silt_" + name), WORK / ("spark_" + name)
        shutil.copytree(corpus / name, mine)
        shutil.copytree(corpus / name, theirs)
        silt("INSERT INTO delta.`%s` %s" % (mine, cols))
        spark.sql("INSERT INTO delta.`%s` %s" % (theirs, cols)).collect()
        _, rows = silt_rows("SELECT %s FROM delta.`%s`" % (shown, mine))
        _, srows = spark_rows(spark, "SELECT %s FROM delta.`%s`" % (shown, theirs))
        _, cross = spark_rows(spark, "SELECT %s FROM delta.`%s`" % (shown, mine))
        sid, tid = identity_meta(mine), identity_meta(theirs)
        check("%s: silt's INSERT assigns Spark's identity value and records what Spark records"
              % name, rows == srows == cross and sid == tid,
              "%s / %s / %s; %s vs %s" % (rows[-3:], srows[-3:], cross[-3:], sid, tid))


def main():
    shutil.rmtree(WORK, ignore_errors=True)
    WORK.mkdir(parents=True)
    from peers import spark_session
    spark = spark_session()
    silt_evolved(spark)
    spark_evolved(spark)
    nested_drop(spark)
    generated_columns(spark)
    print("%d failed" % failures)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
