#!/usr/bin/env python3
"""silt reads Delta tables that Spark (with Delta) and delta-rs wrote, the way users write them.

    spark_written_tables.py SILT_BIN [--keep DIR] [--only spark|deltars]

In a temporary folder, real Spark with Delta writes tables the way the
tutorials in ../shared/tutorials do (partitioned writes with awkward partition
values, appends with a small checkpoint interval, UPDATE/DELETE/MERGE with
deletion vectors, column mapping with renamed and dropped columns, change data
feed, every primitive and nested type, type widening, OPTIMIZE), and delta-rs
writes its own (append, overwrite, partitioned, schema evolution). For every
table at several versions, `silt table scan --version N --format jsonl` must
equal the peer's own rows at that version (Spark's versionAsOf read,
delta-rs's to_pyarrow_table) rendered in the canonical format
(tests/interop/canon.py), and `silt table info` must give the version and the
number of live files the peer gives. One line per check, then
"N passed, M failed"; the exit status is non-zero when a check failed.

Needs <repo>/.peers/venv (scripts/setup-peers.sh). Without it the script
fails when CI=true and exits 77 (skipped) otherwise.
"""
import argparse
import datetime
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import traceback

# pyspark hands out timestamps as naive datetimes in the process's local time
# zone; UTC makes them UTC wall times.
os.environ["TZ"] = "UTC"
time.tzset()

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "peers"))

import canon  # noqa: E402
import peers  # noqa: E402


class Report:
    """Counts checks and prints one line for each."""

    def __init__(self):
        self.passed = 0
        self.failed = 0
        self.failures = []

    def check(self, name, ok, detail=""):
        if ok:
            self.passed += 1
            print("ok   %s%s" % (name, (" (" + detail + ")") if detail else ""), flush=True)
        else:
            self.failed += 1
            self.failures.append(name)
            print("FAIL %s\n%s" % (name, indent(detail)), flush=True)

    def error(self, name, exc):
        self.check(name, False, "".join(traceback.format_exception_only(type(exc), exc)).strip())


def indent(text):
    return "\n".join("     " + line for line in str(text).splitlines())


def diff_lines(got, want, limit=6):
    """The lines only one side has, a few of each, for the failure message."""
    only_got = sorted(set(got) - set(want))
    only_want = sorted(set(want) - set(got))
    out = ["silt %d rows, peer %d rows" % (len(got), len(want))]
    out += ["  only silt: " + line for line in only_got[:limit]]
    out += ["  only peer: " + line for line in only_want[:limit]]
    if not only_got and not only_want:
        out.append("  same distinct lines, different multiplicities")
    return "\n".join(out)


class Silt:
    def __init__(self, binary):
        self.binary = binary

    def run(self, *args):
        proc = subprocess.run([self.binary, *args], capture_output=True, timeout=120)
        if proc.returncode != 0:
            raise RuntimeError("silt %s exited %d: %s" % (" ".join(args), proc.returncode,
                                                          proc.stderr.decode(errors="replace").strip()))
        return proc.stdout.decode()

    def rows(self, path, version):
        text = self.run("table", "scan", path, "--version", str(version), "--format", "jsonl")
        return sorted(text.splitlines(), key=lambda line: line.encode())

    def info(self, path, version=None):
        args = ["table", "info", path] + (["--version", str(version)] if version is not None else [])
        text = self.run(*args)
        ver = re.search(r"^version: (\d+)$", text, re.M)
        files = re.search(r"^files: (\d+) \((\d+) bytes\)$", text, re.M)
        if not ver or not files:
            raise RuntimeError("silt table info printed no version or files line:\n" + text)
        return {"version": int(ver.group(1)), "files": int(files.group(1)),
                "bytes": int(files.group(2)), "text": text}


def compare_rows(report, name, silt_lines, peer_lines):
    report.check(name, silt_lines == peer_lines,
                 "%d rows" % len(peer_lines) if silt_lines == peer_lines else diff_lines(silt_lines, peer_lines))


# --------------------------------------------------------------------------- Spark

def sql(spark, text):
    return spark.sql(text).collect()


def spark_rows(df):
    """Spark's rows in canonical form. They leave the JVM as Arrow (toArrow), not
    through collect(): pyspark builds naive local datetimes, and Python cannot
    make one for 0001-01-01 00:00:00 (its fold check steps into year 0)."""
    schema = json.loads(df.schema.json())
    return canon.rows(df.toArrow().to_pylist(), schema)


def spark_version_rows(spark, path, version):
    df = spark.read.format("delta").option("versionAsOf", version).load(path)
    return spark_rows(df), len(df.inputFiles())


