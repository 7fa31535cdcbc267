#!/usr/bin/env python3
"""Settings, options and properties: silt's answers against Spark's (issue 14).

    spark_settings.py SILT_BIN WORK_DIR

One scenario per item, the same statements run by silt (the `silt` command)
and by the Spark peer (Spark 4.1 with Delta 4.1) on tables of their own,
comparing what each wrote or answered:

  txn        SET spark.databricks.delta.write.txnAppId / txnVersion: the txn
             actions of INSERT, UPDATE, MERGE, INSERT OVERWRITE and CTAS,
             the repeats skipped, the final rows; Spark reads silt's table
             and sees silt's txn versions (its own repeated write is skipped)
  refusals   a txnVersion that is no long, txnVersion alone: same classes
  defaults   properties.defaults.*: the new tables' configuration
  protocol   delta.minReaderVersion / minWriterVersion / delta.feature.*:
             the protocols (as feature sets) after each ALTER and CREATE,
             and no such property stored
  syntax     CREATE TABLE IF NOT EXISTS ... SET TBLPROPERTIES: both fail
  options    versionAsOf / timestampAsOf on a temporary view: same rows;
             the time-travel errors: same error classes
  history    a table whose commit file times go backwards: DESCRIBE HISTORY
             timestamps and TIMESTAMP AS OF agree with Spark's
  isolation  commitInfo.isolationLevel of each operation: same as Spark's
  order      UPDATE keeps the file's row order: same first rows as Spark's
  redaction  SET key / SET show secret-looking keys and values (and the
             session's own redaction patterns) redacted as Spark does

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
FAILURES = []


def silt(sql, ok=True):
    proc = subprocess.run([SILT, "sql", "--format", "csv", sql], capture_output=True, text=True)
    if ok and proc.returncode != 0:
        raise SystemExit("silt failed on %s:\n%s" % (sql, proc.stderr))
    return proc


def silt_rows(sql):
    """The rows of the last result of sql, as tuples of strings."""
    out = silt(sql).stdout.strip().splitlines()
    rows = list(csv.reader(io.StringIO("\n".join(out))))
    return [tuple(r) for r in rows[1:]]


def spark_error(spark, sql):
    try:
        spark.sql(sql).collect()
    except Exception as e:  # noqa: BLE001 - any Spark error is an answer here
        return str(e)
    return None


def error_class(text):
    if text is None:
        return None
    start = text.find("[")
    end = text.find("]", start)
    return text[start + 1:end] if start >= 0 and end > start else text.split("\n")[0]


def check(name, ok, detail=""):
    print(("ok   " if ok else "FAIL ") + name + ("" if ok else ": " + detail))
    if not ok:
        FAILURES.append(name)


def log_actions(table, kind):
    out = []
    for f in sorted((Path(table) / "_delta_log").glob("*.json")):
        for line in f.read_text().splitlines():
            act = json.loads(line)
            if kind in act:
                out.append((int(f.stem), act[kind]))
    return out


def txns(table):
    return [(v, a["appId"], a["version"]) for v, a in log_actions(table, "txn")]


def protocol_features(p):
    """A protocol as Delta 4 sees it: the set of features it supports."""
    legacy = [("appendOnly", 1, 2), ("invariants", 1, 2), ("checkConstraints", 1, 3),
              ("changeDataFeed", 1, 4), ("generatedColumns", 1, 4), ("columnMapping", 2, 5),
              ("identityColumns", 1, 6)]
    r, w = p["minReaderVersion"], p["minWriterVersion"]
    if w >= 7:
        s = set(p.get("writerFeatures", [])) | set(p.get("readerFeatures", []))
        if r == 2:
            s.add("columnMapping")
        return (r >= 3, frozenset(s))
    return (False, frozenset(f for f, fr, fw in legacy if fr <= r and fw <= w))


def last_protocol(table):
    return log_actions(table, "protocol")[-1][1]


def stored_config(table):
    return log_actions(table, "metaData")[-1][1].get("configuration", {})


# ---------------------------------------------------------------- scenarios

TXN_STEPS = [
    "SET spark.databricks.delta.write.txnAppId = app1",
    "SET spark.databricks.delta.write.txnVersion = 1",
    "INSERT INTO {t} VALUES (1, 'a')",
    "INSERT INTO {t} VALUES (2, 'b')",
    "SET spark.databricks.delta.write.txnVersion = 2",
    "UPDATE {t} SET v = 'z' WHERE id = 1",
    "UPDATE {t} SET v = 'y' WHERE id = 1",
    "SET spark.databricks.delta.write.txnVersion = 4",
    "MERGE INTO {t} t USING (SELECT 3 id, 'c' v) s ON t.id = s.id WHEN NOT MATCHED THEN INSERT *",
    "MERGE INTO {t} t USING (SELECT 4 id, 'c' v) s ON t.id = s.id WHEN NOT MATCHED THEN INSERT *",
    "SET spark.databricks.delta.write.txnVersion = 5",
    "INSERT OVERWRITE {t} SELECT * FROM {t}",
    "SET spark.databricks.delta.write.txnVersion = 0",
    "INSERT INTO {t} VALUES (9, 'old')",
]


def scenario_txn(spark):
    s_t, p_t = WORK / "txn_silt", WORK / "txn_spark"
    create = "CREATE TABLE delta.`{p}` (id INT, v STRING) USING delta"
    silt(create.format(p=s_t))
    spark.sql(create.format(p=p_t))
    silt("; ".join(st.format(t="delta.`%s`" % s_t) for st in TXN_STEPS))
    for st in TXN_STEPS:
        spark.sql(st.format(t="delta.`%s`" % p_t))
    spark.sql("RESET")
    mine = [(a, v) for _, a, v in txns(s_t)]
    theirs = [(a, v) for _, a, v in txns(p_t)]
    check("txn: the same txn actions, in the same order", mine == theirs,
          "silt %s, Spark %s" % (mine, theirs))
    rows_s = sorted(silt_rows("SELECT * FROM delta.`%s`" % s_t))
    rows_p = sorted((str(r[0]), r[1]) for r in spark.sql("SELECT * FROM delta.`%s`" % p_t).collect())
    check("txn: the same rows after the repeats", rows_s == rows_p, "%s vs %s" % (rows_s, rows_p))
    # Spark writing to silt's table sees silt's txn version: its repeat is skipped
    spark.sql("SET spark.databricks.delta.write.txnAppId = app1")
    spark.sql("SET spark.databricks.delta.write.txnVersion = 5")
    spark.sql("INSERT INTO delta.`%s` VALUES (77, 'spark')" % s_t)
    spark.sql("RESET")
    n = spark.sql("SELECT count(*) FROM delta.`%s` WHERE id = 77" % s_t).collect()[0][0]
    check("txn: Spark skips a write silt's txn action already covers", n == 0, "count %d" % n)
    ctas_s, ctas_p = WORK / "ctas_silt", WORK / "ctas_spark"
    sets = ("SET spark.databricks.delta.write.txnAppId = job", "SET spark.databricks.delta.write.txnVersion = 3")
    silt("; ".join(sets) + "; CREATE TABLE delta.`%s` USING delta AS SELECT 1 AS id" % ctas_s)
    for st in sets:
        spark.sql(st)
    spark.sql("CREATE TABLE delta.`%s` USING delta AS SELECT 1 AS id" % ctas_p)
    spark.sql("RESET")
    check("txn: CTAS carries the txn action",
          [t[1:] for t in txns(ctas_s)] == [t[1:] for t in txns(ctas_p)] == [("job", 3)],
          "%s vs %s" % (txns(ctas_s), txns(ctas_p)))


def scenario_refusals(spark):
    table = WORK / "refuse_silt"
    silt("CREATE TABLE delta.`%s` (id INT) USING delta" % table)
    spark_t = WORK / "refuse_spark"
    spark.sql("CREATE TABLE delta.`%s` (id INT) USING delta" % spark_t)
    cases = [
        ("SET spark.databricks.delta.write.txnVersion = abc", None),
        ("SET spark.sql.ansi.enabled = maybe", None),
        ("SET spark.sql.sources.partitionOverwriteMode = sometimes", None),
        ("SET spark.databricks.delta.write.txnVersion = 1; INSERT INTO delta.`{t}` VALUES (1)",
         "INSERT INTO delta.`{t}` VALUES (1)"),
    ]
    for sql, last in cases:
        mine = silt(sql.format(t=table), ok=False)
        theirs = None
        for st in sql.format(t=spark_t).split("; "):
            theirs = spark_error(spark, st)
        spark.sql("RESET")
        check("refusals: %s" % sql.split(";")[-1].strip()[:60],
              mine.returncode != 0 and error_class(theirs) is not None
              and "[%s]" % error_class(theirs) in mine.stderr,
              "silt %r, Spark %r" % (mine.stderr.strip()[:200], (theirs or "")[:200]))


def scenario_defaults(spark):
    sets = ["SET spark.databricks.delta.properties.defaults.enableChangeDataFeed = true",
            "SET spark.databricks.delta.properties.defaults.appendOnly = true"]
    stmts = ["CREATE TABLE delta.`{d}/a` (id INT) USING delta TBLPROPERTIES (delta.appendOnly = false)",
             "CREATE TABLE delta.`{d}/b` USING delta AS SELECT 1 AS id"]
    ds, dp = WORK / "def_silt", WORK / "def_spark"
    silt("; ".join(sets + [s.format(d=ds) for s in stmts]))
    for st in sets + [s.format(d=dp) for s in stmts]:
        spark.sql(st)
    spark.sql("RESET")
    for name in ("a", "b"):
        check("defaults: table %s has Spark's configuration" % name,
              stored_config(ds / name) == stored_config(dp / name),
              "%s vs %s" % (stored_config(ds / name), stored_config(dp / name)))


PROTOCOL_ALTERS = [
    "delta.minWriterVersion = 3", "delta.minWriterVersion = 2", "delta.minReaderVersion = 2",
    "delta.minWriterVersion = 7", "'delta.feature.deletionVectors' = 'supported'",
    "'delta.feature.appendOnly' = 'enabled'",
]
PROTOCOL_CREATES = [
    "delta.minReaderVersion = 1, delta.minWriterVersion = 4",
    "'delta.feature.domainMetadata' = 'supported'",
    "delta.minReaderVersion = 3",
    "delta.minReaderVersion = 2, delta.minWriterVersion = 5",
    "delta.minWriterVersion = 6",
    "delta.minWriterVersion = 4, delta.enableChangeDataFeed = true",
    "delta.enableDeletionVectors = true, delta.minWriterVersion = 3",
    "delta.enableChangeDataFeed = true",
    "delta.columnMapping.mode = 'name'",
    "delta.enableInCommitTimestamps = true",
]


def scenario_protocol(spark):
    ts, tp = WORK / "proto_silt", WORK / "proto_spark"
    create = "CREATE TABLE delta.`%s` (id INT) USING delta"
    silt(create % ts)
    spark.sql(create % tp)
    for props in PROTOCOL_ALTERS:
        alter = "ALTER TABLE delta.`%s` SET TBLPROPERTIES (" + props + ")"
        silt(alter % ts)
        spark.sql(alter % tp)
        mine, theirs = protocol_features(last_protocol(ts)), protocol_features(last_protocol(tp))
        check("protocol: ALTER %s" % props, mine == theirs, "silt %s, Spark %s" % (mine, theirs))
    check("protocol: no protocol property stored (ALTER)", stored_config(ts) == {} ==
          stored_config(tp), "%s vs %s" % (stored_config(ts), stored_config(tp)))
    for idx, props in enumerate(PROTOCOL_CREATES):
        stmt = "CREATE TABLE delta.`%s` (id INT) USING delta TBLPROPERTIES (" + props + ")"
        silt(stmt % (WORK / ("pc_silt_%d" % idx)))
        spark.sql(stmt % (WORK / ("pc_spark_%d" % idx)))
        mine = protocol_features(last_protocol(WORK / ("pc_silt_%d" % idx)))
        theirs = protocol_features(last_protocol(WORK / ("pc_spark_%d" % idx)))
        check("protocol: CREATE with %s" % props, mine == theirs,
              "silt %s, Spark %s" % (mine, theirs))
        conf_s = stored_config(WORK / ("pc_silt_%d" % idx))
        conf_p = stored_config(WORK / ("pc_spark_%d" % idx))
        check("protocol: CREATE with %s stores Spark's configuration" % props, conf_s == conf_p,
              "%s vs %s" % (conf_s, conf_p))
    # enabling a feature by its property upgrades the protocol in the same commit
    es, ep = WORK / "enable_silt", WORK / "enable_spark"
    for stmt in ("CREATE TABLE delta.`%s` (id INT) USING delta",
                 "ALTER TABLE delta.`%s` SET TBLPROPERTIES (delta.enableChangeDataFeed = true)"):
        silt(stmt % es)
        spark.sql(stmt % ep)
    mine, theirs = protocol_features(last_protocol(es)), protocol_features(last_protocol(ep))
    check("protocol: enabling the change data feed upgrades the protocol as Spark does",
          mine == theirs, "silt %s, Spark %s" % (mine, theirs))
    for bad in ["'delta.feature.nosuch' = 'supported'", "'delta.feature.appendOnly' = 'yes'"]:
        alter = "ALTER TABLE delta.`%s` SET TBLPROPERTIES (" + bad + ")"
        mine = silt(alter % ts, ok=False)
        theirs = spark_error(spark, alter % tp)
        check("protocol: %s is refused as Spark refuses it" % bad,
              mine.returncode != 0 and "[%s]" % error_class(theirs) in mine.stderr,
              "silt %r, Spark %r" % (mine.stderr.strip()[:200], (theirs or "")[:200]))


def scenario_syntax(spark):
    sql = "CREATE TABLE IF NOT EXISTS delta.`%s` (id INT) USING delta SET TBLPROPERTIES (a = 1)"
    mine = silt(sql % (WORK / "syn_silt"), ok=False)
    theirs = spark_error(spark, sql % (WORK / "syn_spark"))
    check("syntax: CREATE TABLE ... SET TBLPROPERTIES is a syntax error in both",
          mine.returncode != 0 and "[PARSE_SYNTAX_ERROR]" in mine.stderr
          and error_class(theirs) == "PARSE_SYNTAX_ERROR",
          "silt %r, Spark %r" % (mine.stderr[:200], (theirs or "")[:200]))


def scenario_options(spark):
    table = WORK / "opt"
    silt("CREATE TABLE delta.`%s` (id INT) USING delta; INSERT INTO delta.`%s` VALUES (1); "
         "INSERT INTO delta.`%s` VALUES (2)" % (table, table, table))
    hist = spark.sql("DESCRIBE HISTORY delta.`%s`" % table).collect()
    ts1 = {r["version"]: r["timestamp"] for r in hist}[1].strftime("%Y-%m-%d %H:%M:%S.%f")
    for opts in ["versionAsOf '1'", "timestampAsOf '%s'" % ts1, "versionAsOf '0'"]:
        view = "CREATE OR REPLACE TEMPORARY VIEW v USING delta OPTIONS (path '%s', %s)" % (table, opts)
        mine = sorted(silt_rows(view + "; SELECT * FROM v"))
        spark.sql(view)
        theirs = sorted((str(r[0]),) for r in spark.sql("SELECT * FROM v").collect())
        check("options: %s reads Spark's rows" % opts, mine == theirs, "%s vs %s" % (mine, theirs))
    for opts in ["versionAsOf '9'", "versionAsOf 'x'", "timestampAsOf '2000-01-01'",
                 "timestampAsOf '2999-01-01'", "timestampAsOf 'garbage'",
                 "versionAsOf '1', timestampAsOf '2000-01-01'"]:
        view = "CREATE OR REPLACE TEMPORARY VIEW v USING delta OPTIONS (path '%s', %s)" % (table, opts)
        mine = silt(view, ok=False)
        theirs = spark_error(spark, view)
        check("options: %s fails with Spark's error class" % opts,
              mine.returncode != 0 and theirs is not None
              and "[%s]" % error_class(theirs) in mine.stderr,
              "silt %r, Spark %r" % (mine.stderr.strip()[:200], (theirs or "")[:200]))
    for sql in ["SELECT * FROM delta.`%s` VERSION AS OF 9" % table,
                "SELECT * FROM delta.`%s` TIMESTAMP AS OF '2000-01-01'" % table,
                "SELECT * FROM delta.`%s` TIMESTAMP AS OF '2999-01-01'" % table]:
        mine = silt(sql, ok=False)
        theirs = spark_error(spark, sql)
        check("options: %s fails with Spark's error class" % sql[-30:],
              mine.returncode != 0 and "[%s]" % error_class(theirs) in mine.stderr,
              "silt %r, Spark %r" % (mine.stderr.strip()[:200], (theirs or "")[:200]))
    # readChangeFeed acts (tests/interop/spark_cdf.py compares the rows with Spark's)
    view = ("CREATE OR REPLACE TEMPORARY VIEW v USING delta OPTIONS (path '%s', "
            "readChangeFeed 'true', startingVersion '0', endingVersion 'x')" % table)
    check("options: a bad endingVersion is Delta's DELTA_VERSION_INVALID",
          "[DELTA_VERSION_INVALID]" in silt(view + "; SELECT * FROM v", ok=False).stderr)


def scenario_history(spark):
    """Commit file times going backwards (a copied table): Delta's monotonic times."""
    table = WORK / "hist"
    silt("CREATE TABLE delta.`%s` (id INT) USING delta; INSERT INTO delta.`%s` VALUES (1); "
         "INSERT INTO delta.`%s` VALUES (2)" % (table, table, table))
    # within deletedFileRetentionDuration (Spark refuses older time travel); whole seconds
    base = int(time.time()) - 3 * 3600
    for version, offset in ((0, 0), (1, 7200), (2, 3600)):  # version 2 older than version 1
        path = table / "_delta_log" / ("%020d.json" % version)
        os.utime(path, (base + offset, base + offset))
    mine = [tuple(r[:2]) for r in silt_rows("DESCRIBE HISTORY delta.`%s`" % table)]
    theirs = [(str(r["version"]), r["timestamp"].strftime("%Y-%m-%dT%H:%M:%S.%f")[:23] + "Z")
              for r in spark.sql("DESCRIBE HISTORY delta.`%s`" % table).collect()]
    check("history: DESCRIBE HISTORY times are Spark's monotonic ones", mine == theirs,
          "silt %s, Spark %s" % (mine, theirs))
    def text(secs, ms=0):
        return time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime(secs)) + ".%03d" % ms

    for when in (text(base + 7200), text(base + 7200, 1), text(base + 5400)):
        sql = "SELECT count(*) FROM delta.`%s` TIMESTAMP AS OF '%s'" % (table, when)
        mine = silt_rows(sql)[0][0]
        theirs = str(spark.sql(sql).collect()[0][0])
        check("history: TIMESTAMP AS OF '%s' reads Spark's version" % when, mine == theirs,
              "silt %s rows, Spark %s" % (mine, theirs))


