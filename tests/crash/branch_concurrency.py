#!/usr/bin/env python3
"""Branches under concurrency (issue 21, docs/branches.md "Merging" and "Readers").

    branch_concurrency.py SILT_BIN WORKDIR SHIM

1. A reader held between its two tables (tests/crash/fault_shim.c holds its listing of the
   second table's log) while MERGE BRANCH publishes both: the reader pinned main's catalog
   before the merge, so it reads both tables as before, although the second one's log already
   has the merged commit when it is listed. A reader that starts after reads both as after.
   Table a is rebased (main moved), table b fast-forwarded: both kinds of published commit.
2. A writer on a branch killed after its staged commit, before the catalog records it: the
   merge publishes its row.
3. 8 processes commit on 4 branches (two per branch) and merge their branch into main over
   and over while 2 readers read main: every row committed on a branch is in main exactly once
   at the end (no lost commit, none published twice), and every read of main by a reader is a
   state made of whole merges: each writer inserts into a then into b, so for every writer b's
   rows are a's, or a's but the newest (a half-published merge breaks that), and a reader
   never sees fewer rows than it saw before.
"""
import os
import shutil
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from io_faults import shim_env  # noqa: E402

WRITERS, BRANCHES, ROUNDS, READERS = 8, 4, 4, 2


def sql(silt, wh, text, env=None, timeout=120):
    return subprocess.run([silt, "sql", "--warehouse", wh, "--format", "csv", text],
                          capture_output=True, text=True, env=env, timeout=timeout)