def spark_latest_version(spark, path):
    return sql(spark, "DESCRIBE HISTORY delta.`%s` LIMIT 1" % path)[0]["version"]


def check_spark_table(report, silt, spark, name, path, versions=None):
    """Rows and file counts at each version (all by default), DESCRIBE DETAIL at the latest."""
    latest = spark_latest_version(spark, path)
    # A writer that made fewer commits (a refused widening) still has its latest checked.
    versions = range(latest + 1) if versions is None else sorted({v for v in versions if v <= latest} | {latest})
    for version in versions:
        label = "spark/%s v%d" % (name, version)
        try:
            want, nfiles = spark_version_rows(spark, path, version)
            compare_rows(report, label + " rows", silt.rows(path, version), want)
            info = silt.info(path, version)
            ok = info["version"] == version and info["files"] == nfiles
            report.check(label + " info", ok, "version %d, %d files; Spark: version %d, %d files"
                         % (info["version"], info["files"], version, nfiles))
        except Exception as exc:  # one broken version must not hide the others
            report.error(label, exc)
    label = "spark/%s latest detail" % name
    try:
        detail = sql(spark, "DESCRIBE DETAIL delta.`%s`" % path)[0]
        info = silt.info(path)
        ok = (info["version"] == latest and info["files"] == detail["numFiles"]
              and info["bytes"] == detail["sizeInBytes"])
        report.check(label, ok, "silt: version %d, %d files, %d bytes; Spark: version %d, %d files, %d bytes"
                     % (info["version"], info["files"], info["bytes"], latest, detail["numFiles"],
                        detail["sizeInBytes"]))
    except Exception as exc:
        report.error(label, exc)


def tbl(path):
    return "delta.`%s`" % path


def build_partitioned(spark, path):
    """Partition columns of several types, in the middle of the schema, with nulls, empty
    strings and characters that need escaping in paths (space / % = : # unicode)."""
    t = tbl(path)
    sql(spark, f"""CREATE TABLE {t} (id INT, p_str STRING, name STRING, p_int INT, p_date DATE,
                   p_ts TIMESTAMP, amount DECIMAL(10,2)) USING DELTA
                   PARTITIONED BY (p_str, p_int, p_date, p_ts)""")
    sql(spark, f"""INSERT INTO {t} VALUES
        (1, 'plain', 'a', 1, DATE'2024-01-01', TIMESTAMP'2024-01-01 10:00:00', 1.50),
        (2, 'with space', 'b', 2, DATE'2024-01-02', TIMESTAMP'2024-01-01 10:00:00.123456', -2.25),
        (3, 'a/b', 'c', 3, DATE'1999-12-31', NULL, 0.00),
        (4, '100%', 'd', NULL, DATE'2024-01-01', TIMESTAMP'1970-01-01 00:00:00', 99999999.99),
        (5, 'k=v', 'e', 2, NULL, TIMESTAMP'2024-01-01 10:00:00', NULL),
        (6, 'ünïcødé 日本 😀', 'f', -7, DATE'2024-02-29', TIMESTAMP'2024-01-01 10:00:00', 3.00),
        (7, NULL, 'g', 1, DATE'2024-01-01', TIMESTAMP'2024-01-01 10:00:00', 4.00),
        (8, '', 'h', 1, DATE'2024-01-01', TIMESTAMP'2024-01-01 10:00:00', 5.00),
        (9, 'a%3Ab #?:&+', 'i', 1, DATE'2024-01-01', TIMESTAMP'2024-01-01 10:00:00', 6.00),
        (10, 'quote''s "dq" \\\\ back', 'j', 1, DATE'2024-01-01', TIMESTAMP'2024-01-01 10:00:00', 7.00)""")
    df = spark.sql("""SELECT CAST(id AS INT) AS id,
                             CASE WHEN id % 3 = 0 THEN 'a/b' WHEN id % 3 = 1 THEN 'with space' END AS p_str,
                             concat('row', id) AS name, CAST(id % 4 AS INT) AS p_int,
                             date_add(DATE'2024-03-01', CAST(id % 2 AS INT)) AS p_date,
                             TIMESTAMP'2024-06-30 23:59:59.999999' AS p_ts,
                             CAST(id * 1.25 AS DECIMAL(10,2)) AS amount
                      FROM range(11, 31)""")
    df.write.format("delta").mode("append").save(path)
    sql(spark, f"DELETE FROM {t} WHERE p_int = 2")
    sql(spark, f"UPDATE {t} SET name = upper(name) WHERE p_str = 'a/b'")


