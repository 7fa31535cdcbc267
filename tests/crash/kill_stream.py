#!/usr/bin/env python3
"""Crash test of streaming (docs/streaming.md, "Checkpoint"): SIGKILL at random moments.

    kill_stream.py SILT_BIN WORK_DIR [KILLS [SEED]]

100 CSV files (rows numbered uniquely) arrive in a folder a few at a time; a
streaming table reads them with maxFilesPerTrigger 3 through `silt stream
--trigger availableNow`, and each run is SIGKILLed after a random delay,
KILLS times at least (default 30) while it is running, and restarted. At
the end every input row is in the table exactly once, the checkpoint's
commits match its offsets, and every Delta commit of the stream carries a
distinct txn version. Prints what it did and exits 1 on any failure.
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
    stmt = (f"CREATE OR REFRESH STREAMING TABLE delta.`{table}` AS SELECT * FROM STREAM "
            f"read_files('{src}', format => 'csv', header => true, "
            f"schema => 'id BIGINT, payload STRING', maxFilesPerTrigger => 3)")
    # The table exists before the first kill (a kill inside CREATE is a plain Delta write).
    subprocess.run([SILT, "sql", stmt], check=True, capture_output=True)
    added, kills, runs, mid_batch, mtime = 0, 0, 0, 0, 1_000_000
    while added < N_FILES or kills < KILLS:
        for _ in range(rnd.randint(1, 5)):
            if added >= N_FILES:
                break
            path = os.path.join(src, f"part-{added:03d}.csv")
            with open(path + ".tmp", "w") as f:
                f.write("id,payload\n")
                for r in range(ROWS):
                    f.write(f"{added * ROWS + r},p{r}\n")
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
    out = subprocess.run([SILT, "sql", "--format", "csv", "SELECT count(*), count(DISTINCT id), "
                          f"min(id), max(id) FROM delta.`{table}`"],
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
    ok = ok and versions == sorted(set(versions)) and len(versions) == len(commits)
    print(f"{runs} runs, {kills} killed ({mid_batch} between a batch's offsets and its commit "
          f"mark), {len(commits)} batches, rows {out} (want {want}), "
          f"{len(versions)} txn versions")
    print("ok" if ok else "FAIL")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
