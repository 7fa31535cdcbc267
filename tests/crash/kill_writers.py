#!/usr/bin/env python3
"""Crash harness: concurrent writers killed with SIGKILL at random moments and
at exact points of the commit protocol.

    kill_writers.py SILT_BIN WORKDIR [ROUNDS] [SEED] [SHIM]

Each round starts WRITERS `silt sql` processes that each INSERT one row
(writer, round) into one Delta table (checkpoint every 5 versions). Some are
killed with SIGKILL after a random delay (often in the middle of their
commit); with SHIM (tests/crash/fault_shim.c, LD_PRELOAD) others are killed
by the shim just before or just after one exact file-system call of the
commit protocol: every open(O_CREAT), write, fsync, link and rename an INSERT
makes (data file, commit, checkpoint, _last_checkpoint), enumerated by a
logged INSERT at the start and cycled through so every point is hit.

After every round the log is checked by a replay written here, independent
of silt:

- versions are dense from 0 and every commit file is whole JSON lines;
- the live files of the replay exist on disk, and silt's `table info`
  counts the same number (silt starts from its newest checkpoint);
- every checkpoint holds exactly the replay's live files at its version
  (read with pyarrow when it is installed: the peers' venv), and
  _last_checkpoint names a checkpoint that exists;
- every acknowledged INSERT (exit 0) is in the table exactly once, and
  nothing is there that no writer tried (silt reads the rows back, so a
  partial data file would fail the round).

Prints the figures and "N passed, M failed" (rounds). `make test` runs 50
rounds; bench/crash_kill9.sh runs the long version.
"""
import json
import os
import random
import signal
import subprocess
import sys
import time

try:
    import pyarrow.parquet as pq
except ImportError:  # the checkpoints are then only counted by silt
    pq = None

WRITERS = 4
INTERVAL = 5


def replay(table):
    """The live files after each version, from the JSON commits alone."""
    log = os.path.join(table, "_delta_log")
    versions = sorted(int(n[:20]) for n in os.listdir(log)
                      if n.endswith(".json") and len(n) == 25 and n[:20].isdigit())
    problems = []
    if versions != list(range(len(versions))):
        problems.append("versions are not dense: %s" % versions)
    live, at = {}, {}
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
        at[v] = set(live)
    for path in live:
        if not os.path.exists(os.path.join(table, path)):
            problems.append("live file %s is missing" % path)
    return versions, live, at, problems


def check_checkpoints(table, at, verified):
    """Each checkpoint's add paths are the replay's live files at its version."""
    log = os.path.join(table, "_delta_log")
    problems = []
    names = [n for n in os.listdir(log) if n.endswith(".checkpoint.parquet")]
    for name in names:
        version = int(name[:20])
        if name in verified or pq is None:
            continue
        rows = pq.read_table(os.path.join(log, name), columns=["add"]).column("add").to_pylist()
        paths = sorted(r["path"] for r in rows if r is not None)
        if version not in at:
            problems.append("checkpoint %d has no commit" % version)
        elif paths != sorted(at[version]):
            problems.append("checkpoint %d holds %d files, the replay %d" % (
                version, len(paths), len(at[version])))
        else:
            verified.add(name)
    last = os.path.join(log, "_last_checkpoint")
    if os.path.exists(last):
        with open(last, encoding="utf-8") as f:
            version = json.loads(f.read())["version"]
        if "%020d.checkpoint.parquet" % version not in names:
            problems.append("_last_checkpoint names version %d, which has no checkpoint" % version)
    return problems, len(names)


def check_round(silt, table, acked, tried, verified):
    versions, live, at, problems = replay(table)
    cp_problems, n_checkpoints = check_checkpoints(table, at, verified)
    problems += cp_problems
    info = subprocess.run([silt, "table", "info", table], capture_output=True, text=True)
    if info.returncode != 0:
        return problems + ["table info failed: " + info.stderr.strip()], n_checkpoints
    if ("files: %d (" % len(live)) not in info.stdout:
        problems.append("silt counts other files than the replay (%d): %s" % (
            len(live), [l for l in info.stdout.splitlines() if l.startswith("files:")]))
    rows = subprocess.run([silt, "sql", "--format", "csv",
                           "SELECT w, r FROM delta.`%s`" % table], capture_output=True, text=True)
    if rows.returncode != 0:
        return problems + ["reading the rows failed: " + rows.stderr.strip()], n_checkpoints
    seen = [tuple(int(x) for x in l.split(",")) for l in rows.stdout.splitlines()[1:] if l]
    for key in acked:
        if seen.count(key) != 1:
            problems.append("acknowledged insert %s is there %d times" % (key, seen.count(key)))
    for key in seen:
        if key not in tried:
            problems.append("row %s was never written" % (key,))
    if len(seen) != len(set(seen)):
        problems.append("a row is there twice")
    return problems, n_checkpoints


def insert(silt, table, w, rnd, env=None):
    return subprocess.Popen(
        [silt, "sql", "INSERT INTO delta.`%s` VALUES (%d, %d)" % (table, w, rnd)],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)