def build_checkpointed(spark, path):
    """Many appends with checkpointInterval 3: checkpoints at 3, 6, 9 with removes in them."""
    t = tbl(path)
    sql(spark, f"""CREATE TABLE {t} (id BIGINT, v DOUBLE, s STRING) USING DELTA
                   TBLPROPERTIES ('delta.checkpointInterval' = '3')""")
    for batch in range(6):
        sql(spark, f"""INSERT INTO {t} SELECT id, id / 7.0, concat('s', id)
                       FROM range({batch * 10}, {batch * 10 + 10})""")
        if batch == 3:
            sql(spark, f"DELETE FROM {t} WHERE id % 4 = 0")
    sql(spark, f"UPDATE {t} SET v = -v WHERE id > 45")
    sql(spark, f"INSERT INTO {t} VALUES (1000, 1e300, NULL)")


def build_deletion_vectors(spark, path):
    """DELETE, UPDATE and MERGE with deletion vectors, and a checkpoint that carries DVs."""
    t = tbl(path)
    sql(spark, f"""CREATE TABLE {t} (id INT, grp STRING, val DOUBLE) USING DELTA
                   TBLPROPERTIES ('delta.enableDeletionVectors' = 'true',
                                  'delta.checkpointInterval' = '4')""")
    (spark.sql("SELECT CAST(id AS INT) AS id, CASE WHEN id % 3 = 0 THEN 'a' ELSE 'b' END AS grp, "
               "CAST(id * 0.5 AS DOUBLE) AS val FROM range(0, 300)")
     .repartition(2).write.format("delta").mode("append").save(path))
    sql(spark, f"DELETE FROM {t} WHERE id % 7 = 0")
    sql(spark, f"UPDATE {t} SET val = -val WHERE id % 5 = 0")
    sql(spark, f"""MERGE INTO {t} AS target
                   USING (SELECT CAST(id AS INT) AS id, 'm' AS grp, CAST(id * 10 AS DOUBLE) AS val
                          FROM range(280, 320)) AS src
                   ON target.id = src.id
                   WHEN MATCHED AND target.id % 2 = 0 THEN DELETE
                   WHEN MATCHED THEN UPDATE SET val = src.val
                   WHEN NOT MATCHED THEN INSERT *""")
    sql(spark, f"DELETE FROM {t} WHERE grp = 'b' AND id < 40")
    sql(spark, f"DELETE FROM {t} WHERE id BETWEEN 100 AND 120")


def build_column_mapping(spark, path):
    """Name mode: renamed (also to a name with a space, and a nested field), dropped, re-added."""
    t = tbl(path)
    sql(spark, f"""CREATE TABLE {t} (id INT, first STRING, second INT, third STRING,
                   nested STRUCT<a: INT, b: STRING>, part STRING) USING DELTA PARTITIONED BY (part)
                   TBLPROPERTIES ('delta.columnMapping.mode' = 'name',
                                  'delta.minReaderVersion' = '2', 'delta.minWriterVersion' = '5')""")
    sql(spark, f"""INSERT INTO {t} VALUES (1, 'x', 10, 'gone', named_struct('a', 1, 'b', 'p'), 'p1'),
                   (2, 'y', 20, 'gone', named_struct('a', 2, 'b', NULL), 'p 2')""")
    sql(spark, f"ALTER TABLE {t} RENAME COLUMN second TO `second renamed`")
    sql(spark, f"ALTER TABLE {t} DROP COLUMN third")
    sql(spark, f"ALTER TABLE {t} RENAME COLUMN nested.a TO a_renamed")
    sql(spark, f"ALTER TABLE {t} RENAME COLUMN part TO `part:ition`")
    sql(spark, f"""INSERT INTO {t} VALUES (3, 'z', 30, named_struct('a_renamed', 3, 'b', 'q'), 'p1')""")
    sql(spark, f"ALTER TABLE {t} ADD COLUMNS (third STRING)")
    sql(spark, f"""INSERT INTO {t} VALUES (4, 'w', 40, named_struct('a_renamed', 4, 'b', 'r'), 'p3', 'new third')""")
    sql(spark, f"UPDATE {t} SET first = 'updated' WHERE id = 1")


def build_change_data_feed(spark, path):
    """Change data feed on: UPDATE, DELETE and MERGE write _change_data files."""
    t = tbl(path)
    sql(spark, f"""CREATE TABLE {t} (id INT, name STRING, qty INT) USING DELTA
                   TBLPROPERTIES ('delta.enableChangeDataFeed' = 'true')""")
    sql(spark, f"INSERT INTO {t} VALUES (1, 'one', 1), (2, 'two', 2), (3, 'three', 3), (4, 'four', 4)")
    sql(spark, f"UPDATE {t} SET qty = qty * 10 WHERE id % 2 = 0")
    sql(spark, f"DELETE FROM {t} WHERE id = 3")
    sql(spark, f"""MERGE INTO {t} AS target USING (SELECT 1 AS id, 'uno' AS name, 100 AS qty
                   UNION ALL SELECT 5, 'five', 5) AS src ON target.id = src.id
                   WHEN MATCHED THEN UPDATE SET * WHEN NOT MATCHED THEN INSERT *""")


