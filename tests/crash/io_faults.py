#!/usr/bin/env python3
"""I/O faults at every write, fsync, link, rename and file creation of every
statement kind that writes a Delta table, injected from outside the process
(tests/crash/fault_shim.c, LD_PRELOAD; issue 15).

    io_faults.py SILT_BIN WORKDIR SHIM [--all-errors] [KIND ...]

For each statement kind a base table is made once; a clean run of the
statement on a copy gives the state after it and, logged by the shim, the
list of file-system calls it makes under the table. Then, for every call k
and every fault that call can meet (EIO and ENOSPC everywhere; a short
write followed by ENOSPC for writes), the statement runs again on a fresh
copy with that one call failing. Each run must end in one of two ways:

- exit status 0, and the table is exactly the clean run's state (a short
  write the store finished, a failure after the commit that only concerns
  the checkpoint: then stderr must say the checkpoint was not written);
- exit status nonzero with a clear message on stderr naming the failing
  errno, and the table is exactly as before (same versions, same rows) or,
  when the failure hit the fsync of _delta_log/ after the commit's link(),
  fully committed with the message saying its durability is unknown.

In both, the log must replay (dense versions, whole JSON, live files
present), silt must read the table, and no `.silt-tmp-*` file may be left
anywhere in the table (a writer removes its own on every failure). An
INSERT, INSERT OVERWRITE or CTAS whose commit certainly failed must also
leave none of its data files (a failed CTAS no files in a folder with no
table); UPDATE, DELETE and MERGE still leave theirs for VACUUM.

Without --all-errors each call gets one fault in turn (EIO, ENOSPC, short
alternating), which keeps `make test` short; bench/io_faults.sh runs all.
"""
import json
import os
import shutil
import subprocess
import sys
import time

from log_replay import replay  # noqa: E402  (beside this script)

ERRNO_TEXT = {"eio": "Input/output error", "enospc": "No space left on device",
              "short": "No space left on device"}

# kind -> (statements making the base table, the statement under test). {t} is the table path.
KINDS = {
    "insert": (["CREATE TABLE delta.`{t}` (id INT, s STRING) USING DELTA",
                "INSERT INTO delta.`{t}` VALUES (1, 'a'), (2, 'b')"],
               "INSERT INTO delta.`{t}` VALUES (3, 'c')"),
    "insert_overwrite": (["CREATE TABLE delta.`{t}` (id INT, s STRING) USING DELTA",
                          "INSERT INTO delta.`{t}` VALUES (1, 'a'), (2, 'b')"],
                         "INSERT OVERWRITE delta.`{t}` VALUES (7, 'o')"),
    "create": ([], "CREATE TABLE delta.`{t}` (id INT, s STRING) USING DELTA"),
    "ctas": ([], "CREATE TABLE delta.`{t}` USING DELTA AS SELECT 1 AS id, 'a' AS s"),
    "update": (["CREATE TABLE delta.`{t}` (id INT, s STRING) USING DELTA",
                "INSERT INTO delta.`{t}` VALUES (1, 'a'), (2, 'b')"],
               "UPDATE delta.`{t}` SET s = 'z' WHERE id = 1"),
    "delete": (["CREATE TABLE delta.`{t}` (id INT, s STRING) USING DELTA",
                "INSERT INTO delta.`{t}` VALUES (1, 'a'), (2, 'b')"],
               "DELETE FROM delta.`{t}` WHERE id = 1"),
    "merge": (["CREATE TABLE delta.`{t}` (id INT, s STRING) USING DELTA",
               "INSERT INTO delta.`{t}` VALUES (1, 'a'), (2, 'b')"],
              "MERGE INTO delta.`{t}` AS d USING (SELECT 1 AS id, 'm' AS s UNION ALL "
              "SELECT 5 AS id, 'n' AS s) AS src ON d.id = src.id "
              "WHEN MATCHED THEN UPDATE SET * WHEN NOT MATCHED THEN INSERT *"),
    # Deletion vectors (docs/dv.md): the vector file is written before the commit.
    "delete_dv": (["CREATE TABLE delta.`{t}` (id INT, s STRING) USING DELTA "
                   "TBLPROPERTIES ('delta.enableDeletionVectors' = 'true')",
                   "INSERT INTO delta.`{t}` VALUES (1, 'a'), (2, 'b'), (3, 'c')"],
                  "DELETE FROM delta.`{t}` WHERE id = 1"),
    "update_dv": (["CREATE TABLE delta.`{t}` (id INT, s STRING) USING DELTA "
                   "TBLPROPERTIES ('delta.enableDeletionVectors' = 'true')",
                   "INSERT INTO delta.`{t}` VALUES (1, 'a'), (2, 'b'), (3, 'c')"],
                  "UPDATE delta.`{t}` SET s = 'z' WHERE id = 1"),
    # The commit of version 2 writes a checkpoint (interval 2): its writes are in the list too.
    "checkpoint": (["CREATE TABLE delta.`{t}` (id INT, s STRING) USING DELTA "
                    "TBLPROPERTIES ('delta.checkpointInterval' = '2')",
                    "INSERT INTO delta.`{t}` VALUES (1, 'a')"],
                   "INSERT INTO delta.`{t}` VALUES (2, 'b')"),
    "restore": (["CREATE TABLE delta.`{t}` (id INT, s STRING) USING DELTA",
                 "INSERT INTO delta.`{t}` VALUES (1, 'a')",
                 "INSERT INTO delta.`{t}` VALUES (2, 'b')"],
                "RESTORE TABLE delta.`{t}` TO VERSION AS OF 1"),
}


