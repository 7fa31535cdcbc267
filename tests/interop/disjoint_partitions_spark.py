#!/usr/bin/env python3
"""UPDATE and DELETE on disjoint partitions do not conflict, silt and Spark
writing one table at the same time (issue 15, item 5).

    disjoint_partitions_spark.py SILT_BIN WORK_DIR SHIM [--silt-only]

A table partitioned by p holds partitions a and b. For each case silt runs
a statement on its own partition and is held by the fault shim
(tests/crash/fault_shim.c, LD_PRELOAD, action `wait`) just before the
link() of its commit, after it has read the table and written its files;
Spark then commits its own statement; silt is released, finds Spark's
commit at the version it wanted, and runs the conflict check on it:

- silt UPDATE/DELETE WHERE p = 'a' against Spark UPDATE/DELETE WHERE
  p = 'b': no conflict, silt commits the next version, and Spark reads
  both changes;
- the control, both on p = 'a' (Spark rewrote a file silt read): silt
  fails with ConcurrentAppendException (Delta checks added files before
  deleted ones), the table keeps Spark's change only - the case that
  proves the test can fail.

The other direction (Spark's conflict checker judging a silt commit) runs
through Delta's own API: a Spark transaction reads p = 'b' with
filterFiles (recording its read predicate), silt commits an UPDATE of
p = 'a', and Spark's commit of its removes must succeed; with silt
updating p = 'b' instead, Spark must refuse with ConcurrentAppendException.

With --silt-only the other writer is a second silt process and the Delta
API part is left out (ctest crash.disjoint_partitions, no peers needed).

Runs under <repo>/.peers/venv/bin/python (re-executing itself there).
Without the venv it exits 77 (skip), or 1 when CI=true.
"""
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "tests" / "peers"))
SILT_ONLY = "--silt-only" in sys.argv
sys.argv = [a for a in sys.argv if a != "--silt-only"]
if not SILT_ONLY:
    from peers import reexec_in_venv  # noqa: E402
    reexec_in_venv(__file__)
os.environ["TZ"] = "UTC"

SILT = sys.argv[1]
WORK = Path(sys.argv[2]).resolve()
SHIM = str(Path(sys.argv[3]).resolve())


def silt(sql, env=None, check=True):
    proc = subprocess.run([SILT, "sql", "--format", "csv", sql], capture_output=True, text=True,
                          env=env)
    if check and proc.returncode != 0:
        raise SystemExit("silt failed on %s:\n%s" % (sql, proc.stderr))
    return proc


def make_table(name):
    table = WORK / name
    t = "delta.`%s`" % table
    silt("CREATE TABLE %s (id INT, v STRING, p STRING) USING DELTA PARTITIONED BY (p)" % t)
    silt("INSERT INTO %s VALUES (1, 'a1', 'a'), (2, 'a2', 'a'), (3, 'b3', 'b'), (4, 'b4', 'b')"
         % t)
    return table, t


def versions(table):
    return sorted(int(n[:20]) for n in os.listdir(table / "_delta_log")
                  if n.endswith(".json") and n[:20].isdigit())


class SiltPeer:
    """The other writer and reader when Spark is not used: a second silt process."""

    def sql(self, text):
        silt(text)

    def rows(self, table):
        out = silt("SELECT id, v, p FROM delta.`%s`" % table).stdout.splitlines()[1:]
        return sorted((int(i), v, p) for i, v, p in (line.split(",") for line in out))


def silt_held(spark, table, silt_sql, spark_sql):
    """silt's statement held before its commit's link() while Spark commits spark_sql."""
    gate, fired = WORK / "gate", WORK / "fired"
    for f in (gate, fired):
        if f.exists():
            f.unlink()
    env = dict(os.environ, LD_PRELOAD=SHIM, SILT_FAULT_WAIT=str(gate), SILT_FAULT_FIRED=str(fired),
               SILT_FAULT="link:1:wait:%s/_delta_log/*.json" % table)
    proc = subprocess.Popen([SILT, "sql", silt_sql], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=env)
    for _ in range(30000):  # silt reaches its link() (bounded: silt may fail before it)
        if fired.exists() or proc.poll() is not None:
            break
        time.sleep(0.01)
    held = fired.exists()
    spark.sql(spark_sql)
    gate.touch()
    out, err = proc.communicate(timeout=600)
    return held, proc.returncode, err


def rows(spark, table):
    if isinstance(spark, SiltPeer):
        return spark.rows(table)
    return sorted(tuple(r) for r in spark.read.format("delta").load(str(table))
                  .select("id", "v", "p").collect())