ISOLATION_STEPS = [
    "CREATE TABLE {t} (id INT, v STRING) USING delta",
    "INSERT INTO {t} VALUES (1, 'a'), (2, 'b')",
    "UPDATE {t} SET v = 'z' WHERE id = 1",
    "DELETE FROM {t} WHERE id = 2",
    "MERGE INTO {t} t USING (SELECT 3 id, 'c' v) s ON t.id = s.id WHEN NOT MATCHED THEN INSERT *",
    "INSERT OVERWRITE {t} SELECT * FROM {t}",
    "ALTER TABLE {t} SET TBLPROPERTIES ('x' = 'y')",
    "CREATE OR REPLACE TABLE {t} USING delta AS SELECT * FROM {t}",
]


def scenario_isolation(spark):
    ts, tp = WORK / "iso_silt", WORK / "iso_spark"
    silt("; ".join(st.format(t="delta.`%s`" % ts) for st in ISOLATION_STEPS))
    for st in ISOLATION_STEPS:
        spark.sql(st.format(t="delta.`%s`" % tp))
    mine = [(c["operation"], c.get("isolationLevel")) for _, c in log_actions(ts, "commitInfo")]
    theirs = [(c["operation"], c.get("isolationLevel")) for _, c in log_actions(tp, "commitInfo")]
    check("isolation: commitInfo.isolationLevel of every operation is Spark's", mine == theirs,
          "silt %s, Spark %s" % (mine, theirs))


