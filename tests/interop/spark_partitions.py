#!/usr/bin/env python3
"""Partition discovery of plain file sources: silt's answers against Spark's (issue 14).

    spark_partitions.py SILT_BIN WORK_DIR

The test writes Hive-style folders (dir/key=value/.../part-0.parquet, and
CSV and JSON ones), then runs the same statements in silt (the `silt`
command) and in the Spark peer on the same folders, and compares the rows
(as text) and the types (typeof) of every answer:

  types      int, long, decimal(p,0), double, timestamp, date, string, void;
             %-escaped names and values; __HIVE_DEFAULT_PARTITION__ is null;
             types widened across folders (long and double give string,
             date and timestamp give timestamp)
  noinfer    spark.sql.sources.partitionColumnTypeInference.enabled=false
  inside     a path inside the partition folders, with and without basePath;
             a glob with basePath
  recursive  recursiveFileLookup=true: every file, no partition column
  filter     a filter on a partition column, count/sum over the result; silt's
             EXPLAIN shows the folders pruned
  overlap    a partition column also in the data files
  mixed      files in the base folder beside partition folders (not read)
  conflicts  conflicting folder names / structures: both fail, same class
  text       CSV and JSON folders, and a temporary view USING csv with basePath
  filename   input_file_name() over Parquet and CSV folders and a Delta table
             Spark wrote: the same URIs; Spark 4's _metadata.file_path
  catalog    current_database(), current_schema(), current_catalog() before
             and after USE

Runs under <repo>/.peers/venv/bin/python (re-executing itself there).
Without the venv it exits 77 (skip), or 1 when CI=true.
"""
import csv
import datetime
import decimal
import io
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
WORK = Path(sys.argv[2]).resolve()
FAILURES = []
CHECKED = [0]


def silt(sql, extra=()):
    proc = subprocess.run([SILT, "sql", "--format", "csv", *extra, sql], capture_output=True,
                          text=True)
    return proc


def silt_rows(sql, extra=(), skip=0):
    proc = silt(sql, extra)
    if proc.returncode != 0:
        return None, proc.stderr
    out = proc.stdout.strip().splitlines()[skip:]
    rows = list(csv.reader(io.StringIO("\n".join(out))))
    return sorted(tuple(r) for r in rows[1:]), None


def text(v):
    if v is None:
        return ""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, datetime.datetime):
        s = v.strftime("%Y-%m-%d %H:%M:%S")
        if v.microsecond:
            s += (".%06d" % v.microsecond).rstrip("0")
        return s
    if isinstance(v, (datetime.date, decimal.Decimal)):
        return str(v)
    return str(v)


def spark_rows(spark, sql):
    try:
        return sorted(tuple(text(v) for v in r) for r in spark.sql(sql).collect()), None
    except Exception as e:  # noqa: BLE001 - any Spark error is an answer here
        return None, str(e)


def error_class(msg):
    if msg is None:
        return None
    msg = msg.replace("silt: ", "", 1)
    start = msg.find("[")
    end = msg.find("]", start)
    return msg[start + 1:end] if start >= 0 and end > start else msg.split("\n")[0]


def same(spark, name, sql, spark_sql=None, extra=(), skip=0):
    CHECKED[0] += 1
    mine, my_err = silt_rows(sql, extra, skip)
    theirs, their_err = spark_rows(spark, spark_sql or sql)
    if my_err or their_err:
        if my_err and their_err and error_class(my_err) == error_class(their_err):
            print("ok   %-22s both fail: %s" % (name, error_class(my_err)))
            return
        FAILURES.append("%s: silt %s / spark %s" % (name, my_err or mine, their_err or theirs))
        print("FAIL %-22s silt: %s\n     spark: %s" % (name, my_err or mine, their_err or theirs))
        return
    if mine != theirs:
        FAILURES.append("%s: silt %s != spark %s" % (name, mine, theirs))
        print("FAIL %-22s\n     silt:  %s\n     spark: %s" % (name, mine, theirs))
    else:
        print("ok   %-22s %d rows" % (name, len(mine)))


def parquet(folder, rows, **cols):
    import pyarrow as pa
    import pyarrow.parquet as pq
    os.makedirs(folder, exist_ok=True)
    data = {"x": rows}
    data.update(cols)
    pq.write_table(pa.table(data), os.path.join(folder, "part-0.parquet"))


