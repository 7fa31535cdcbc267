#!/usr/bin/env python3
"""A DELETE, UPDATE or MERGE writing deletion vectors killed (SIGKILL) at every file-system call
it makes under the table, the vector file's included (tests/crash/fault_shim.c; docs/dv.md).

    kill_dv.py SILT_BIN WORKDIR SHIM

A clean run on a copy of the base table lists the calls; then the statement runs again on a
fresh copy for every call k, killed just before it and just after it. Killed before the
commit's link(), the table must be exactly as before (same versions, same rows; the vector
file written so far is an orphan for VACUUM); killed after it, exactly the clean run's state.
Either way the log replays and silt reads the table, and a DELETE after it works.
Then two DELETEs on one file, one held before its commit while the other commits: the held one
fails with Delta's exception name.
"""
import os
import shutil
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from io_faults import run, shim_env, state  # noqa: E402

SETUP = ["CREATE TABLE delta.`{t}` (id INT, s STRING) USING DELTA "
         "TBLPROPERTIES ('delta.enableDeletionVectors' = 'true')",
         "INSERT INTO delta.`{t}` SELECT CAST(id AS INT), CAST(id AS STRING) FROM range(0, 50)",
         "DELETE FROM delta.`{t}` WHERE id = 7"]
STATEMENTS = {
    "delete": "DELETE FROM delta.`{t}` WHERE id % 5 = 1",
    "update": "UPDATE delta.`{t}` SET s = 'z' WHERE id % 5 = 2",
    "merge": "MERGE INTO delta.`{t}` AS d USING (SELECT 3 AS id, 'm' AS s UNION ALL "
             "SELECT 99 AS id, 'n' AS s) AS src ON d.id = src.id "
             "WHEN MATCHED THEN UPDATE SET * WHEN NOT MATCHED THEN INSERT *",
}


def commit_link(calls):
    for k, (op, path) in enumerate(calls, 1):
        name = os.path.basename(path)
        if op in ("link", "rename") and name.endswith(".json") and name[:20].isdigit():
            return k
    return None


def concurrent_deletes(silt, work, shim):
    """Two DELETEs of rows of one file: the first held before its commit's link() while the
    second commits; the first then fails as Delta's conflict checker does (the winner re-added
    the file with its vector: an added file the loser should have read, ConcurrentAppend)."""
    t = os.path.join(work, "concurrent")
    for sql in SETUP[:2]:
        run(silt, sql.format(t=t))
    fired, release = t + ".fired", t + ".release"
    held = subprocess.Popen(
        [silt, "sql", "DELETE FROM delta.`%s` WHERE id = 1" % t], stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, text=True,
        env=shim_env(shim, SILT_FAULT="link:1:wait:%s/_delta_log/*.json" % t,
                     SILT_FAULT_WAIT=release, SILT_FAULT_FIRED=fired))
    deadline = time.monotonic() + 60
    while not os.path.exists(fired) and time.monotonic() < deadline and held.poll() is None:
        time.sleep(0.05)
    winner = run(silt, "DELETE FROM delta.`%s` WHERE id = 2" % t)
    open(release, "w").close()
    _, err = held.communicate(timeout=60)
    rows = run(silt, "SELECT count(*) FROM delta.`%s`" % t).stdout.split()
    ok = (os.path.exists(fired) and winner.returncode == 0 and held.returncode != 0 and
          "ConcurrentAppendException" in err and rows[-1] == "49")
    print("%s concurrent DELETEs on one file: the loser fails with ConcurrentAppendException%s"
          % ("ok  " if ok else "FAIL", "" if ok else ": %s %r %s" % (winner.returncode, err, rows)))
    return 0 if ok else 1


def main():
    silt, work, shim = sys.argv[1:4]
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    failures = runs = 0
    for kind, stmt in STATEMENTS.items():
        base = os.path.join(work, kind + "-base")
        for sql in SETUP:
            if run(silt, sql.format(t=base)).returncode != 0:
                print("FAIL %s: setup" % kind)
                return 1
        before, problems = state(silt, base)
        clean = os.path.join(work, kind + "-clean")
        shutil.copytree(base, clean)
        log = os.path.join(work, kind + ".calls")
        proc = run(silt, stmt.format(t=clean),
                   shim_env(shim, SILT_FAULT_LOG=log, SILT_FAULT_GLOB=clean + "*"))
        after, problems2 = state(silt, clean)
        with open(log, encoding="utf-8") as f:
            calls = [line.split(" ", 1) for line in f.read().splitlines()]
        link = commit_link(calls)
        dv_calls = [c for c in calls if "deletion_vector_" in c[1]]
        if proc.returncode != 0 or problems or problems2 or link is None or not dv_calls:
            print("FAIL %s: the clean run: %s %s link=%s dv calls=%d" % (
                kind, proc.stderr.strip(), problems + problems2, link, len(dv_calls)))
            return 1
        for k, (op, path) in enumerate(calls, 1):
            for action in ("kill", "killafter"):
                copy = os.path.join(work, "%s-%d-%s" % (kind, k, action))
                shutil.copytree(base, copy)
                fired = copy + ".fired"
                proc = run(silt, stmt.format(t=copy),
                           shim_env(shim, SILT_FAULT="any:%d:%s:%s*" % (k, action, copy),
                                    SILT_FAULT_FIRED=fired))
                got, problems = state(silt, copy)
                # a killed writer cannot remove its temporary files (VACUUM does)
                problems = [p for p in problems if not p.startswith("temporary file left")]
                committed = k > link or (k == link and action == "killafter")
                if not os.path.exists(fired) or proc.returncode != -9:
                    problems.append("not killed (exit %d)" % proc.returncode)
                if got != (after if committed else before):
                    problems.append("the table is not %s" % ("the clean run's state"
                                                             if committed else "as before"))
                nxt = run(silt, "DELETE FROM delta.`%s` WHERE id = 0" % copy)
                if nxt.returncode != 0:
                    problems.append("a DELETE after it failed: " + nxt.stderr.strip()[:200])
                runs += 1
                if problems:
                    failures += 1
                    print("FAIL %s: %s at call %d (%s %s): %s" % (
                        kind, action, k, op, os.path.relpath(path, copy), "; ".join(problems)))
                shutil.rmtree(copy, ignore_errors=True)
                if os.path.exists(fired):
                    os.remove(fired)
        print("ok   %s: %d calls, %d of them the vector file's, killed before and after each"
              % (kind, len(calls), len(dv_calls)))
    failures += concurrent_deletes(silt, work, shim)
    print("%d runs, %d failure(s)" % (runs, failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
