#!/usr/bin/env python3
"""Statements on branches that the case files cannot express (issue 21, docs/branches.md).

    branch_statements.py SILT_BIN WORKDIR

- `t@ref#hash` (full and abbreviated) with VERSION AS OF and TIMESTAMP AS OF: the table as
  that commit of the branch recorded it, then time travel within it;
- ALTER TABLE on a branch: main's schema and a plain Delta read of the folder unchanged; after
  main moved, MERGE BRANCH brings the new column (one rebased commit with the metadata);
- a deletion-vector-only change on the branch (DELETE of one row on a DV table: remove and add
  of the same path with a vector) merged after main moved: main loses that row;
- a table created on the branch and on main: the merge conflicts and publishes nothing;
- DROP TABLE on a branch, merged: main no longer lists it;
- MERGE BRANCH into another branch, fast-forward and rebased, a conflict there, then main;
- databases and views made (and a database dropped) on a branch: not on main until merged.
"""
import json
import os
import shutil
import subprocess
import sys


def sql(silt, wh, text):
    p = subprocess.run([silt, "sql", "--warehouse", wh, "--format", "csv", text],
                       capture_output=True, text=True, timeout=120)
    return p.returncode, p.stdout, p.stderr


class Checks:
    def __init__(self):
        self.failed = self.passed = 0

    def check(self, name, ok, detail=""):
        if ok:
            self.passed += 1
            print("ok   " + name)
        else:
            self.failed += 1
            print("FAIL %s: %s" % (name, detail))


def last_cell(out):
    return out.split()[-1] if out.split() else None


def hash_refs(silt, wh, c):
    sql(silt, wh, "CREATE TABLE t (id INT) USING delta; INSERT INTO t VALUES (1); "
                  "CREATE BRANCH b; USE REFERENCE b; INSERT INTO t VALUES (2)")
    _, out, _ = sql(silt, wh, "SHOW LOG b")
    h1 = out.split()[1].split(",")[0]
    sql(silt, wh, "USE REFERENCE b; INSERT INTO t VALUES (3)")
    rc, out, err = sql(silt, wh, "SELECT count(*) AS n FROM `t@b#%s`" % h1)
    c.check("t@b#hash reads the table as that commit recorded it", last_cell(out) == "2",
            out + err)
    rc, out, err = sql(silt, wh, "SELECT count(*) AS n FROM `t@b#%s`" % h1[:8])
    c.check("an abbreviated hash (8 digits) names the same commit", last_cell(out) == "2",
            out + err)
    rc, out, err = sql(silt, wh, "SELECT count(*) AS n FROM `t@b#%s` VERSION AS OF 1" % h1)
    c.check("t@b#hash VERSION AS OF 1 travels within that commit's table", last_cell(out) == "1",
            out + err)
    rc, out, err = sql(silt, wh, "SELECT count(*) AS n FROM `t@b#%s` VERSION AS OF 3" % h1)
    c.check("t@b#hash VERSION AS OF a version that commit does not hold is refused",
            rc != 0 and "3" in err, out + err)
    _, out, _ = sql(silt, wh, "USE REFERENCE b; SELECT version, timestamp FROM default.t.history "
                              "ORDER BY version")
    stamps = dict(line.split(",") for line in out.split()[4:])
    ts = stamps.get("1", "").replace("T", " ").rstrip("Z")
    rc, out, err = sql(silt, wh, "SET spark.sql.session.timeZone = UTC; SELECT count(*) AS n "
                                 "FROM `t@b#%s` TIMESTAMP AS OF '%s'" % (h1, ts))
    c.check("t@b#hash TIMESTAMP AS OF version 1's time reads version 1", last_cell(out) == "1",
            "%r %s %s" % (ts, out, err))
    rc, out, err = sql(silt, wh, "SELECT count(*) AS n FROM t@b VERSION AS OF 2")
    c.check("t@b VERSION AS OF 2 (the branch's own version)", last_cell(out) == "2", out + err)