def shim_env(shim, **extra):
    env = dict(os.environ)
    env["LD_PRELOAD"] = shim
    env.update(extra)
    return env


def classify(where):
    """A call's path without its unique part: the kind of object it writes."""
    folder, name = os.path.split(where)
    if name.startswith(".silt-tmp-"):
        name = "<temporary>"
    elif name.startswith("part-"):
        name = "<data file>"
    elif name.endswith(".checkpoint.parquet"):
        name = "<version>.checkpoint.parquet"
    elif name.endswith(".json") and name[:20].isdigit():
        name = "<version>.json"
    return os.path.join(folder, name) if folder else name


def commit_points(silt, shim, table, work, acked, tried):
    """Every file-system call an INSERT makes, up to one that also checkpoints.

    The table gets INTERVAL versions here (v1..v5): the last INSERT is
    logged by the shim, so the points include the checkpoint's writes."""
    log = os.path.join(work, "points.log")
    for rnd in range(INTERVAL):
        env = None
        if rnd == INTERVAL - 1:
            env = shim_env(shim, SILT_FAULT_LOG=log, SILT_FAULT_GLOB=table + "*")
        p = insert(silt, table, 99, rnd, env)
        _, err = p.communicate(timeout=600)
        tried.add((99, rnd))
        if p.returncode != 0:
            raise SystemExit("setup insert failed: " + err.decode())
        acked.add((99, rnd))
    with open(log, encoding="utf-8") as f:
        calls = [line.split(" ", 1) for line in f.read().splitlines()]
    points = []
    for k, (op, path) in enumerate(calls, 1):
        where = os.path.relpath(path.strip(), table)
        for action in ("kill", "killafter"):
            points.append(("any:%d:%s:%s*" % (k, action, table),
                           "%2d %s %s %s" % (k, action, op, classify(where))))
    return points


def main():
    silt, work = sys.argv[1], sys.argv[2]
    rounds = int(sys.argv[3]) if len(sys.argv) > 3 else 50
    rng = random.Random(int(sys.argv[4]) if len(sys.argv) > 4 else 15)
    shim = os.path.abspath(sys.argv[5]) if len(sys.argv) > 5 else None
    work = os.path.abspath(work)
    os.makedirs(work, exist_ok=True)
    table = os.path.join(work, "t%d" % os.getpid())
    made = subprocess.run([silt, "sql", "CREATE TABLE delta.`%s` (w INT, r INT) USING DELTA "
                           "TBLPROPERTIES ('delta.checkpointInterval' = '%d')" % (table, INTERVAL)],
                          capture_output=True, text=True)
    if made.returncode != 0:
        print("could not create the table: " + made.stderr)
        print("0 passed, 1 failed")
        return 1
    acked, tried, verified = set(), set(), set()
    points = commit_points(silt, shim, table, work, acked, tried) if shim else []
    fired_at = {}
    next_point = 0
    passed = failed = killed = point_kills = 0
    n_checkpoints = 0
    started = time.monotonic()
    for rnd in range(rounds):
        procs, planned = [], {}
        # Writer 0 is killed at an exact point, the others at random moments (or not at all).
        for w in range(WRITERS):
            tried.add((w, rnd))
            env = None
            if w == 0 and points:
                spec, label = points[next_point % len(points)]
                next_point += 1
                fired = os.path.join(work, "fired-%d" % rnd)
                env = shim_env(shim, SILT_FAULT=spec, SILT_FAULT_FIRED=fired)
                planned[w] = (label, fired)
            procs.append((w, insert(silt, table, w, rnd, env)))
        victims = rng.sample(range(1, WRITERS), rng.randint(0, WRITERS - 1))
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
            if w in planned and os.path.exists(planned[w][1]):
                os.unlink(planned[w][1])
                if p.returncode == -signal.SIGKILL:
                    point_kills += 1
                    fired_at[planned[w][0]] = fired_at.get(planned[w][0], 0) + 1
        problems, n_checkpoints = check_round(silt, table, acked, tried, verified)
        if problems:
            failed += 1
            print("FAIL round %d: %s" % (rnd, "; ".join(problems)[:2000]))
        else:
            passed += 1
    log = os.path.join(table, "_delta_log")
    leftovers = [n for n in os.listdir(log) if n.startswith(".silt-tmp-")]
    data_leftovers = [n for n in os.listdir(table) if n.startswith(".silt-tmp-")]
    print("%d rounds in %.1f s: %d writers killed (%d at an exact point: %d of %d points hit), "
          "%d inserts acknowledged, %d versions, %d checkpoints (%s)" % (
              rounds, time.monotonic() - started, killed, point_kills, len(fired_at),
              len(points), len(acked), len(replay(table)[0]), n_checkpoints,
              "each compared with the replay by pyarrow" if pq else "counted by silt"))
    print("temporary files left by killed writers: %d in _delta_log, %d beside data files" % (
        len(leftovers), len(data_leftovers)))
    for label in sorted(fired_at):
        print("  point %-60s killed %d" % (label, fired_at[label]))
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
