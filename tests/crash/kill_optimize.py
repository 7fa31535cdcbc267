#!/usr/bin/env python3
"""Crash test: OPTIMIZE killed with SIGKILL at random moments leaves the table as before.

    kill_optimize.py SILT_BIN WORKDIR [ROUNDS] [SEED]

A table of many small files is compacted by `silt sql "OPTIMIZE ..."` (and
`ZORDER BY`, every other round), killed after a random delay within the time
a whole OPTIMIZE takes. After each kill the log must be either unchanged or
one OPTIMIZE commit further (never a torn or partial commit), every live
file must exist, and the rows must be those the table had. Rounds whose
OPTIMIZE finished add new small files for the next one. Prints "N passed, M
failed".
"""
import json
import os
import random
import signal
import subprocess
import sys
import time


def run(silt, sql):
    return subprocess.run([silt, "sql", "--format", "csv", sql], capture_output=True, text=True,
                          timeout=600)


def log_versions(table):
    log = os.path.join(table, "_delta_log")
    return sorted(int(n[:20]) for n in os.listdir(log)
                  if n.endswith(".json") and len(n) == 25 and n[:20].isdigit())


def check_log(table):
    """The live files of a replay of every commit, and the problems found."""
    problems, live = [], {}
    versions = log_versions(table)
    if versions != list(range(len(versions))):
        problems.append("versions are not dense: %s" % versions)
    for v in versions:
        with open(os.path.join(table, "_delta_log", "%020d.json" % v), encoding="utf-8") as f:
            text = f.read()
        if not text.endswith("\n"):
            problems.append("commit %d is torn" % v)
        for line in text.splitlines():
            action = json.loads(line)
            if "add" in action:
                live[action["add"]["path"]] = action["add"]
            elif "remove" in action:
                live.pop(action["remove"]["path"], None)
    for path in live:
        if not os.path.exists(os.path.join(table, path)):
            problems.append("live file %s is missing" % path)
    return versions, problems


def rows(silt, t):
    out = run(silt, f"SELECT count(*), sum(id), sum(a), count(DISTINCT s) FROM {t}")
    if out.returncode != 0:
        raise RuntimeError(out.stderr)
    return out.stdout


def add_small_files(silt, t, start, n):
    stmts = "; ".join(f"INSERT INTO {t} SELECT id, id % 97, 'v' || id FROM range({start + k * 20000}, "
                      f"{start + (k + 1) * 20000})" for k in range(n))
    out = run(silt, stmts)
    if out.returncode != 0:
        raise RuntimeError(out.stderr)


def main():
    silt, work = sys.argv[1], sys.argv[2]
    rounds = int(sys.argv[3]) if len(sys.argv) > 3 else 6
    rng = random.Random(int(sys.argv[4]) if len(sys.argv) > 4 else 19)
    os.makedirs(work, exist_ok=True)
    table = os.path.join(work, "t%d" % os.getpid())
    t = f"delta.`{table}`"
    out = run(silt, f"CREATE TABLE {t} (id BIGINT, a BIGINT, s STRING) USING DELTA")
    if out.returncode != 0:
        print(out.stderr)
        return 1
    next_id = 0
    add_small_files(silt, t, next_id, 12)
    next_id += 12 * 20000
    passed = failed = 0
    budget = None
    for rnd in range(rounds):
        before_rows, before_versions = rows(silt, t), log_versions(table)
        sql = f"OPTIMIZE {t}" + (" ZORDER BY (a, s)" if rnd % 2 else "")
        start = time.monotonic()
        proc = subprocess.Popen([silt, "sql", sql], stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL)
        if budget is not None:
            time.sleep(rng.uniform(0, budget))
            proc.send_signal(signal.SIGKILL)
        code = proc.wait()
        if budget is None:
            budget = time.monotonic() - start  # the first round measures a whole OPTIMIZE
        versions, problems = check_log(table)
        grown = len(versions) - len(before_versions)
        if grown not in (0, 1):
            problems.append("the log grew by %d versions" % grown)
        if grown == 1:
            with open(os.path.join(table, "_delta_log", "%020d.json" % versions[-1])) as f:
                if '"operation":"OPTIMIZE"' not in f.readline():
                    problems.append("the new commit is not OPTIMIZE's")
        after = rows(silt, t)
        if after != before_rows:
            problems.append("rows changed: %r -> %r" % (before_rows, after))
        state = "killed" if code == -signal.SIGKILL else "exit %d" % code
        if problems:
            failed += 1
            print("FAIL round %d (%s, %d commits): %s" % (rnd, state, grown, "; ".join(problems)))
        else:
            passed += 1
            print("ok   round %d (%s, %d commits)" % (rnd, state, grown))
        if grown == 1:
            add_small_files(silt, t, next_id, 6)
            next_id += 6 * 20000
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