# Statements whose failed commit removes the data files it wrote (delta_write_commit).
OWN_CLEANUP = {"insert", "insert_overwrite", "create", "ctas", "checkpoint"}


def run(silt, sql, env=None):
    return subprocess.run([silt, "sql", "--format", "csv", sql], capture_output=True, text=True,
                          env=env)


def data_files(table):
    """The data files in the table folder (its own, not the log's), as add.path names them."""
    for folder, _, names in os.walk(table):
        if "_delta_log" in os.path.relpath(folder, table).split(os.sep):
            continue
        for name in names:
            if not name.startswith("."):
                yield os.path.relpath(os.path.join(folder, name), table)


def state(silt, table, orphans=None):
    """(versions, number of live files, rows) of the table, and its problems."""
    log = os.path.join(table, "_delta_log")
    problems = []
    orphans = orphans if orphans is not None else []
    for folder, _, names in os.walk(table):
        for name in names:
            if name.startswith(".silt-tmp-"):
                problems.append("temporary file left: %s" % os.path.relpath(
                    os.path.join(folder, name), table))
    if not os.path.isdir(log) or not any(n.endswith(".json") for n in os.listdir(log)):
        orphans.extend(data_files(table))
        return (None, None, None), problems
    versions, live_adds, _, replay_problems = replay(table)
    problems += replay_problems
    live = set(live_adds)
    orphans.extend(sorted(set(data_files(table)) - live))
    rows = run(silt, "SELECT * FROM delta.`%s` ORDER BY 1, 2" % table)
    if rows.returncode != 0:
        problems.append("silt cannot read the table: " + rows.stderr.strip()[:300])
    return (len(versions), len(live), rows.stdout), problems


def shim_env(shim, **extra):
    """The environment of a run under the shim."""
    env = dict(os.environ)
    env["LD_PRELOAD"] = shim
    env.update(extra)
    return env


def faults_for(op, index, all_errors):
    choices = ["eio", "enospc", "short"] if op == "write" else ["eio", "enospc"]
    return choices if all_errors else [choices[index % len(choices)]]


def commit_end(calls):
    """The index of the fsync of _delta_log/ that makes the commit durable (after its link)."""
    linked = False
    for k, (op, path) in enumerate(calls, 1):
        name = os.path.basename(path)
        if op == "link" and name.endswith(".json") and name[:20].isdigit():
            linked = True
        elif linked and op == "fsync" and path.endswith("/_delta_log"):
            return k
    return len(calls)


def judge(op, path, fault, after_commit, proc, before, after, got, problems):
    """The problems of one injected run, given the states before and after a clean run."""
    err = proc.stderr
    dir_sync = op == "fsync" and path.endswith("/_delta_log") and not after_commit
    if proc.returncode == 0:
        if got != after:
            problems.append("exit 0 but the table is not the clean run's state")
        if after_commit and fault != "short" and "checkpoint could not be written" not in err:
            problems.append("a failed checkpoint write was not reported")
        return problems
    if after_commit:
        problems.append("a failure after the commit (its checkpoint) failed the statement")
    if proc.returncode < 0 or proc.returncode > 2:
        problems.append("exit status %d" % proc.returncode)
    if ERRNO_TEXT[fault] not in err:
        problems.append("stderr does not name the error: %r" % err.strip()[:300])
    if got == after and got != before:
        if "durability is unknown" not in err:
            problems.append("failed, yet committed, without saying durability is unknown")
    elif got != before:
        problems.append("failed and the table is neither as before nor committed")
    if dir_sync and got != after:
        problems.append("the _delta_log fsync after link() failed and the commit is not there")
    return problems


