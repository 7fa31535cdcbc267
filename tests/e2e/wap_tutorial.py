#!/usr/bin/env python3
"""The write-audit-publish tutorial (../shared/tutorials/002_c8fc3357cc7a98e0.txt, Nessie's
WAP with Iceberg) replayed on silt's branches over Delta tables (issue 21, docs/branches.md),
on a generated 1,000-row permits data set of the tutorial's shape (Manhattan 463, Brooklyn
334, Queens 168, Bronx 28, Staten Island 7):

  main     CREATE TABLE permits AS SELECT * FROM the source
  write    CREATE BRANCH etl_job_42; USE REFERENCE etl_job_42; DELETE the Manhattan rows,
           and one row gets a bad borough ('Brooklin')
  main     unchanged: its counts in silt (`permits@main`), and Spark reading the table's
           folder sees main's version only (no branch commit in its history)
  audit    on the branch: the borough set is not the expected one (the bad value); fixed on
           the branch with an UPDATE; the audit passes
  publish  MERGE BRANCH etl_job_42 INTO main IN spark_catalog (a fast-forward)
  main     the audited counts in silt and in Spark reading the folder; Spark's history has
           the branch's DELETE and UPDATEs; SHOW LOG lists the merge; the metadata tables
           permits.history, .snapshots, .files and .refs show it

    wap_tutorial.py SILT_BIN WORKDIR

Spark runs in this process (re-executed under <repo>/.peers/venv's python); without the venv
the Spark checks are skipped, and fail with CI=true.
"""
import json
import random
import shutil
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(Path(__file__).resolve().parent))
import spark_peer  # noqa: E402

HAS_VENV = spark_peer.ensure_venv(REPO, [str(Path(__file__).resolve())] + sys.argv[1:])

COUNTS = {"Manhattan": 463, "Brooklyn": 334, "Queens": 168, "Bronx": 28, "Staten Island": 7}
BRANCH = "etl_job_42"


def write_source(path):
    rng = random.Random(42)
    boroughs = [b for b, n in COUNTS.items() for _ in range(n)]
    rng.shuffle(boroughs)
    with open(path, "w") as f:
        for idx, borough in enumerate(boroughs):
            f.write(json.dumps({
                "eventid": 678909 + idx, "borough": borough,
                "category": rng.choice(["Television", "Film", "Commercial", "WEB"]),
                "eventtype": rng.choice(["Shooting Permit", "Rigging Permit"]),
                "zipcode_s": str(10000 + rng.randrange(1700)),
            }) + "\n")


class Run:
    def __init__(self, silt, warehouse):
        self.silt, self.warehouse, self.failures = silt, warehouse, 0

    def sql(self, text, ok=True):
        import subprocess
        proc = subprocess.run([self.silt, "sql", "--warehouse", str(self.warehouse), "--format",
                               "csv", text], capture_output=True, text=True, timeout=600)
        if ok and proc.returncode != 0:
            raise RuntimeError(f"silt failed on {text!r}:\n{proc.stderr}")
        return proc

    def rows(self, text):
        """The last result's rows of a script (after its header), as lists of cells."""
        out = self.sql(text).stdout.strip().splitlines()
        last = max(i for i, line in enumerate(out) if line.startswith(("borough", "n", "hash")))
        return [line.split(",") for line in out[last + 1:]]

    def check(self, what, got, want):
        ok = got == want
        self.failures += not ok
        print(("ok   " if ok else "FAIL ") + what + ("" if ok else f": got {got!r}, want {want!r}"))


def counts_of(rows):
    return {r[0]: int(r[1]) for r in rows}