def alter_on_branch(silt, wh, c):
    sql(silt, wh, "CREATE TABLE s (id INT) USING delta; INSERT INTO s VALUES (1); "
                  "CREATE BRANCH al; USE REFERENCE al; ALTER TABLE s ADD COLUMNS (x STRING); "
                  "INSERT INTO s VALUES (2, 'two')")
    _, out, _ = sql(silt, wh, "DESCRIBE s")
    _, plain, _ = sql(silt, wh, "SELECT * FROM delta.`%s/s`" % wh)
    c.check("ALTER on a branch: main's schema and the folder's unchanged",
            "x,string" not in out and plain.split()[0] == "id", out + plain)
    rc, out, err = sql(silt, wh, "INSERT INTO s VALUES (3); MERGE BRANCH al INTO main; "
                                 "SELECT * FROM s ORDER BY id")
    c.check("MERGE BRANCH after main moved brings the branch's column and rows",
            rc == 0 and out.split()[-4:] == ["id,x", "1,", "2,two", "3,"], out + err)


def dv_only(silt, wh, c):
    sql(silt, wh, "CREATE TABLE d (id INT) USING delta TBLPROPERTIES "
                  "('delta.enableDeletionVectors' = 'true'); "
                  "INSERT INTO d SELECT CAST(id AS INT) FROM range(10); CREATE BRANCH dv; "
                  "USE REFERENCE dv; DELETE FROM d WHERE id = 3; USE REFERENCE main; "
                  "INSERT INTO d VALUES (100)")
    staged = os.path.join(wh, "d", "_delta_log", "_staged_commits")
    vectors = 0
    for name in os.listdir(staged):
        with open(os.path.join(staged, name), encoding="utf-8") as f:
            vectors += sum("deletionVector" in json.loads(line).get("add", {})
                           for line in f if line.strip())
    c.check("the branch's DELETE wrote a deletion vector (remove and add of one path)",
            vectors >= 1, os.listdir(staged))
    rc, out, err = sql(silt, wh, "MERGE BRANCH dv INTO main; SELECT count(*) AS n, "
                                 "count_if(id = 3) AS three FROM d")
    c.check("a DV-only change merged after main moved: main lost the row",
            rc == 0 and out.split()[-1] == "10,0", out + err)
    _, out, _ = sql(silt, wh, "SELECT count(*) AS n FROM delta.`%s/d`" % wh)
    c.check("and the folder (a plain Delta reader) agrees", last_cell(out) == "10", out)


def created_both_sides(silt, wh, c):
    rc, out, err = sql(silt, wh, "CREATE BRANCH cb; USE REFERENCE cb; CREATE TABLE n (id INT) "
                                 "USING delta; INSERT INTO n VALUES (1); USE REFERENCE main; "
                                 "CREATE TABLE n (id INT) USING delta; INSERT INTO n VALUES (7), "
                                 "(8); MERGE BRANCH cb INTO main")
    c.check("a table created on the branch and on main: the merge conflicts by name",
            rc != 0 and "default.n" in err and "created on the branch and also on main" in err,
            err)
    _, out, _ = sql(silt, wh, "SELECT count(*) AS n FROM n")
    c.check("and main's table is as it was", last_cell(out) == "2", out)


def drop_on_branch(silt, wh, c):
    rc, out, err = sql(silt, wh, "CREATE TABLE g (id INT) USING delta; CREATE BRANCH dr; "
                                 "USE REFERENCE dr; DROP TABLE g; USE REFERENCE main; "
                                 "SELECT count(*) AS n FROM g; MERGE BRANCH dr INTO main; "
                                 "SHOW TABLES")
    c.check("DROP TABLE on a branch: main keeps it until the merge, then drops it",
            rc == 0 and ",g," not in out and "n\n0\n" in out, out + err)