def build_all_types(spark, path):
    """Every primitive type with edge values, nested struct/array/map, and a row of nulls."""
    t = tbl(path)
    sql(spark, f"""CREATE TABLE {t} (
        id INT, b BOOLEAN, i8 TINYINT, i16 SMALLINT, i32 INT, i64 BIGINT, f FLOAT, d DOUBLE,
        dec5_2 DECIMAL(5,2), dec9_0 DECIMAL(9,0), dec18_6 DECIMAL(18,6), dec38_10 DECIMAL(38,10),
        dec38_0 DECIMAL(38,0), s STRING, bin BINARY, dt DATE, ts TIMESTAMP, ntz TIMESTAMP_NTZ,
        st STRUCT<x: INT, y: STRUCT<z: STRING, w: ARRAY<INT>>>,
        arr ARRAY<STRING>, arr_st ARRAY<STRUCT<k: STRING, v: DOUBLE>>, nested_arr ARRAY<ARRAY<BIGINT>>,
        m MAP<STRING, INT>, m_arr MAP<INT, ARRAY<STRING>>, m_st MAP<STRING, STRUCT<q: DECIMAL(4,1)>>)
        USING DELTA""")
    sql(spark, f"""INSERT INTO {t} VALUES
      (1, true, -128, -32768, -2147483648, -9223372036854775808, CAST(0.1 AS FLOAT), 0.1D,
       -999.99, -999999999, 123456789012.345678, CAST('-9999999999999999999999999999.9999999999' AS DECIMAL(38,10)),
       CAST('99999999999999999999999999999999999999' AS DECIMAL(38,0)),
       'a"b\\\\c/é 日本 😀', X'00FF10', DATE'0001-01-01', TIMESTAMP'0001-01-01 00:00:00',
       TIMESTAMP_NTZ'0001-01-01 00:00:00',
       named_struct('x', 1, 'y', named_struct('z', 'zz', 'w', array(1, NULL, 3))),
       array('a', NULL, ''), array(named_struct('k', 'k1', 'v', 1.5D), NULL), array(array(1L), array(), NULL),
       map('b', 2, 'a', 1, 'c', NULL), map(2, array(), 1, array('x', NULL)), map('k', named_struct('q', -0.5))),
      (2, false, 127, 32767, 2147483647, 9223372036854775807, CAST(35.568 AS FLOAT), 0.30000000000000004D,
       999.99, 999999999, -0.000001, 0.0000000001, CAST(0 AS DECIMAL(38,0)),
       concat('ctl', char(1), char(9), char(10), char(31), 'end'), X'', DATE'9999-12-31',
       TIMESTAMP'9999-12-31 23:59:59.999999', TIMESTAMP_NTZ'9999-12-31 23:59:59.999999',
       named_struct('x', NULL, 'y', NULL), array(), array(), array(), map(), map(), map()),
      (3, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
       NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
      (4, true, 0, 0, 0, 0, CAST('NaN' AS FLOAT), CAST('-Infinity' AS DOUBLE),
       0.01, 0, 0.5, 1, 1, '', X'7F', DATE'1582-10-10', TIMESTAMP'1969-12-31 23:59:59.999999',
       TIMESTAMP_NTZ'1969-12-31 23:59:59.999999',
       named_struct('x', -1, 'y', named_struct('z', NULL, 'w', NULL)), NULL, NULL, NULL, NULL, NULL, NULL),
      (5, false, 1, 1, 1, 1, CAST('Infinity' AS FLOAT), CAST('-0.0' AS DOUBLE),
       -0.01, 1, 1, 1, 1, 'x', X'01', DATE'1970-01-01', TIMESTAMP'2024-03-10 02:30:00.5',
       TIMESTAMP_NTZ'2024-03-10 02:30:00.5', NULL, NULL, NULL, NULL, NULL, NULL, NULL),
      (6, true, 2, 2, 2, 2, CAST(3.4028235E38 AS FLOAT), 1.7976931348623157E308D,
       1, 2, 2, 2, 2, 'y', X'02', DATE'2000-02-29', TIMESTAMP'2000-01-01 00:00:00.000001',
       TIMESTAMP_NTZ'2000-01-01 00:00:00.000001', NULL, NULL, NULL, NULL, NULL, NULL, NULL),
      (7, true, 3, 3, 3, 3, CAST(1.4E-45 AS FLOAT), 4.9E-324D,
       1, 2, 2, 2, 2, 'z', X'03', DATE'2000-03-01', NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
      (8, true, 4, 4, 4, 4, CAST(-1.5E-7 AS FLOAT), 1E21D,
       1, 2, 2, 2, 2, 'z', X'04', NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
      (9, true, 5, 5, 5, 5, CAST(16777216 AS FLOAT), 123456789012345680000D,
       1, 2, 2, 2, 2, 'z', X'05', NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
      (10, true, 6, 6, 6, 6, CAST(1E-6 AS FLOAT), 9.999999999999999E-7D,
       1, 2, 2, 2, 2, 'z', X'06', NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL)""")
    sql(spark, f"DELETE FROM {t} WHERE id = 10")