def next_commit_notes(silt, table):
    """After a checkpoint failure the next commit records the missing checkpoint in its
    operationMetrics (checkpointMissingVersion), and only when the checkpoint is missing."""
    log = os.path.join(table, "_delta_log")
    versions = sorted(int(n[:20]) for n in os.listdir(log) if n.endswith(".json"))
    due = versions[-1]
    missing = not os.path.exists(os.path.join(log, "%020d.checkpoint.parquet" % due))
    proc = run(silt, "INSERT INTO delta.`%s` VALUES (99, 'n')" % table)
    if proc.returncode != 0:
        return ["the next INSERT failed: " + proc.stderr.strip()[:300]]
    with open(os.path.join(log, "%020d.json" % (due + 1)), encoding="utf-8") as f:
        info = json.loads(f.readline())["commitInfo"]
    noted = info["operationMetrics"].get("checkpointMissingVersion")
    if noted != (str(due) if missing else None):
        return ["the next commit notes checkpointMissingVersion %s, the checkpoint of %d is %s" % (
            noted, due, "missing" if missing else "there")]
    return []


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    all_errors = "--all-errors" in sys.argv
    silt, work, shim = args[0], os.path.abspath(args[1]), os.path.abspath(args[2])
    kinds = args[3:] or list(KINDS)
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    started = time.monotonic()
    runs = failed = 0
    by_outcome = {}
    for kind in kinds:
        setup, stmt = KINDS[kind]
        base = os.path.join(work, kind + "-base")
        os.makedirs(base)
        for sql in setup:
            made = run(silt, sql.format(t=base))
            if made.returncode != 0:
                print("FAIL %s: setup failed: %s" % (kind, made.stderr.strip()))
                return 1
        base_orphans = []
        before, problems = state(silt, base, base_orphans)
        base_orphans = set(base_orphans)
        clean = os.path.join(work, kind + "-clean")
        shutil.copytree(base, clean, symlinks=True)
        log = os.path.join(work, kind + ".calls")
        proc = run(silt, stmt.format(t=clean),
                   shim_env(shim, SILT_FAULT_LOG=log, SILT_FAULT_GLOB=clean + "*"))
        after, problems2 = state(silt, clean)
        if proc.returncode != 0 or problems or problems2:
            print("FAIL %s: the clean run: %s %s" % (kind, proc.stderr.strip(), problems + problems2))
            return 1
        with open(log, encoding="utf-8") as f:
            calls = [line.split(" ", 1) for line in f.read().splitlines()]
        end = commit_end(calls)
        for k, (op, path) in enumerate(calls, 1):
            where = os.path.relpath(path, clean)
            for fault in faults_for(op, k, all_errors):
                copy = os.path.join(work, "%s-%d-%s" % (kind, k, fault))
                shutil.copytree(base, copy, symlinks=True)
                proc = run(silt, stmt.format(t=copy),
                           shim_env(shim, SILT_FAULT="any:%d:%s:%s*" % (k, fault, copy)))
                orphans = []
                got, problems = state(silt, copy, orphans)
                problems = judge(op, path, fault, k > end, proc, before, after, got, problems)
                # A write whose commit certainly failed removes its data files (the DML
                # statements still leave theirs to VACUUM).
                if (proc.returncode != 0 and got == before and kind in OWN_CLEANUP and
                        set(orphans) - base_orphans):
                    problems.append("data files of the failed commit left: %s" % sorted(
                        set(orphans) - base_orphans))
                if k > end and proc.returncode == 0:
                    problems += next_commit_notes(silt, copy)
                runs += 1
                outcome = "ok" if proc.returncode == 0 else (
                    "committed, durability unknown" if got == after else "failed, unchanged")
                by_outcome[outcome] = by_outcome.get(outcome, 0) + 1
                if problems:
                    failed += 1
                    print("FAIL %s: %s at call %d (%s %s): %s\n  stderr: %s" % (
                        kind, fault, k, op, where, "; ".join(problems), proc.stderr.strip()[:400]))
                shutil.rmtree(copy, ignore_errors=True)
        print("%s: %d calls (%s)" % (kind, len(calls), ", ".join(sorted(set(c[0] for c in calls)))))
    print("%d injected runs in %.1f s: %s" % (runs, time.monotonic() - started, ", ".join(
        "%s %d" % kv for kv in sorted(by_outcome.items()))))
    print("%d passed, %d failed" % (runs - failed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