def main():
    silt, work = sys.argv[1], Path(sys.argv[2])
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    src, wh = work / "nyc_film_permits.json", work / "warehouse"
    write_source(src)
    run = Run(silt, wh)
    peer = None
    if HAS_VENV:
        peer = spark_peer.SparkPeer.start(REPO)
    elif spark_peer.in_ci():
        print("FAIL the Spark peer is missing (.peers/venv) and CI is set")
        return 1
    by_borough = "SELECT borough, count(*) AS permit_cnt FROM {t} GROUP BY borough"

    run.sql(f"CREATE TABLE permits AS SELECT * FROM json.`{src}`")
    run.check("the source as the tutorial has it", counts_of(run.rows(by_borough.format(t="permits"))),
              COUNTS)

    # write, on the branch
    bad_id = run.rows("SELECT min(eventid) AS n FROM permits WHERE borough = 'Brooklyn'")[0][0]
    run.sql(f"CREATE BRANCH {BRANCH} IN spark_catalog FROM main; "
            f"USE REFERENCE {BRANCH} IN spark_catalog; "
            "DELETE FROM permits WHERE borough = 'Manhattan'; "
            f"UPDATE permits SET borough = 'Brooklin' WHERE eventid = {bad_id}")
    on_branch = f"USE REFERENCE {BRANCH}; " + by_borough.format(t="permits")
    run.check("the branch has its writes",
              counts_of(run.rows(on_branch)),
              {"Brooklyn": 333, "Brooklin": 1, "Queens": 168, "Bronx": 28, "Staten Island": 7})
    run.check("main is unchanged (permits@main)",
              counts_of(run.rows(by_borough.format(t="`permits@main`"))), COUNTS)
    run.check("main is unchanged (the session on main)",
              counts_of(run.rows(by_borough.format(t="permits"))), COUNTS)
    if peer is not None:
        path = wh / "permits"
        spark_counts = {r["borough"]: r["n"] for r in peer.sql(
            f"SELECT borough, count(*) AS n FROM delta.`{path}` GROUP BY borough")}
        run.check("Spark reading the folder sees main only", spark_counts, COUNTS)
        run.check("Spark's history of the folder has no branch commit",
                  [op for _, op in peer.operations(path)], ["CREATE TABLE AS SELECT"])

    # audit, on the branch
    expected = {"Queens", "Brooklyn", "Bronx", "Staten Island"}
    audit = f"USE REFERENCE {BRANCH}; SELECT DISTINCT borough FROM permits"
    seen = {r[0] for r in run.rows(audit)}
    run.check("the audit finds the bad borough", seen == expected, False)
    run.sql(f"USE REFERENCE {BRANCH}; UPDATE permits SET borough = 'Brooklyn' "
            "WHERE borough = 'Brooklin'")
    seen = {r[0] for r in run.rows(audit)}
    run.check("after the fix on the branch the audit passes", seen, expected)
    run.check("main is still unchanged",
              counts_of(run.rows(by_borough.format(t="permits"))), COUNTS)

    # publish
    merged = run.sql(f"MERGE BRANCH {BRANCH} INTO main IN spark_catalog").stdout.split()
    run.check("MERGE BRANCH answers main's new hash", merged[0] == "name,hash" and
              merged[1].startswith("main,"), True)
    audited = {"Brooklyn": 334, "Queens": 168, "Bronx": 28, "Staten Island": 7}
    run.check("main has the audited data (permits@main)",
              counts_of(run.rows(by_borough.format(t="`permits@main`"))), audited)
    run.check("main has the audited data (USE REFERENCE main)",
              counts_of(run.rows("USE REFERENCE main IN spark_catalog; " +
                                 by_borough.format(t="permits"))), audited)
    history = run.sql("SELECT version, operation FROM default.permits.history").stdout.splitlines()
    run.check("permits.history shows the published history", history,
              ["version,operation", "3,UPDATE", "2,UPDATE", "1,DELETE",
               "0,CREATE TABLE AS SELECT"])
    snaps = run.sql("SELECT count(*) AS n FROM default.permits.snapshots").stdout.split()
    run.check("permits.snapshots has a row per version", snaps, ["n", "4"])
    files = run.sql("SELECT sum(CAST(record_count AS BIGINT)) AS n FROM "
                    "default.permits.files").stdout.split()
    run.check("permits.files counts the audited rows", files, ["n", str(sum(audited.values()))])
    refs = run.sql("SELECT name, version FROM default.permits.refs").stdout.split()
    run.check("permits.refs: the branch starts again at main's new version", refs,
              ["name,version", f"{BRANCH},3", "main,3"])
    log = run.sql("SHOW LOG main").stdout
    run.check("SHOW LOG main lists the merge", f"merge branch {BRANCH}" in log, True)
    if peer is not None:
        spark_counts = {r["borough"]: r["n"] for r in peer.sql(
            f"SELECT borough, count(*) AS n FROM delta.`{path}` GROUP BY borough")}
        run.check("Spark reading the folder sees the audited data", spark_counts, audited)
        run.check("Spark's history has the branch's commits, fast-forwarded",
                  [op for _, op in peer.operations(path)],
                  ["CREATE TABLE AS SELECT", "DELETE", "UPDATE", "UPDATE"])
    print(f"{run.failures} failed")
    return 1 if run.failures else 0


if __name__ == "__main__":
    sys.exit(main())