def scenario_order(spark):
    """UPDATE keeps the file's row order (the DP-203 lab's show(10) after an update)."""
    src = WORK / "order_src"
    spark.range(0, 40).selectExpr("CAST(id AS INT) AS ProductID", "id * 1.5 AS ListPrice") \
        .coalesce(1).write.format("delta").save(str(src))
    ts, tp = WORK / "order_silt", WORK / "order_spark"
    shutil.copytree(src, ts)
    shutil.copytree(src, tp)
    update = "UPDATE delta.`%s` SET ListPrice = ListPrice * 0.9 WHERE ProductID = 3"
    silt(update % ts)
    spark.sql(update % tp)
    mine = [r[0] for r in silt_rows("SELECT * FROM delta.`%s` LIMIT 10" % ts)]
    theirs = [str(r[0]) for r in spark.read.format("delta").load(str(tp)).take(10)]
    spark_reads_silt = [str(r[0]) for r in spark.read.format("delta").load(str(ts)).take(10)]
    check("order: UPDATE keeps the file's row order as Spark's does",
          mine == theirs == spark_reads_silt,
          "silt %s, Spark %s, Spark on silt's %s" % (mine, theirs, spark_reads_silt))


REDACTION_STEPS = [
    "SET spark.hadoop.fs.s3a.secret.key = abc123",
    "SET spark.hadoop.fs.s3a.secret.key",
    "SET t14.password",
    "SET t14.url = http://x",
    "SET t14.url",
    "SET t14.b = my_Token_1",
    "SET t14.b",
    "SET t14.accesskey = z",
    "SET t14.accesskey",
    "SET t14.access.key = z",
    "SET t14.access.key",
    "SET t14.access_key = z",
    "SET t14.access_key",
    "SET spark.sql.redaction.options.regex = foo",
    "SET t14.url",
    "SET t14.foo = 1",
    "SET t14.foo",
    "SET spark.redaction.regex = (?i)plain",
    "SET spark.hadoop.fs.s3a.secret.key",
]


