#!/usr/bin/env python3
"""Crash harness: concurrent writers killed with SIGKILL at random moments.

    kill_writers.py SILT_BIN WORKDIR [ROUNDS] [SEED]

Each round starts WRITERS `silt sql` processes that each INSERT one row
(writer, round) into one Delta table, and kills some of them with SIGKILL
after a random delay (often in the middle of their commit). After every
round the log is checked by a replay written here, independent of silt:

- versions are dense from 0 and every commit file is whole JSON lines;
- the live files of the replay exist on disk, and silt's `table info`
  counts the same number (silt starts from the newest checkpoint, written
  every 5 versions, so this compares the checkpoint with the replay);
- every acknowledged INSERT (exit 0) is in the table exactly once, and
  nothing is there that no writer tried (silt reads the rows back);

Prints "N passed, M failed" (rounds). `make test` runs 50 rounds; bench/
runs the long version (bench/crash_kill9.sh).
"""
import json
import os
import random
import signal
import subprocess
import sys
import time

WRITERS = 4


def replay(table):
    log = os.path.join(table, "_delta_log")
    versions = sorted(int(n[:20]) for n in os.listdir(log)
                      if n.endswith(".json") and len(n) == 25 and n[:20].isdigit())
    problems = []
    if versions != list(range(len(versions))):
        problems.append("versions are not dense: %s" % versions)
    live = {}
    for v in versions:
        with open(os.path.join(log, "%020d.json" % v), encoding="utf-8") as f:
            text = f.read()
        if not text.endswith("\n"):
            problems.append("commit %d does not end with a new line (torn)" % v)
        for line in text.splitlines():
            if not line.strip():
                continue
            try:
                action = json.loads(line)
            except ValueError:
                problems.append("commit %d holds a line that is not JSON" % v)
                continue
            if "add" in action:
                live[action["add"]["path"]] = action["add"]
            elif "remove" in action:
                live.pop(action["remove"]["path"], None)
    for path in live:
        if not os.path.exists(os.path.join(table, path)):
            problems.append("live file %s is missing" % path)
    return versions, live, problems


def check_round(silt, table, acked, tried):
    versions, live, problems = replay(table)
    info = subprocess.run([silt, "table", "info", table], capture_output=True, text=True)
    if info.returncode != 0:
        return problems + ["table info failed: " + info.stderr.strip()]
    if ("files: %d (" % len(live)) not in info.stdout:
        problems.append("silt counts other files than the replay (%d): %s" % (
            len(live), [l for l in info.stdout.splitlines() if l.startswith("files:")]))
    rows = subprocess.run([silt, "sql", "--format", "csv",
                           "SELECT w, r FROM delta.`%s`" % table], capture_output=True, text=True)
    if rows.returncode != 0:
        return problems + ["reading the rows failed: " + rows.stderr.strip()]
    seen = [tuple(int(x) for x in l.split(",")) for l in rows.stdout.splitlines()[1:] if l]
    for key in acked:
        if seen.count(key) != 1:
            problems.append("acknowledged insert %s is there %d times" % (key, seen.count(key)))
    for key in seen:
        if key not in tried:
            problems.append("row %s was never written" % (key,))
    if len(seen) != len(set(seen)):
        problems.append("a row is there twice")
    return problems


def main():
    silt, work = sys.argv[1], sys.argv[2]
    rounds = int(sys.argv[3]) if len(sys.argv) > 3 else 50
    rng = random.Random(int(sys.argv[4]) if len(sys.argv) > 4 else 15)
    os.makedirs(work, exist_ok=True)
    table = os.path.join(work, "t%d" % os.getpid())
    made = subprocess.run([silt, "sql", "CREATE TABLE delta.`%s` (w INT, r INT) USING DELTA "
                           "TBLPROPERTIES ('delta.checkpointInterval' = '5')" % table],
                          capture_output=True, text=True)
    if made.returncode != 0:
        print("could not create the table: " + made.stderr)
        print("0 passed, 1 failed")
        return 1
    acked, tried = set(), set()
    passed = failed = killed = 0
    for rnd in range(rounds):
        procs = []
        for w in range(WRITERS):
            tried.add((w, rnd))
            procs.append((w, subprocess.Popen(
                [silt, "sql", "INSERT INTO delta.`%s` VALUES (%d, %d)" % (table, w, rnd)],
                stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)))
        victims = rng.sample(range(WRITERS), rng.randint(0, WRITERS - 1))
        time.sleep(rng.uniform(0.0, 0.05))
        for w in victims:
            procs[w][1].send_signal(signal.SIGKILL)
        for w, p in procs:
            _, err = p.communicate(timeout=600)
            if p.returncode == 0:
                acked.add((w, rnd))
            elif p.returncode == -signal.SIGKILL:
                killed += 1
            else:
                print("round %d: writer %d failed: %s" % (rnd, w, err.decode().strip()[:300]))
        problems = check_round(silt, table, acked, tried)
        if problems:
            failed += 1
            print("FAIL round %d: %s" % (rnd, "; ".join(problems)[:2000]))
        else:
            passed += 1
    print("%d writers killed, %d inserts acknowledged" % (killed, len(acked)))
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