def build():
    shutil.rmtree(WORK, ignore_errors=True)
    t = WORK / "types"
    parquet(t / "i=1/l=2147483648/dec=12345678901234567890/dbl=1.5/ts=2020-01-01 10%3A00%3A00"
            / "dt=2020-01-01/s=a%20b%3Dc%25/n=__HIVE_DEFAULT_PARTITION__", [1, 2])
    parquet(t / "i=-7/l=5/dec=1e5/dbl=2/ts=2021-06-01 00%3A00%3A00.5/dt=2021-02-28"
            / "s=__HIVE_DEFAULT_PARTITION__/n=__HIVE_DEFAULT_PARTITION__", [3])
    parquet(t / "i=007/l=-9223372036854775808/dec=-0/dbl=-1e300/ts=2020-01-01"
            / "dt=1999-12-31/s=2020-01/n=__HIVE_DEFAULT_PARTITION__", [4])
    w = WORK / "wide"
    parquet(w / "a=1/b=2020-01-01/c=1", [1])
    parquet(w / "a=1.5/b=2020-01-02 03%3A04%3A05/c=x", [2])
    parquet(w / "a=2147483648/b=2020-01-03/c=2.5", [3])
    y = WORK / "years"
    for year, month, rows in ((2020, 1, [1, 2]), (2020, 2, [3]), (2021, 1, [4, 5, 6])):
        parquet(y / ("year=%d" % year) / ("month=%d" % month), rows)
        os.makedirs(y / "_SUCCESS_dir", exist_ok=True)
    (y / "_SUCCESS").write_text("")
    (y / "year=2020" / ".hidden").write_text("")
    parquet(WORK / "overlap/year=2020", [1], year=[1999])
    parquet(WORK / "overlap/year=2021", [2], year=[1998])
    parquet(WORK / "mixed/a=1", [1])
    parquet(WORK / "mixed", [2])
    parquet(WORK / "names/a=1", [1])
    parquet(WORK / "names/b=2", [2])
    parquet(WORK / "structure/a=1/b=1", [1])
    parquet(WORK / "structure/x/b=2", [2])
    c = WORK / "csv"
    for d, s, body in (("2020-01-01", "a%20b", "x,y\n1,2\n3,4\n"),
                       ("2020-01-02", "__HIVE_DEFAULT_PARTITION__", "x,y\n5,6\n")):
        os.makedirs(c / ("d=" + d) / ("s=" + s), exist_ok=True)
        (c / ("d=" + d) / ("s=" + s) / "p.csv").write_text(body)
    j = WORK / "json"
    for k, body in (("1", '{"a":1,"b":"x"}\n{"a":2,"b":"y"}\n'), ("2", '{"a":3,"b":"z"}\n')):
        os.makedirs(j / ("k=" + k), exist_ok=True)
        (j / ("k=" + k) / "f.json").write_text(body)