def scenario_redaction(spark):
    """SET's answers for secret-looking keys and values, and the patterns set in the session."""
    mine, theirs = [], []
    done = []
    for stmt in REDACTION_STEPS:
        proc = silt("; ".join(done + [stmt]), ok=False)
        if proc.returncode == 0:
            mine.append(tuple(list(csv.reader(io.StringIO(proc.stdout.strip())))[-1]))
            done.append(stmt)
        else:
            mine.append(("error", error_class(proc.stderr)))
        err = spark_error(spark, stmt)
        theirs.append(("error", error_class(err)) if err is not None else
                      tuple(str(v) for v in spark.sql(stmt).collect()[0]))
    spark.sql("RESET")
    check("redaction: SET shows what Spark shows, redacted where Spark redacts", mine == theirs,
          "\n".join("%s: silt %s, Spark %s" % (st, m, t)
                    for st, m, t in zip(REDACTION_STEPS, mine, theirs) if m != t))


def main():
    from peers import spark_session
    if WORK.exists():
        shutil.rmtree(WORK)
    WORK.mkdir(parents=True)
    spark = spark_session()
    for scenario in (scenario_txn, scenario_refusals, scenario_defaults, scenario_protocol,
                     scenario_syntax, scenario_options, scenario_history, scenario_isolation,
                     scenario_order, scenario_redaction):
        scenario(spark)
    print("%d failure(s)" % len(FAILURES))
    return 1 if FAILURES else 0


if __name__ == "__main__":
    sys.exit(main())
