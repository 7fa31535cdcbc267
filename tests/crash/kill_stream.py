#!/usr/bin/env python3
"""Crash test of streaming (docs/streaming.md, "Checkpoint"): SIGKILL at random moments.

    kill_stream.py SILT_BIN WORK_DIR [KILLS [SEED [aggregate]]]

100 CSV files (rows numbered uniquely) arrive in a folder a few at a time; a
streaming table reads them with maxFilesPerTrigger 3 through `silt stream
--trigger availableNow`, and each run is SIGKILLed after a random delay,
KILLS times at least (default 30) while it is running, and restarted. At
the end every input row is in the table exactly once, the checkpoint's
commits match its offsets, and every Delta commit of the stream carries a
distinct txn version. With `aggregate` the streaming table is a stateful
aggregation (GROUP BY id % 7 with count, sum, min, max, avg; complete mode,
its state in the checkpoint) and at the end it equals the batch answer.
Prints what it did and exits 1 on any failure.
"""
import json
import os
import random
import shutil
import subprocess
import sys
import time

SILT, WORK = sys.argv[1], sys.argv[2]
KILLS = int(sys.argv[3]) if len(sys.argv) > 3 else 30
SEED = int(sys.argv[4]) if len(sys.argv) > 4 else 17
AGGREGATE = len(sys.argv) > 5 and sys.argv[5] == "aggregate"
# window: GROUP BY window(ts, '1 hour') with WATERMARK ts DELAY OF INTERVAL 10 MINUTES in
# append mode (row id has event time 2024-01-01 + id seconds); the table ends with every
# hour the final watermark closed, each once, with its exact count and sum
WINDOW = len(sys.argv) > 5 and sys.argv[5] == "window"
BASE = 1704067200
N_FILES, ROWS = 100, 2000


def pending(table):
    """1 when the checkpoint has a planned batch without its commit mark (killed mid-batch)."""
    ckpt = os.path.join(table, "_silt_stream", "checkpoint")
    def newest(d):
        d = os.path.join(ckpt, d)
        names = [int(n) for n in os.listdir(d) if n.isdigit()] if os.path.isdir(d) else []
        return max(names, default=-1)
    return newest("offsets") > newest("commits")