def java_message(exc):
    """The first line that names a Java or Spark error, not py4j's 'An error occurred'."""
    lines = [line.strip() for line in str(exc).splitlines() if line.strip()]
    for line in lines:
        if "Exception" in line or "[" in line:
            return line[:200]
    return lines[0][:200] if lines else type(exc).__name__


WIDENINGS = [  # (column, new type) in the order applied
    ("a", "SMALLINT"), ("a", "INT"), ("b", "BIGINT"), ("f", "DOUBLE"), ("d", "TIMESTAMP_NTZ"),
    ("dec", "DECIMAL(12,4)"), ("i2d", "DOUBLE"), ("l2dec", "DECIMAL(22,2)"),
]


def build_type_widening(spark, path):
    """delta.enableTypeWidening: columns widened with ALTER TABLE after rows were written."""
    t = tbl(path)
    sql(spark, f"""CREATE TABLE {t} (id INT, a TINYINT, b SMALLINT, f FLOAT, d DATE, dec DECIMAL(5,2),
                   i2d INT, l2dec BIGINT) USING DELTA TBLPROPERTIES ('delta.enableTypeWidening' = 'true',
                   'delta.feature.timestampNtz' = 'supported')""")
    sql(spark, f"""INSERT INTO {t} VALUES (1, -128, -32768, CAST(0.1 AS FLOAT), DATE'2024-02-29', -999.99,
                   2147483647, -9223372036854775808),
                   (2, 127, 32767, CAST(3.4028235E38 AS FLOAT), DATE'0001-01-01', 0.01, -5, 42),
                   (3, NULL, NULL, NULL, NULL, NULL, NULL, NULL)""")
    refused = []
    for column, new_type in WIDENINGS:
        try:
            sql(spark, f"ALTER TABLE {t} ALTER COLUMN {column} TYPE {new_type}")
        except Exception as exc:  # a widening this Delta does not offer is not silt's business
            refused.append("%s to %s: %s" % (column, new_type, java_message(exc)))
    wide_values = {"a": "40000", "b": "5000000000", "f": "0.1D", "d": "TIMESTAMP_NTZ'2024-05-01 12:34:56.789'",
                   "dec": "12345678.1234", "i2d": "0.25D", "l2dec": "12345678901234567890.12"}
    columns = [c for c in wide_values if c not in {r.split(" ")[0] for r in refused}]
    sql(spark, f"INSERT INTO {t} (id, {', '.join(columns)}) VALUES (4, {', '.join(wide_values[c] for c in columns)})")
    return refused


def build_optimized(spark, path):
    """Small appends to two partitions, then OPTIMIZE compacts them (removes and adds)."""
    t = tbl(path)
    sql(spark, f"CREATE TABLE {t} (id BIGINT, part STRING, payload STRING) USING DELTA PARTITIONED BY (part)")
    for batch in range(4):
        sql(spark, f"""INSERT INTO {t} SELECT id, IF(id % 2 = 0, 'even', 'odd'), repeat('x', CAST(id AS INT))
                       FROM range({batch * 5}, {batch * 5 + 5})""")
    sql(spark, f"OPTIMIZE {t}")
    sql(spark, f"DELETE FROM {t} WHERE id = 7")
    sql(spark, f"OPTIMIZE {t} ZORDER BY (id)")