def check(failures, ok, what):
    print("%s %s" % ("ok  " if ok else "FAIL", what))
    return failures + (not ok)


def silt_against_spark(spark):
    failures = 0
    cases = [
        ("UPDATE {t} SET v = 'A' WHERE p = 'a'", "UPDATE {t} SET v = 'B' WHERE p = 'b'", True,
         [(1, "A", "a"), (2, "A", "a"), (3, "B", "b"), (4, "B", "b")]),
        ("DELETE FROM {t} WHERE p = 'a'", "DELETE FROM {t} WHERE p = 'b'", True, []),
        ("UPDATE {t} SET v = 'A' WHERE p = 'a'", "DELETE FROM {t} WHERE p = 'b'", True,
         [(1, "A", "a"), (2, "A", "a")]),
        # The control: the same partition, so Spark removed a file silt read.
        ("UPDATE {t} SET v = 'A' WHERE p = 'a'", "DELETE FROM {t} WHERE p = 'a' AND id = 2",
         False, [(1, "a1", "a"), (3, "b3", "b"), (4, "b4", "b")]),
    ]
    for n, (silt_sql, spark_sql, disjoint, want) in enumerate(cases):
        table, t = make_table("silt-held-%d" % n)
        held, rc, err = silt_held(spark, table, silt_sql.format(t=t), spark_sql.format(t=t))
        what = "silt `%s` held at its commit while %s commits `%s`" % (
            silt_sql, "silt" if isinstance(spark, SiltPeer) else "Spark", spark_sql)
        failures = check(failures, held, what + ": silt reached its link()")
        if disjoint:
            failures = check(failures, rc == 0 and versions(table) == [0, 1, 2, 3],
                             what + ": silt commits version 3 (rc %d%s)" % (rc, err.strip()[:300]))
        else:
            # Spark's rewrite added a file to the partition silt read: Delta checks added
            # files before deleted ones, so this is ConcurrentAppendException.
            failures = check(failures, rc != 0 and "ConcurrentAppendException" in err
                             and versions(table) == [0, 1, 2],
                             what + ": silt fails with ConcurrentAppendException (%s)"
                             % err.strip()[:300])
        got = rows(spark, table)
        failures = check(failures, got == want, what + ": the table reads %s" % got)
    return failures


def spark_against_silt(spark):
    """Delta's conflict checker on a Spark transaction that read p = 'b' while silt committed."""
    failures = 0
    jvm = spark._jvm
    conv = jvm.scala.collection.JavaConverters
    for silt_part, want_conflict in (("a", False), ("b", True)):
        table, t = make_table("spark-txn-%s" % silt_part)
        log = jvm.org.apache.spark.sql.delta.DeltaLog.forTable(spark._jsparkSession, str(table))
        txn = log.startTransaction()
        pred = jvm.org.apache.spark.sql.functions.expr("p = 'b'").expr()
        files = conv.asScalaBuffer(jvm.java.util.ArrayList([pred])).toSeq()
        read = conv.seqAsJavaList(txn.filterFiles(files))
        removes = jvm.java.util.ArrayList([read.get(i).remove() for i in range(read.size())])
        silt("UPDATE %s SET v = 'S' WHERE p = '%s'" % (t, silt_part))
        op = jvm.org.apache.spark.sql.delta.DeltaOperations.ManualUpdate()
        try:
            txn.commit(conv.asScalaBuffer(removes).toSeq(), op)
            verdict = None
        except Exception as e:  # py4j carries the JVM exception's text
            verdict = str(e)
        what = ("Spark's transaction read p = 'b' (%d files); silt committed an UPDATE of p = '%s'"
                % (read.size(), silt_part))
        if want_conflict:
            ok = verdict is not None and "ConcurrentAppendException" in verdict
            failures = check(failures, ok, what + ": Spark refuses (%s)" % (
                (verdict or "committed").splitlines()[0][:200]))
        else:
            failures = check(failures, verdict is None and versions(table) == [0, 1, 2, 3],
                             what + ": Spark commits (%s)" % ((verdict or "ok").splitlines()[0][:200]))
    return failures


def main():
    shutil.rmtree(WORK, ignore_errors=True)
    WORK.mkdir(parents=True)
    if SILT_ONLY:
        failures = silt_against_spark(SiltPeer())
    else:
        from peers import spark_session
        spark = spark_session()
        failures = silt_against_spark(spark) + spark_against_silt(spark)
    print("%d failed" % failures)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