def held_reader(silt, work, shim):
    wh = os.path.join(work, "held")
    setup = ("CREATE TABLE a (id INT) USING delta; CREATE TABLE b (id INT) USING delta; "
             "INSERT INTO a VALUES (1); INSERT INTO b VALUES (1); CREATE BRANCH m; "
             "USE REFERENCE m; INSERT INTO a VALUES (2); INSERT INTO b VALUES (2); "
             "USE REFERENCE main; INSERT INTO a VALUES (10)")
    if sql(silt, wh, setup).returncode != 0:
        return ["setup failed"]
    read = "SELECT (SELECT count(*) FROM a) AS a, (SELECT count(*) FROM b) AS b"
    fired, go = os.path.join(work, "held.fired"), os.path.join(work, "held.go")
    env = shim_env(shim, SILT_FAULT="opendir:1:wait:%s/b/_delta_log" % wh,
                   SILT_FAULT_FIRED=fired, SILT_FAULT_WAIT=go)
    reader = subprocess.Popen([silt, "sql", "--warehouse", wh, "--format", "csv", read],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    problems = []
    for _ in range(3000):
        if os.path.exists(fired) or reader.poll() is not None:
            break
        time.sleep(0.01)
    if not os.path.exists(fired):
        reader.kill()
        return ["the reader was not held at b's log"]
    merge = sql(silt, wh, "MERGE BRANCH m INTO main")
    if merge.returncode != 0:
        problems.append("MERGE BRANCH failed: " + merge.stderr.strip())
    if not os.path.exists(os.path.join(wh, "b", "_delta_log", "%020d.json" % 2)):
        problems.append("the merge did not copy b's commit before the held reader lists b")
    open(go, "w").close()
    out, errs = reader.communicate(timeout=120)
    if reader.returncode != 0 or out.split() != ["a,b", "2,1"]:
        problems.append("the held reader read %r (want a=2, b=1: both before the merge) %s" % (
            out, errs.strip()[:200]))
    after = sql(silt, wh, read)
    if after.stdout.split() != ["a,b", "3,2"]:
        problems.append("a reader after the merge read %r (want 3,2)" % after.stdout)
    spark_like = sql(silt, wh, read.replace("FROM a", "FROM delta.`%s/a`" % wh)
                     .replace("FROM b", "FROM delta.`%s/b`" % wh))
    if spark_like.stdout.split() != ["a,b", "3,2"]:
        problems.append("the folders read %r after the merge (want 3,2)" % spark_like.stdout)
    return problems


def unrecorded_commit(silt, work, shim):
    """A writer on a branch killed right after its staged commit, before the branch's catalog
    records it: the branch reads the row (a head follows its own commits) and MERGE BRANCH
    publishes it, whatever shortcut it takes for tables it thinks unchanged."""
    wh = os.path.join(work, "unrecorded")
    if sql(silt, wh, "CREATE TABLE a (id INT) USING delta; INSERT INTO a VALUES (1); "
                     "CREATE BRANCH k").returncode != 0:
        return ["setup failed"]
    fired = os.path.join(work, "unrecorded.fired")
    env = shim_env(shim, SILT_FAULT="link:1:killafter:%s/a/_delta_log/_staged_commits/*" % wh,
                   SILT_FAULT_FIRED=fired)
    killed = sql(silt, wh, "USE REFERENCE k; INSERT INTO a VALUES (2)", env=env)
    problems = []
    if killed.returncode != -9 or not os.path.exists(fired):
        problems.append("the writer was not killed after its staged commit (exit %d)" %
                        killed.returncode)
    merged = sql(silt, wh, "MERGE BRANCH k INTO main; SELECT id FROM a ORDER BY id")
    if merged.returncode != 0 or merged.stdout.split()[-3:] != ["id", "1", "2"]:
        problems.append("main after the merge: %r %s" % (merged.stdout, merged.stderr.strip()))
    return problems


WRITER = r"""
import subprocess, sys
silt, wh, w, branch, rounds = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4], int(sys.argv[5])
def run(text):
    return subprocess.run([silt, "sql", "--warehouse", wh, "--format", "csv", text],
                          capture_output=True, text=True, timeout=120)
def merge():
    for attempt in range(60):
        p = run("MERGE BRANCH %s INTO main" % branch)
        if p.returncode == 0:
            return
        if "run it again" not in p.stderr:
            sys.exit("MERGE BRANCH %s: %s" % (branch, p.stderr.strip()))
    sys.exit("MERGE BRANCH %s lost 60 times in a row" % branch)
for i in range(rounds):
    v = w * 1000 + i
    p = run("USE REFERENCE %s; INSERT INTO a VALUES (%d); INSERT INTO b VALUES (%d)" % (branch, v, v))
    if p.returncode != 0:
        sys.exit("writer %d round %d: %s" % (w, i, p.stderr.strip()))
    merge()
"""

READER = r"""
import subprocess, sys, os
silt, wh, stop, out = sys.argv[1:5]
reads = []
while not os.path.exists(stop):
    p = subprocess.run([silt, "sql", "--warehouse", wh, "--format", "csv",
                        "SELECT 'a' AS t, id FROM a UNION ALL SELECT 'b' AS t, id FROM b"],
                       capture_output=True, text=True, timeout=120)
    if p.returncode != 0:
        reads.append("ERROR " + p.stderr.strip().replace("\n", " "))
        continue
    reads.append(" ".join(line.replace(",", ":") for line in p.stdout.split()[1:]))
open(out, "w").write("\n".join(reads) + "\n")
"""


def check_read(line, seen):
    """Problems of one read of main: duplicates, a half merge, fewer rows than before."""
    if line.startswith("ERROR"):
        return [line[:300]]
    rows = [tuple(cell.split(":")) for cell in line.split()]
    a = [int(v) for t, v in rows if t == "a"]
    b = [int(v) for t, v in rows if t == "b"]
    problems = []
    if len(set(a)) != len(a) or len(set(b)) != len(b):
        problems.append("a row is there twice: %s" % line[:200])
    for w in range(WRITERS):
        wa = sorted(v for v in a if v // 1000 == w)
        wb = sorted(v for v in b if v // 1000 == w)
        if not (set(wb) <= set(wa) and len(wa) - len(wb) <= 1):
            problems.append("half a merge: writer %d has a %s and b %s" % (w, wa, wb))
    if len(a) < seen[0] or len(b) < seen[1]:
        problems.append("fewer rows than an earlier read (%d, %d after %d, %d)" % (
            len(a), len(b), seen[0], seen[1]))
    seen[0], seen[1] = max(seen[0], len(a)), max(seen[1], len(b))
    return problems


def many_writers(silt, work):
    wh = os.path.join(work, "many")
    setup = ("CREATE TABLE a (id INT) USING delta; CREATE TABLE b (id INT) USING delta; " +
             " ".join("CREATE BRANCH br%d;" % k for k in range(BRANCHES)))
    if sql(silt, wh, setup).returncode != 0:
        return ["setup failed"], 0
    stop = os.path.join(work, "stop")
    readers = [subprocess.Popen([sys.executable, "-c", READER, silt, wh, stop,
                                 os.path.join(work, "reads%d" % r)]) for r in range(READERS)]
    writers = [subprocess.Popen([sys.executable, "-c", WRITER, silt, wh, str(w),
                                 "br%d" % (w % BRANCHES), str(ROUNDS)],
                                stderr=subprocess.PIPE, text=True) for w in range(WRITERS)]
    problems = []
    for w, p in enumerate(writers):
        _, errs = p.communicate(timeout=600)
        if p.returncode != 0:
            problems.append("writer %d: %s" % (w, errs.strip()[-300:]))
    open(stop, "w").close()
    for p in readers:
        p.wait(timeout=300)
    n_reads = 0
    for r in range(READERS):
        seen = [0, 0]
        with open(os.path.join(work, "reads%d" % r), encoding="utf-8") as f:
            for line in f.read().splitlines():
                n_reads += 1
                problems += ["reader %d: %s" % (r, p) for p in check_read(line, seen)]
    want = sorted(w * 1000 + i for w in range(WRITERS) for i in range(ROUNDS))
    for table in ("a", "b"):
        for name, text in (("catalog", "SELECT id FROM %s ORDER BY id" % table),
                           ("folder", "SELECT id FROM delta.`%s/%s` ORDER BY id" % (wh, table))):
            got = sql(silt, wh, text)
            ids = [int(v) for v in got.stdout.split()[1:]] if got.returncode == 0 else None
            if ids != want:
                problems.append("main's %s (%s) holds %s, not the %d committed rows %s" % (
                    table, name, ids, len(want), got.stderr.strip()[:200]))
    return problems, n_reads


def main():
    silt, work, shim = sys.argv[1:4]
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    failures = 0
    problems = held_reader(silt, work, shim)
    failures += bool(problems)
    print(("FAIL held reader: " + "; ".join(problems)) if problems else
          "ok   a reader held between two tables during MERGE BRANCH reads both as before")
    problems = unrecorded_commit(silt, work, shim)
    failures += bool(problems)
    print(("FAIL unrecorded commit: " + "; ".join(problems)) if problems else
          "ok   a branch commit killed before the catalog recorded it is merged all the same")
    problems, n_reads = many_writers(silt, work)
    failures += bool(problems)
    for p in problems[:20]:
        print("FAIL " + p)
    if not problems:
        print("ok   %d writers on %d branches, %d rounds each with a merge; %d reads of main, "
              "all whole merges; main holds every row once" % (
                  WRITERS, BRANCHES, ROUNDS, n_reads))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