def into_branch(silt, wh, c):
    rc, out, err = sql(silt, wh, "CREATE TABLE m (id INT) USING delta; INSERT INTO m VALUES (1); "
                                 "CREATE BRANCH dev; CREATE BRANCH feat FROM dev; "
                                 "USE REFERENCE feat; INSERT INTO m VALUES (2); "
                                 "CREATE TABLE fresh (id INT) USING delta; "
                                 "INSERT INTO fresh VALUES (5); USE REFERENCE main; "
                                 "MERGE BRANCH feat INTO dev; "
                                 "SELECT count(*) AS n FROM `m@dev`; "
                                 "SELECT count(*) AS n FROM `fresh@dev`; "
                                 "SELECT count(*) AS n FROM m")
    c.check("MERGE BRANCH feat INTO dev (dev unmoved): dev reads feat's rows and tables, "
            "main does not", rc == 0 and out.split()[-6:] == ["n", "2", "n", "1", "n", "1"],
            out + err)
    rc, out, err = sql(silt, wh, "USE REFERENCE feat; INSERT INTO m VALUES (3); "
                                 "USE REFERENCE dev; INSERT INTO m VALUES (4); "
                                 "USE REFERENCE main; MERGE BRANCH feat INTO dev; "
                                 "SELECT id FROM `m@dev` ORDER BY id; "
                                 "SELECT count(*) AS n FROM m")
    c.check("MERGE BRANCH feat INTO dev after dev moved: one rebased commit, no row twice",
            rc == 0 and out.split()[-7:] == ["id", "1", "2", "3", "4", "n", "1"], out + err)
    rc, out, err = sql(silt, wh, "MERGE BRANCH dev INTO main; SELECT id FROM m ORDER BY id; "
                                 "SELECT count(*) AS n FROM fresh")
    c.check("then MERGE BRANCH dev INTO main publishes all of it",
            rc == 0 and out.split()[-7:] == ["id", "1", "2", "3", "4", "n", "1"], out + err)
    rc, out, err = sql(silt, wh, "USE REFERENCE feat; UPDATE m SET id = id + 10 WHERE id = 3; "
                                 "USE REFERENCE dev; UPDATE m SET id = id + 20 WHERE id = 3; "
                                 "USE REFERENCE main; MERGE BRANCH feat INTO dev DRY RUN")
    c.check("MERGE BRANCH feat INTO dev DRY RUN reports the conflict of both updating one file",
            rc == 0 and "default.m,commit" in out and "Concurrent" in out, out + err)
    rc, out, err = sql(silt, wh, "MERGE BRANCH feat INTO dev")
    c.check("and the merge conflicts, naming the table, nothing published",
            rc != 0 and "MERGE BRANCH feat INTO dev conflicts" in err and "default.m" in err, err)
    _, out, _ = sql(silt, wh, "SELECT id FROM `m@dev` ORDER BY id")
    c.check("the target branch is as it was", out.split() == ["id", "1", "2", "4", "23"], out)


def databases_views(silt, wh, c):
    rc, out, err = sql(silt, wh, "CREATE TABLE t (id INT) USING delta; INSERT INTO t VALUES (1); "
                                 "CREATE DATABASE old; CREATE BRANCH b; USE REFERENCE b; "
                                 "CREATE DATABASE sales; CREATE TABLE sales.o (id INT) USING "
                                 "delta; INSERT INTO sales.o VALUES (5); DROP DATABASE old; "
                                 "CREATE VIEW v AS SELECT id * 2 AS d FROM t; "
                                 "USE REFERENCE main; SHOW DATABASES")
    c.check("a database and a view made on a branch are not on main",
            rc == 0 and out.split()[-3:] == ["namespace", "default", "old"], out + err)
    rc, out, err = sql(silt, wh, "SELECT * FROM v")
    c.check("main does not resolve the branch's view", rc != 0 and "`v`" in err, out + err)
    rc, out, err = sql(silt, wh, "MERGE BRANCH b; SHOW DATABASES; SELECT * FROM sales.o; "
                                 "SELECT * FROM v")
    c.check("MERGE BRANCH brings the database, its table and the view, and drops the database "
            "the branch dropped", rc == 0 and out.split()[-7:] == ["namespace", "default",
                                                                   "sales", "id", "5", "d", "2"],
            out + err)


def main():
    silt, work = sys.argv[1:3]
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    c = Checks()
    for k, fn in enumerate((hash_refs, alter_on_branch, dv_only, created_both_sides,
                            drop_on_branch, into_branch, databases_views)):
        fn(silt, os.path.join(work, "w%d" % k), c)
    print("%d passed, %d failed" % (c.passed, c.failed))
    return 1 if c.failed or not c.passed else 0


if __name__ == "__main__":
    sys.exit(main())