def main():
    from peers import spark_session
    build()
    spark = spark_session()
    t, w, y = WORK / "types", WORK / "wide", WORK / "years"
    tcols = "i, l, dec, dbl, ts, dt, s, n"
    types = ", ".join("typeof(%s)" % c for c in tcols.split(", "))
    shown = "i, l, dec, CAST(dbl AS STRING), CAST(ts AS STRING), dt, s, n"
    same(spark, "types", "SELECT x, %s, %s FROM parquet.`%s`" % (shown, types, t))
    same(spark, "types.filter",
         "SELECT x, s FROM parquet.`%s` WHERE s = 'a b=c%%' OR n IS NULL AND i < 0" % t)
    same(spark, "wide", "SELECT x, a, CAST(b AS STRING), c, typeof(a), typeof(b), typeof(c) "
         "FROM parquet.`%s`" % w)
    spark.conf.set("spark.sql.sources.partitionColumnTypeInference.enabled", "false")
    same(spark, "noinfer",
         "SET spark.sql.sources.partitionColumnTypeInference.enabled = false; "
         "SELECT x, a, b, typeof(a), typeof(b) FROM parquet.`%s`" % w,
         spark_sql="SELECT x, a, b, typeof(a), typeof(b) FROM parquet.`%s`" % w, skip=2)
    spark.conf.unset("spark.sql.sources.partitionColumnTypeInference.enabled")
    same(spark, "all", "SELECT x, year, month, typeof(year) FROM parquet.`%s`" % y)
    same(spark, "inside", "SELECT * FROM parquet.`%s/year=2020`" % y)
    base = ("CREATE OR REPLACE TEMPORARY VIEW v USING parquet OPTIONS (path '%s/year=2020', "
            "basePath '%s')" % (y, y))
    spark.sql(base)
    same(spark, "inside.basePath", base + "; SELECT * FROM v", spark_sql="SELECT * FROM v")
    glob_rows = sorted(tuple(text(v) for v in r) for r in spark.read.option("basePath", str(y))
                       .parquet("%s/year=*/month=1" % y).collect())
    mine, err = silt_rows("SELECT * FROM read_files('%s/year=*/month=1', format => 'parquet', "
                          "basePath => '%s')" % (y, y))
    check("glob.basePath", mine, err, glob_rows)
    rec_rows = sorted(tuple(text(v) for v in r) for r in spark.read.option(
        "recursiveFileLookup", "true").parquet(str(y)).collect())
    mine, err = silt_rows("SELECT * FROM read_files('%s', format => 'parquet', "
                          "recursiveFileLookup => 'true')" % y)
    check("recursive", mine, err, rec_rows)
    same(spark, "filter.count",
         "SELECT count(*), sum(x), sum(month) FROM parquet.`%s` WHERE year = 2020" % y)
    same(spark, "filter.group",
         "SELECT year, count(*), sum(x) FROM parquet.`%s` WHERE month >= 1 AND year > 2019 "
         "GROUP BY year" % y)
    plan = silt("EXPLAIN SELECT count(*) FROM parquet.`%s` WHERE year = 2021" % y).stdout
    CHECKED[0] += 1
    if "partitions: 1 of 3 read, 2 skipped" not in plan:
        FAILURES.append("explain: no pruning note in %s" % plan)
        print("FAIL explain\n%s" % plan)
    else:
        print("ok   explain                folders pruned")
    same(spark, "overlap", "SELECT x, year, typeof(year) FROM parquet.`%s`" % (WORK / "overlap"))
    same(spark, "mixed", "SELECT * FROM parquet.`%s`" % (WORK / "mixed"))
    for name in ("names", "structure"):
        # Spark's SQL wraps the reader's error (FAILED_TO_CREATE_PLAN_FOR_DIRECT_QUERY): its
        # DataFrame reader gives the class itself.
        CHECKED[0] += 1
        mine, my_err = silt_rows("SELECT * FROM parquet.`%s`" % (WORK / name))
        try:
            spark.read.parquet(str(WORK / name)).collect()
            their_err = None
        except Exception as e:  # noqa: BLE001
            their_err = str(e)
        if my_err is None or error_class(my_err) != error_class(their_err):
            FAILURES.append("conflict.%s: silt %s / spark %s" % (name, my_err or mine, their_err))
            print("FAIL conflict.%s silt: %s\n     spark: %s" % (name, my_err or mine, their_err))
        else:
            print("ok   conflict.%-13s both fail: %s" % (name, error_class(my_err)))
    c, j = WORK / "csv", WORK / "json"
    view = ("CREATE OR REPLACE TEMPORARY VIEW c USING csv OPTIONS (path '%s', header 'true', "
            "inferSchema 'true')" % c)
    spark.sql(view)
    same(spark, "csv", view + "; SELECT x, y, d, s, typeof(d), typeof(x) FROM c",
         spark_sql="SELECT x, y, d, s, typeof(d), typeof(x) FROM c")
    same(spark, "csv.filter", view + "; SELECT count(*), sum(x) FROM c WHERE d = '2020-01-01'",
         spark_sql="SELECT count(*), sum(x) FROM c WHERE d = '2020-01-01'")
    cbase = ("CREATE OR REPLACE TEMPORARY VIEW cb USING csv OPTIONS (path '%s/d=2020-01-01', "
             "header 'true', basePath '%s')" % (c, c))
    spark.sql(cbase)
    same(spark, "csv.basePath", cbase + "; SELECT * FROM cb", spark_sql="SELECT * FROM cb")
    same(spark, "json", "SELECT a, b, k, typeof(k) FROM json.`%s`" % j)
    same(spark, "filename.parquet",
         "SELECT x, input_file_name() FROM parquet.`%s` WHERE month = 1" % y)
    same(spark, "metadata.file_path",
         "SELECT x, _metadata.file_path FROM parquet.`%s` WHERE month = 1" % y)
    same(spark, "filename.csv", view + "; SELECT x, input_file_name() FROM c",
         spark_sql="SELECT x, input_file_name() FROM c")
    dt = WORK / "delta"
    spark.sql("CREATE TABLE delta.`%s` (x INT, p STRING) USING delta PARTITIONED BY (p)" % dt)
    spark.sql("INSERT INTO delta.`%s` VALUES (1, 'a b'), (2, 'c:d'), (3, NULL), (4, 'e%%f')" % dt)
    same(spark, "filename.delta", "SELECT x, p, input_file_name() FROM delta.`%s`" % dt)
    same(spark, "filename.delta.where",
         "SELECT count(*) FROM delta.`%s` WHERE input_file_name() LIKE '%%c%%253Ad%%'" % dt)
    wh = WORK / "warehouse"
    os.makedirs(wh, exist_ok=True)
    cat = "SELECT current_database(), current_schema(), current_catalog()"
    same(spark, "catalog", cat, extra=("--warehouse", str(wh)))
    spark.sql("CREATE DATABASE IF NOT EXISTS fid_db")
    spark.sql("USE fid_db")
    same(spark, "catalog.use", "CREATE DATABASE IF NOT EXISTS fid_db; USE fid_db; " + cat,
         spark_sql=cat, extra=("--warehouse", str(wh)))
    spark.sql("USE default")
    print("%d passed, %d failed" % (CHECKED[0] - len(FAILURES), len(FAILURES)))
    return 1 if FAILURES else 0


def check(name, mine, err, theirs):
    CHECKED[0] += 1
    if err is not None or mine != theirs:
        FAILURES.append("%s: silt %s != spark %s" % (name, err or mine, theirs))
        print("FAIL %-22s\n     silt:  %s\n     spark: %s" % (name, err or mine, theirs))
    else:
        print("ok   %-22s %d rows" % (name, len(mine)))


if __name__ == "__main__":
    sys.exit(main())