# (name, writer, versions to compare). Each Spark read costs about a second on a
# busy 2-core machine, so the versions are the ones where something happened:
# v0 is the empty CREATE TABLE, checked once.
SPARK_TABLES = [
    # 1 insert, 2 append, 3 delete of a partition, 4 update
    ("partitioned", build_partitioned, [0, 1, 2, 3, 4]),
    # checkpoints at 3, 6, 9; 5 delete, 7 update, 8 insert, 9 insert
    ("checkpointed", build_checkpointed, [2, 3, 5, 6, 7, 9]),
    # 1 insert, 2 delete, 3 update, 4 merge (checkpoint), 5 and 6 deletes
    ("deletion_vectors", build_deletion_vectors, [1, 2, 3, 4, 5, 6]),
    # 1 insert, 2-5 rename/drop, 6 insert, 7 add column, 8 insert, 9 update
    ("column_mapping", build_column_mapping, [1, 3, 5, 6, 8, 9]),
    # 1 insert, 2 update, 3 delete, 4 merge
    ("change_data_feed", build_change_data_feed, [1, 2, 3, 4]),
    # 1 insert, 2 delete of a row
    ("all_types", build_all_types, [1, 2]),
    # 1 insert, 2-9 widenings, 10 insert
    ("type_widening", build_type_widening, [1, 5, 9, 10]),
    # 1-4 inserts, 5 optimize, 6 delete, 7 optimize zorder
    ("optimized", build_optimized, [3, 4, 5, 6, 7]),
]


def log_text(path):
    """All JSON commits of a table, concatenated."""
    log = os.path.join(path, "_delta_log")
    return "".join(open(os.path.join(log, n), encoding="utf-8").read()
                   for n in sorted(os.listdir(log)) if n.endswith(".json"))


def has_log_file(path, name):
    return os.path.isfile(os.path.join(path, "_delta_log", name))


# What each table is there for, checked in its log, so that a change of Spark's
# defaults cannot quietly turn a deletion-vector table into a copy-on-write one.
FEATURE_CHECKS = {
    "partitioned": ("escaped partition directories and a null partition value",
                    lambda p: "p_str=100%25" in os.listdir(p) and '"p_str":null' in log_text(p)),
    "checkpointed": ("classic checkpoints at 3, 6, 9 and _last_checkpoint",
                     lambda p: all(has_log_file(p, "%020d.checkpoint.parquet" % v) for v in (3, 6, 9))
                     and has_log_file(p, "_last_checkpoint")),
    "deletion_vectors": ("adds with deletion vectors and a checkpoint at 4",
                         lambda p: '"deletionVector":{' in log_text(p)
                         and has_log_file(p, "%020d.checkpoint.parquet" % 4)),
    "column_mapping": ("physical names in the schema and renamed columns",
                       lambda p: "delta.columnMapping.physicalName" in log_text(p)
                       and "second renamed" in log_text(p)),
    "change_data_feed": ("_change_data files", lambda p: bool(os.listdir(os.path.join(p, "_change_data")))),
    "all_types": ("a timestamp_ntz column", lambda p: "timestamp_ntz" in log_text(p)),
    "type_widening": ("type changes recorded in the schema",
                      lambda p: "delta.typeChanges" in log_text(p)),
    "optimized": ("OPTIMIZE commits", lambda p: log_text(p).count('"operation":"OPTIMIZE"') == 2),
}


def check_features(report, name, path):
    what, test = FEATURE_CHECKS[name]
    try:
        report.check("spark/%s is what it should be: %s" % (name, what), test(path))
    except OSError as exc:
        report.error("spark/%s is what it should be: %s" % (name, what), exc)