def main():
    rnd = random.Random(SEED)
    if os.path.exists(WORK):
        shutil.rmtree(WORK)
    src, table = os.path.join(WORK, "in"), os.path.join(WORK, "t")
    os.makedirs(src)
    what = ("id % 7 AS k, count(*) AS n, sum(id) AS s, min(id) AS lo, max(id) AS hi, "
            "avg(id) AS a" if AGGREGATE else
            "window(ts, '1 hour') AS w, count(*) AS n, sum(id) AS s" if WINDOW else "*")
    stmt = (f"CREATE OR REFRESH STREAMING TABLE delta.`{table}` AS SELECT {what} FROM STREAM "
            f"read_files('{src}', format => 'csv', header => true, "
            f"schema => 'id BIGINT, payload STRING, ts TIMESTAMP', maxFilesPerTrigger => 3)"
            + (" GROUP BY id % 7" if AGGREGATE else "")
            + (" WATERMARK ts DELAY OF INTERVAL 10 MINUTES GROUP BY window(ts, '1 hour')"
               if WINDOW else ""))
    # The table exists before the first kill (a kill inside CREATE is a plain Delta write).
    subprocess.run([SILT, "sql", stmt], check=True, capture_output=True)
    added, kills, runs, mid_batch, mtime = 0, 0, 0, 0, 1_000_000
    while added < N_FILES or kills < KILLS:
        for _ in range(rnd.randint(1, 5)):
            if added >= N_FILES:
                break
            path = os.path.join(src, f"part-{added:03d}.csv")
            with open(path + ".tmp", "w") as f:
                f.write("id,payload,ts\n")
                for r in range(ROWS):
                    i = added * ROWS + r
                    f.write(f"{i},p{r},{time.strftime('%Y-%m-%d %H:%M:%S', time.gmtime(BASE + i))}\n")
            os.utime(path + ".tmp", (mtime, mtime))
            os.rename(path + ".tmp", path)  # a file appears whole, as uploads do
            added += 1
            mtime += 1
        proc = subprocess.Popen([SILT, "stream", "--trigger", "availableNow", stmt],
                                stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        runs += 1
        time.sleep(rnd.uniform(0.0, 0.06))
        if proc.poll() is None:
            proc.kill()
            kills += 1
        proc.wait()
        if proc.returncode == -9 and pending(table):
            mid_batch += 1
        if proc.returncode not in (0, -9):
            print(f"FAIL run {runs} exited {proc.returncode}: {proc.stderr.read().decode()}")
            return 1
        if runs > 40 * KILLS:
            print(f"FAIL only {kills} kills in {runs} runs")
            return 1
    final = subprocess.run([SILT, "stream", "--trigger", "availableNow", stmt],
                           capture_output=True, text=True)
    if final.returncode != 0:
        print(f"FAIL the final run: {final.stderr}")
        return 1
    if AGGREGATE:
        rows = subprocess.run([SILT, "sql", "--format", "csv", "SELECT k, n, s, lo, hi, "
                               f"CAST(a * 2 AS BIGINT) FROM delta.`{table}` ORDER BY k"],
                              capture_output=True, text=True, check=True).stdout.splitlines()[1:]
        out = ";".join(rows)
        ids = range(N_FILES * ROWS)
        want = ";".join(
            f"{k},{len(g)},{sum(g)},{g[0]},{g[-1]},{sum(g) * 2 // len(g)}"
            for k in range(7) for g in [[i for i in ids if i % 7 == k]])
    elif WINDOW:
        rows = subprocess.run([SILT, "sql", "--format", "csv", "SELECT unix_seconds(w.start) - "
                               f"{BASE}, n, s FROM delta.`{table}` ORDER BY 1"],
                              capture_output=True, text=True, check=True).stdout.splitlines()[1:]
        out = ";".join(rows)
        last = N_FILES * ROWS - 1
        hours = [h for h in range(last // 3600 + 1) if (h + 1) * 3600 <= last - 600]
        want = ";".join(f"{h * 3600},3600,{sum(range(h * 3600, h * 3600 + 3600))}"
                        for h in hours)
    else:
        out = subprocess.run([SILT, "sql", "--format", "csv", "SELECT count(*), count(DISTINCT "
                              f"id), min(id), max(id) FROM delta.`{table}`"],
                             capture_output=True, text=True, check=True).stdout.splitlines()[1]
        want = f"{N_FILES * ROWS},{N_FILES * ROWS},0,{N_FILES * ROWS - 1}"
    ok = out == want
    ckpt = os.path.join(table, "_silt_stream", "checkpoint")
    offsets = sorted(int(n) for n in os.listdir(os.path.join(ckpt, "offsets")) if n.isdigit())
    commits = sorted(int(n) for n in os.listdir(os.path.join(ckpt, "commits")) if n.isdigit())
    ok = ok and offsets == commits == list(range(len(offsets)))
    versions = []
    log = os.path.join(table, "_delta_log")
    for name in sorted(os.listdir(log)):
        if name.endswith(".json"):
            for line in open(os.path.join(log, name)):
                if '"txn"' in line:
                    versions.append(json.loads(line)["txn"]["version"])
    # a windowed batch that closes no window writes no commit
    ok = ok and versions == sorted(set(versions)) and (
        len(versions) <= len(commits) if WINDOW else len(versions) == len(commits))
    print(f"{runs} runs, {kills} killed ({mid_batch} between a batch's offsets and its commit "
          f"mark), {len(commits)} batches, rows {out[:200]} (want {want[:200]}), "
          f"{len(versions)} txn versions")
    print("ok" if ok else "FAIL")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
