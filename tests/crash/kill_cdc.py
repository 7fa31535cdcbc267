#!/usr/bin/env python3
"""A writer killed between writing change files and committing (issue 18, docs/cdf.md).

    kill_cdc.py SILT_BIN WORKDIR SHIM

A table with the change data feed on gets an UPDATE, a DELETE and a MERGE,
each of which writes _change_data/ files before its commit. A clean run of
each statement on a copy lists, through the shim (tests/crash/fault_shim.c),
its file-system calls under the table; then the statement runs again on a
fresh copy for every call from the first change file's creation up to the
commit's publication (the link or rename of its _delta_log entry) and is
killed with SIGKILL just before that call. Each killed run must leave the
table unchanged and readable: the same versions, the same rows, the same
change feed (the orphaned change files are never read: only a commit names
them), and a later statement commits normally.

Prints "N passed, M failed" (killed runs).
"""
import os
import shutil
import subprocess
import sys

SILT, WORK, SHIM = sys.argv[1], sys.argv[2], sys.argv[3]

STATEMENTS = {
    "update": "UPDATE delta.`{t}` SET v = v || '!' WHERE id % 2 = 0",
    "delete": "DELETE FROM delta.`{t}` WHERE id > 6",
    "merge": "MERGE INTO delta.`{t}` t USING (SELECT * FROM VALUES (1, 'M'), (99, 'N') AS s(id, v)) s "
             "ON t.id = s.id WHEN MATCHED THEN UPDATE SET * WHEN NOT MATCHED THEN INSERT *",
}


def run(sql, env=None):
    return subprocess.run([SILT, "sql", "--format", "csv", sql], capture_output=True, text=True,
                          env=env)


def state(table):
    """Versions, rows and change feed of a table, as silt reads them."""
    versions = sorted(n for n in os.listdir(os.path.join(table, "_delta_log")) if n.endswith(".json"))
    rows = run("SELECT * FROM delta.`%s` ORDER BY id" % table)
    feed = run("SELECT id, v, _change_type, _commit_version FROM table_changes_by_path('%s', 0) "
               "ORDER BY _commit_version, id, _change_type" % table)
    return versions, rows.returncode, rows.stdout, feed.returncode, feed.stdout


def main():
    shutil.rmtree(WORK, ignore_errors=True)
    os.makedirs(WORK)
    base = os.path.join(WORK, "base")
    for sql in ("CREATE TABLE delta.`{t}` (id INT, v STRING) USING delta "
                "TBLPROPERTIES (delta.enableChangeDataFeed = true)",
                "INSERT INTO delta.`{t}` SELECT CAST(id AS INT), CAST(id AS STRING) FROM range(10)"):
        proc = run(sql.format(t=base))
        if proc.returncode != 0:
            print("FAIL base table: %s" % proc.stderr.strip())
            return 1
    before = state(base)
    runs = failed = 0
    for kind, stmt in STATEMENTS.items():
        clean = os.path.join(WORK, kind + "-clean")
        shutil.copytree(base, clean)
        log = os.path.join(WORK, kind + ".log")
        env = dict(os.environ, LD_PRELOAD=SHIM, SILT_FAULT_LOG=log, SILT_FAULT_GLOB=clean + "/*")
        proc = run(stmt.format(t=clean), env)
        with open(log, encoding="utf-8") as f:
            calls = [line.split(" ", 1) for line in f.read().splitlines()]
        first = next((k for k, (op, p) in enumerate(calls, 1)
                      if op == "open" and "/_change_data/" in p), None)
        commit = next((k for k, (op, p) in enumerate(calls, 1)
                       if op in ("link", "rename") and "/_delta_log/" in p and p.endswith(".json")),
                      None)
        if proc.returncode != 0 or first is None or commit is None or first > commit:
            print("FAIL %s: the clean run (exit %d) writes no change file before its commit: %s"
                  % (kind, proc.returncode, proc.stderr.strip()[:300]))
            failed += 1
            continue
        for k in range(first, commit + 1):
            copy = os.path.join(WORK, "%s-%d" % (kind, k))
            shutil.copytree(base, copy)
            env = dict(os.environ, LD_PRELOAD=SHIM, SILT_FAULT="any:%d:kill:%s/*" % (k, copy))
            proc = run(stmt.format(t=copy), env)
            got = state(copy)
            problems = []
            if proc.returncode != -9:
                problems.append("not killed (exit %d)" % proc.returncode)
            if got != before:
                problems.append("table changed or unreadable: %s" % (got,))
            again = run(stmt.format(t=copy))
            if again.returncode != 0:
                problems.append("the next statement fails: %s" % again.stderr.strip()[:300])
            runs += 1
            if problems:
                failed += 1
                print("FAIL %s killed before call %d (%s %s): %s" % (
                    kind, k, calls[k - 1][0], os.path.relpath(calls[k - 1][1], clean),
                    "; ".join(problems)))
            shutil.rmtree(copy, ignore_errors=True)
        print("%s: killed before each of calls %d..%d" % (kind, first, commit))
    print("%d passed, %d failed" % (runs - failed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
