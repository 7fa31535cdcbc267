#!/usr/bin/env python3
"""Spark (with hadoop-aws, the S3A connector) and silt on the same S3 tables,
on a versitygw server this test starts itself.

    spark_s3.py SILT_BIN WORKDIR

- silt writes a table on s3:// (CTAS partitioned, INSERT, UPDATE, DELETE,
  MERGE, a checkpoint); Spark reads it through s3a:// and gets the same rows,
  at the latest version and by time travel;
- Spark appends to silt's table through s3a:// (one writer: Delta on Spark
  has no safe concurrent S3 commits without its DynamoDB log store), and
  silt reads Spark's commit and rows; silt then appends again after Spark.

Needs .peers/venv (Spark), .peers/jars-s3 (scripts/setup-servers.sh) and
versitygw; without them it is skipped (77), except with CI=true.
Prints one line per check and "N passed, M failed".
"""
import os
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
sys.path.insert(0, str(REPO / "tests" / "peers"))
import peers  # noqa: E402

peers.reexec_in_venv(__file__)
sys.path.insert(0, str(HERE))
import s3_suite as s3  # noqa: E402

S3A_JARS = [REPO / ".peers" / "jars-s3" / "hadoop-aws-3.4.2.jar",
            REPO / ".peers" / "jars-s3" / "bundle-2.29.52.jar"]


def spark_for(port):
    conf = {
        "spark.hadoop.fs.s3a.endpoint": f"http://127.0.0.1:{port}",
        "spark.hadoop.fs.s3a.access.key": s3.ACCESS,
        "spark.hadoop.fs.s3a.secret.key": s3.SECRET,
        "spark.hadoop.fs.s3a.path.style.access": "true",
        "spark.hadoop.fs.s3a.connection.ssl.enabled": "false",
        "spark.hadoop.fs.s3a.endpoint.region": "us-east-1",
        "spark.hadoop.fs.s3a.aws.credentials.provider":
            "org.apache.hadoop.fs.s3a.SimpleAWSCredentialsProvider",
        "spark.hadoop.fs.s3a.change.detection.mode": "none",
        "spark.hadoop.fs.s3a.retry.limit": "2",
        "spark.hadoop.fs.s3a.attempts.maximum": "2",
    }
    # Never ask an instance metadata service (no address but loopback here).
    os.environ["AWS_EC2_METADATA_DISABLED"] = "true"
    # On the class path, not spark.jars: that would copy the 640 MB bundle at every start.
    conf["spark.driver.extraClassPath"] = ":".join(str(j) for j in S3A_JARS)
    began = time.monotonic()
    spark = peers.spark_session(conf=conf)
    print(f"     (Spark started in {time.monotonic() - began:.1f} s)", flush=True)
    return spark


def spark_rows(spark, sql):
    return sorted(tuple("" if v is None else str(v) for v in r) for r in spark.sql(sql).collect())


def silt_rows(silt, sql):
    return sorted(tuple(r) for r in silt.rows(sql))


def main():
    if len(sys.argv) != 3:
        print(__doc__)
        return 2
    missing = [str(p) for p in S3A_JARS + [s3.VERSITYGW] if not p.exists()]
    if missing:
        print(f"{'FAIL' if peers.in_ci() else 'skip:'} missing {missing} "
              "(scripts/setup-servers.sh)")
        if peers.in_ci():
            print("0 passed, 1 failed")
            return 1
        return 77
    started = time.monotonic()
    work = Path(sys.argv[2])
    import shutil
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    (work / "home").mkdir()
    server = s3.Server(work)
    silt = s3.Silt(sys.argv[1], work / "home", server.port)
    try:
        t = f"delta.`s3://{s3.BUCKET}/shared`"
        silt.run(f"CREATE TABLE {t} USING delta PARTITIONED BY (kind) TBLPROPERTIES "
                 "('delta.checkpointInterval' = '3') AS SELECT id, concat('k', id % 3) AS kind, "
                 "id * 1.5 AS amount, CAST(id AS STRING) AS label FROM range(1000)")
        silt.run(f"INSERT INTO {t} SELECT id, 'k9' AS kind, id * 2.0 AS amount, 'new' AS label "
                 "FROM range(1000, 1100)")
        silt.run(f"UPDATE {t} SET label = 'changed' WHERE id % 10 = 0")
        silt.run(f"DELETE FROM {t} WHERE id % 7 = 0")
        silt.run(f"MERGE INTO {t} AS d USING (SELECT id, 'k0' AS kind, 0.5 AS amount, 'merged' "
                 "AS label FROM range(1090, 1110)) AS s ON d.id = s.id WHEN MATCHED THEN "
                 "UPDATE SET * WHEN NOT MATCHED THEN INSERT *")
        s3.check("silt wrote a checkpoint on S3",
                 "00000000000000000003.checkpoint.parquet" in server.objects("shared/_delta_log"),
                 True)
        spark = spark_for(server.port)
        uri = f"s3a://{s3.BUCKET}/shared"
        q = "SELECT id, kind, CAST(amount AS STRING), label FROM {}"
        want = silt_rows(silt, q.format(t))
        began = time.monotonic()
        got = spark_rows(spark, q.format(f"delta.`{uri}`"))
        print(f"     (first Spark read in {time.monotonic() - began:.1f} s)", flush=True)
        s3.check("Spark reads silt's S3 table: row count", len(got), len(want))
        s3.check("Spark reads silt's S3 table: the same rows", got, want)
        for v in (0, 2):
            s3.check(f"Spark time travel to version {v} of silt's S3 table", spark_rows(
                spark, f"SELECT count(*), sum(id) FROM delta.`{uri}` VERSION AS OF {v}"),
                silt_rows(silt, f"SELECT count(*), sum(id) FROM {t} VERSION AS OF {v}"))
        hist = spark.sql(f"DESCRIBE HISTORY delta.`{uri}`").collect()
        s3.check("Spark reads silt's history on S3", [r["operation"] for r in hist],
                 ["MERGE", "DELETE", "UPDATE", "WRITE", "CREATE TABLE AS SELECT"])
        spark.sql(f"INSERT INTO delta.`{uri}` SELECT id, 'k5', CAST(id AS DECIMAL(24,1)), "
                  "'spark' FROM range(5000, 5050)")
        s3.check("silt reads Spark's S3A commit", silt.rows(
            f"SELECT count(*), sum(id) FROM {t} WHERE label = 'spark'"),
            [["50", str(sum(range(5000, 5050)))]])
        silt.run(f"INSERT INTO {t} SELECT 9000, 'k1', 1.0, 'after'")
        hist = silt.rows(f"DESCRIBE HISTORY {t}")
        s3.check("versions dense after Spark's and silt's commits",
                 sorted(int(r[0]) for r in hist), list(range(7)))
        s3.check("Spark reads silt's commit after its own", spark_rows(
            spark, f"SELECT count(*) FROM delta.`{uri}`"),
            silt_rows(silt, f"SELECT count(*) FROM {t}"))
    except Exception as exc:
        s3.check(f"ran without an exception ({exc!s:.800})", False, True)
    finally:
        peers.stop_spark()
        server.stop()
        if s3.failed:
            print((work / "versitygw.log").read_text()[-3000:])
    print(f"{s3.passed} passed, {s3.failed} failed in {time.monotonic() - started:.1f} s")
    if s3.failed == 0:
        shutil.rmtree(work, ignore_errors=True)
    return 1 if s3.failed else 0


if __name__ == "__main__":
    sys.exit(main())
