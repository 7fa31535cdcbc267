#!/usr/bin/env python3
"""MERGE BRANCH killed (SIGKILL) at every file-system call it makes under the warehouse, before
and after each (tests/crash/fault_shim.c; docs/branches.md, "Merging"): main is either as
before or as after the merge, never between.

    kill_merge.py SILT_BIN WORKDIR SHIM

The branch appends to two tables; main appended to one of them after the fork, so the merge
fast-forwards one table and rebases the other as a new commit. A clean run on a copy lists the
calls; the publish point is the link() of main's catalog commit holding the pending list. Each
killed run's warehouse is then opened by silt, which finishes a published merge: killed before
that link, both tables read as before (by silt, and by a plain Delta read of the folders);
killed at or after it, both read as after the clean run. A later MERGE BRANCH or INSERT works.
"""
import os
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from io_faults import shim_env  # noqa: E402

SETUP = ("CREATE TABLE t (id INT) USING delta; CREATE TABLE u (id INT) USING delta; "
         "INSERT INTO t VALUES (1); INSERT INTO u VALUES (1); CREATE BRANCH b; "
         "USE REFERENCE b; INSERT INTO t VALUES (2), (3); INSERT INTO u VALUES (4); "
         "USE REFERENCE main; INSERT INTO t VALUES (10)")
MERGE = "MERGE BRANCH b INTO main"
READ = ("SELECT (SELECT count(*) FROM t) AS t, (SELECT sum(id) FROM t) AS ts, "
        "(SELECT count(*) FROM u) AS u, (SELECT sum(id) FROM u) AS us")


def sql(silt, wh, text, env=None):
    return subprocess.run([silt, "sql", "--warehouse", wh, "--format", "csv", text],
                          capture_output=True, text=True, env=env, timeout=120)


def main_state(silt, wh):
    """Main's tables through the catalog (which finishes a published merge), then as plain
    Delta folders: both must agree."""
    cat = sql(silt, wh, READ)
    plain = sql(silt, wh, READ.replace("FROM t", "FROM delta.`%s/t`" % wh)
                .replace("FROM u", "FROM delta.`%s/u`" % wh))
    if cat.returncode != 0 or plain.returncode != 0:
        return None, (cat.stderr + plain.stderr).strip()[:300]
    a, b = cat.stdout.split()[-1], plain.stdout.split()[-1]
    return a, None if a == b else "the catalog reads %s but the folders %s" % (a, b)


def publish_link(calls):
    """The index of the link() of the catalog commit that holds the merge's pending list."""
    for k, (op, path) in enumerate(calls, 1):
        if op == "link" and "/_silt_catalog/log/" in path:
            return k
    return None


def main():
    silt, work, shim = sys.argv[1:4]
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    base = os.path.join(work, "base")
    if sql(silt, base, SETUP).returncode != 0:
        print("FAIL setup")
        return 1
    before, problem = main_state(silt, base)
    clean = os.path.join(work, "clean")
    shutil.copytree(base, clean)
    log = os.path.join(work, "merge.calls")
    proc = sql(silt, clean, MERGE, shim_env(shim, SILT_FAULT_LOG=log,
                                            SILT_FAULT_GLOB=clean + "/*"))
    after, problem2 = main_state(silt, clean)
    with open(log, encoding="utf-8") as f:
        calls = [line.split(" ", 1) for line in f.read().splitlines()]
    link = publish_link(calls)
    if proc.returncode != 0 or problem or problem2 or link is None or before == after:
        print("FAIL the clean run: %s %s %s link=%s %s -> %s" % (
            proc.stderr.strip(), problem, problem2, link, before, after))
        return 1
    failures = runs = 0
    for k, (op, path) in enumerate(calls, 1):
        for action in ("kill", "killafter"):
            copy = os.path.join(work, "run-%d-%s" % (k, action))
            shutil.copytree(base, copy)
            fired = copy + ".fired"
            proc = sql(silt, copy, MERGE, shim_env(
                shim, SILT_FAULT="any:%d:%s:%s/*" % (k, action, copy), SILT_FAULT_FIRED=fired))
            problems = []
            if not os.path.exists(fired) or proc.returncode != -9:
                problems.append("not killed (exit %d)" % proc.returncode)
            got, problem = main_state(silt, copy)
            if problem:
                problems.append(problem)
            published = k > link or (k == link and action == "killafter")
            want = after if published else before
            if got != want:
                problems.append("main reads %s, not %s (%s)" % (
                    got, want, "after" if published else "before"))
            nxt = sql(silt, copy, "INSERT INTO t VALUES (0)" if published else MERGE)
            if nxt.returncode != 0:
                problems.append("the next statement failed: " + nxt.stderr.strip()[:200])
            runs += 1
            if problems:
                failures += 1
                print("FAIL %s at call %d (%s %s): %s" % (
                    action, k, op, os.path.relpath(path.strip(), copy), "; ".join(problems)))
            shutil.rmtree(copy, ignore_errors=True)
            if os.path.exists(fired):
                os.remove(fired)
    print("ok   MERGE BRANCH: %d calls, the publish point at call %d, killed before and after "
          "each" % (len(calls), link) if failures == 0 else "")
    print("%d runs, %d failure(s)" % (runs, failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