def check_timestamp_travel(report, silt, spark, name, path):
    """TIMESTAMP AS OF a commit's own time resolves to that commit in both readers."""
    history = sql(spark, "DESCRIBE HISTORY delta.`%s`" % path)
    target = sorted(history, key=lambda r: r["version"])[len(history) // 2]
    stamp = target["timestamp"].strftime("%Y-%m-%d %H:%M:%S.%f")[:-3]
    label = "spark/%s timestamp %s" % (name, stamp)
    try:
        want = spark_rows(spark.read.format("delta").option("timestampAsOf", stamp).load(path))
        got = sorted(silt.run("table", "scan", path, "--timestamp", stamp, "--format", "jsonl").splitlines(),
                     key=lambda line: line.encode())
        compare_rows(report, label + " rows", got, want)
        info = silt.run("table", "info", path, "--timestamp", stamp)
        ver = re.search(r"^version: (\d+)$", info, re.M)
        report.check(label + " version", ver is not None and int(ver.group(1)) == target["version"],
                     "silt version %s, Spark version %d" % (ver.group(1) if ver else "?", target["version"]))
    except Exception as exc:
        report.error(label, exc)


def run_spark(report, silt, root, only_tables):
    try:
        spark = peers.spark_session()
    except Exception as exc:  # no Java, a broken jar: every Spark check is lost
        report.error("spark session", exc)
        return
    # Dates before 1582 and timestamps before 1900 are written as they are (proleptic
    # Gregorian, as Delta specifies), not rebased to the old hybrid calendar.
    spark.conf.set("spark.sql.parquet.datetimeRebaseModeInWrite", "CORRECTED")
    spark.conf.set("spark.sql.parquet.int96RebaseModeInWrite", "CORRECTED")
    for name, build, versions in SPARK_TABLES:
        if only_tables and name not in only_tables:
            continue
        path = os.path.join(root, "spark", name)
        started = time.time()
        try:
            extra = build(spark, path)
        except Exception as exc:
            report.error("spark/%s write" % name, exc)
            continue
        for note in extra or []:
            print("note spark/%s: Spark refused a widening, %s" % (name, note), flush=True)
        written = time.time()
        check_features(report, name, path)
        check_spark_table(report, silt, spark, name, path, versions)
        print("     (spark/%s: writing %.1f s, checking %.1f s)" % (name, written - started, time.time() - written),
              flush=True)
    if not only_tables or "checkpointed" in only_tables:
        check_timestamp_travel(report, silt, spark, "checkpointed", os.path.join(root, "spark", "checkpointed"))


# --------------------------------------------------------------------------- delta-rs

def deltars_rows(path, version):
    from deltalake import DeltaTable

    dt = DeltaTable(path, version=version)
    schema = json.loads(dt.schema().to_json())
    table = dt.to_pyarrow_table()
    return canon.rows(table.to_pylist(), schema), dt


def check_deltars_table(report, silt, name, path):
    from deltalake import DeltaTable

    latest = DeltaTable(path).version()
    for version in range(latest + 1):
        label = "delta-rs/%s v%d" % (name, version)
        try:
            want, dt = deltars_rows(path, version)
            compare_rows(report, label + " rows", silt.rows(path, version), want)
            info = silt.info(path, version)
            nfiles = len(dt.file_uris())
            ok = info["version"] == dt.version() and info["files"] == nfiles
            report.check(label + " info", ok, "version %d, %d files; delta-rs: version %d, %d files"
                         % (info["version"], info["files"], dt.version(), nfiles))
        except Exception as exc:
            report.error(label, exc)


def deltars_tables():
    """(name, list of (data, write_deltalake keyword arguments)) in commit order."""
    import decimal

    import pyarrow as pa
    from deltalake import DeltaTable

    utc = datetime.timezone.utc
    basic = pa.table({"id": pa.array([1, 2, 3], pa.int64()), "name": ["a", "b", None],
                      "score": pa.array([0.1, None, -2.5], pa.float64())})
    more = pa.table({"id": pa.array([4, 5], pa.int64()), "name": ["d", "é"],
                     "score": pa.array([1e21, 1.5e-7], pa.float64())})
    replaced = pa.table({"id": pa.array([10], pa.int64()), "name": ["over"],
                         "score": pa.array([3.0], pa.float64())})
    parts = pa.table({"id": pa.array(range(8), pa.int32()),
                      "p_str": ["x", "with space", "a/b", "100%", "k=v", None, "ünï 日本", "x"],
                      "p_int": pa.array([1, 2, None, 1, 2, 3, 1, 1], pa.int32()),
                      "p_date": pa.array([datetime.date(2024, 1, 1)] * 4 + [None, datetime.date(1970, 1, 1)] * 2,
                                         pa.date32()),
                      "v": pa.array([1.5, 2.5, None, 4.5, 5.5, 6.5, 7.5, 8.5], pa.float32())})
    evolve0 = pa.table({"id": pa.array([1, 2], pa.int64()), "a": ["x", "y"]})
    evolve1 = pa.table({"id": pa.array([3], pa.int64()), "a": ["z"], "b": pa.array([1.25], pa.float64())})
    evolve2 = pa.table({"id": pa.array([4], pa.int64()), "b": pa.array([2.5], pa.float64()),
                        "c": pa.array([[1, 2]], pa.list_(pa.int32()))})
    struct_type = pa.struct([("x", pa.int32()), ("y", pa.string())])
    types = pa.table({
        "i8": pa.array([-128, 127, None], pa.int8()), "i16": pa.array([-32768, 32767, None], pa.int16()),
        "i32": pa.array([-2**31, 2**31 - 1, None], pa.int32()), "i64": pa.array([-2**63, 2**63 - 1, None], pa.int64()),
        "f32": pa.array([0.1, float("nan"), None], pa.float32()), "f64": pa.array([-0.0, float("inf"), None]),
        "dec": pa.array([decimal.Decimal("-999.99"), decimal.Decimal("0.01"), None], pa.decimal128(5, 2)),
        "dec38": pa.array([decimal.Decimal("1234567890123456789012345678.0123456789"), decimal.Decimal(0), None],
                          pa.decimal128(38, 10)),
        "s": ['a"b\\c\n', "日本", None], "bin": pa.array([b"\x00\xff", b"", None], pa.binary()),
        "dt": pa.array([datetime.date(1, 1, 1), datetime.date(9999, 12, 31), None], pa.date32()),
        "ts": pa.array([datetime.datetime(2024, 1, 1, 12, 0, 0, 123456, tzinfo=utc),
                        datetime.datetime(1969, 12, 31, 23, 59, 59, 999999, tzinfo=utc), None],
                       pa.timestamp("us", tz="UTC")),
        "ntz": pa.array([datetime.datetime(2024, 1, 1, 12, 0, 0, 5), datetime.datetime(1900, 1, 1), None],
                        pa.timestamp("us")),
        "st": pa.array([{"x": 1, "y": "a"}, {"x": None, "y": None}, None], struct_type),
        "lst": pa.array([[1, None, 3], [], None], pa.list_(pa.int64())),
        "mp": pa.array([[("b", 2), ("a", 1)], [], None], pa.map_(pa.string(), pa.int32())),
    })
    return [
        ("basic", [(basic, {}), (more, {"mode": "append"}), (replaced, {"mode": "overwrite"}),
                   (more, {"mode": "append"})]),
        ("partitioned", [(parts, {"partition_by": ["p_str", "p_int", "p_date"]}),
                         (parts.slice(0, 3), {"mode": "append"})]),
        ("schema_merge", [(evolve0, {}), (evolve1, {"mode": "append", "schema_mode": "merge"}),
                          (evolve2, {"mode": "append", "schema_mode": "merge"})]),
        ("all_types", [(types, {}), (types.slice(0, 1), {"mode": "append"})]),
        # delete and update rewrite files, compact removes and adds, then a checkpoint
        # written by delta-rs (at version 4) with one more commit after it
        ("maintained", [(parts, {"partition_by": ["p_str"]}), (parts, {"mode": "append"}),
                        lambda p: DeltaTable(p).delete("id = 2"),
                        lambda p: DeltaTable(p).update(updates={"v": "v * 2"}, predicate="id > 4"),
                        lambda p: DeltaTable(p).optimize.compact(),
                        lambda p: DeltaTable(p).create_checkpoint(),
                        (parts.slice(0, 2), {"mode": "append"})]),
    ]


def run_deltars(report, silt, root):
    from deltalake import write_deltalake

    for name, writes in deltars_tables():
        path = os.path.join(root, "deltars", name)
        try:
            for step in writes:
                if callable(step):
                    step(path)
                else:
                    write_deltalake(path, step[0], **step[1])
        except Exception as exc:
            report.error("delta-rs/%s write" % name, exc)
            continue
        if name == "maintained":
            report.check("delta-rs/maintained has a checkpoint at version 4",
                         has_log_file(path, "%020d.checkpoint.parquet" % 4))
        check_deltars_table(report, silt, name, path)


# --------------------------------------------------------------------------- main

def peers_missing():
    try:
        import deltalake  # noqa: F401
        import pyarrow  # noqa: F401
        import pyspark  # noqa: F401
        peers.delta_jars()
    except (ImportError, FileNotFoundError) as exc:
        return str(exc)
    return None


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("silt", help="path of the silt binary")
    parser.add_argument("--keep", help="write the tables under this folder and keep them")
    parser.add_argument("--only", choices=["spark", "deltars"], help="run one peer's tables only")
    parser.add_argument("--tables", help="comma-separated names of the Spark tables to write and check")
    args = parser.parse_args()

    missing = peers_missing()
    if missing:
        print("the test peers are not set up (%s): %s" % (missing, peers.SETUP_HINT))
        print("0 passed, 1 failed" if peers.in_ci() else "skipped")
        return 1 if peers.in_ci() else 77

    report = Report()
    try:
        canon.self_test()
        report.check("canonical converter self-test", True)
    except AssertionError as exc:
        report.check("canonical converter self-test", False, str(exc))

    root = args.keep or tempfile.mkdtemp(prefix="silt-interop-")
    if args.keep:
        marker = os.path.join(root, ".silt-interop")
        if os.path.isdir(root) and os.listdir(root) and not os.path.exists(marker):
            print("--keep %s: the folder exists and was not made by this script; pick another" % root)
            return 2
        shutil.rmtree(root, ignore_errors=True)
        os.makedirs(root)
        open(marker, "w").close()
    silt = Silt(os.path.abspath(args.silt))
    try:
        if args.only in (None, "spark"):
            run_spark(report, silt, root, args.tables.split(",") if args.tables else None)
        if args.only in (None, "deltars"):
            run_deltars(report, silt, root)
    finally:
        if not args.keep:
            shutil.rmtree(root, ignore_errors=True)
    if report.failures:
        print("failed: " + ", ".join(report.failures))
    print("%d passed, %d failed" % (report.passed, report.failed))
    return 1 if report.failed else 0


if __name__ == "__main__":
    sys.exit(main())
