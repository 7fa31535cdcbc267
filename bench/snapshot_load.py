#!/usr/bin/env python3
"""Benchmark: how long silt takes to load a large table's snapshot, and how much memory.

    bench/snapshot_load.py [--silt build/silt] [--dir DIR] [--files 100000]
                           [--commits 10000] [--checkpoint 9990] [--runs 3] [--no-deltars]

Generates (once; reused while its parameters match) a Delta table whose log
alone is realistic: --commits JSON commits that add and remove files in a
table partitioned by date, --files live files at the end, a classic Parquet
checkpoint at version --checkpoint written with pyarrow in the schema Spark
writes (struct columns txn/add/remove/metaData/protocol, add.partitionValues as
map<string,string>, stats as a JSON string, tombstones as remove rows),
`_last_checkpoint`, and the commits after the checkpoint. The data files do
not exist: `silt table info` and delta-rs's DeltaTable(path) read only the log.

Then times `silt table info DIR` (best of --runs wall times of the whole
process; peak RSS of the process from getrusage) and the same load in
delta-rs (DeltaTable(DIR) plus file_uris(), timed inside a Python process;
its peak RSS includes the interpreter and pyarrow), and prints both, their
ratio, and silt's bytes per live file (peak RSS / files). A benchmark, not a
test: nothing here passes or fails on time. Run it with the peers venv
(.peers/venv/bin/python) so that pyarrow and deltalake are there.
"""
import argparse
import json
import os
import random
import re
import subprocess
import sys
import time
import uuid

SCHEMA = {"type": "struct", "fields": [
    {"name": "id", "type": "long", "nullable": True, "metadata": {}},
    {"name": "ts", "type": "timestamp", "nullable": True, "metadata": {}},
    {"name": "value", "type": "double", "nullable": True, "metadata": {}},
    {"name": "name", "type": "string", "nullable": True, "metadata": {}},
    {"name": "date", "type": "string", "nullable": True, "metadata": {}},
]}
ENGINE = "Apache-Spark/4.1.0 Delta-Lake/4.1.0"
START_MS = 1_700_000_000_000
ADDS_PER_COMMIT = 12
STAMP_NAME = "bench-params.json"


def version_name(version):
    return "%020d" % version


class LogWriter:
    """Builds the log: one list of actions per commit, and the state at the checkpoint."""

    def __init__(self, args):
        self.args = args
        self.rng = random.Random(42)
        self.live = {}      # path -> add action
        self.live_paths = []  # for picking files to remove
        self.tombstones = {}  # path -> remove action
        self.txn = None
        self.table_id = str(uuid.UUID(int=self.rng.getrandbits(128)))

    def new_add(self, version, index):
        date = "2024-%02d-%02d" % (1 + (version // 900) % 12, 1 + version % 28)
        name = "part-%05d-%s.c000.snappy.parquet" % (index, uuid.UUID(int=self.rng.getrandbits(128)))
        low = version * 1000 + index * 10
        stats = {"numRecords": 1000, "minValues": {"id": low, "ts": "2024-01-01T00:00:00.000Z",
                                                   "value": -1.5, "name": "aaa"},
                 "maxValues": {"id": low + 999, "ts": "2024-12-31T23:59:59.999Z", "value": 99.5, "name": "zzz"},
                 "nullCount": {"id": 0, "ts": 0, "value": 3, "name": 1}}
        return {"path": "date=%s/%s" % (date, name), "partitionValues": {"date": date},
                "size": 50_000 + self.rng.randrange(50_000), "modificationTime": START_MS + version * 1000,
                "dataChange": True, "stats": json.dumps(stats, separators=(",", ":"))}

    def remove_one(self, version):
        idx = self.rng.randrange(len(self.live_paths))
        path = self.live_paths[idx]
        self.live_paths[idx] = self.live_paths[-1]
        self.live_paths.pop()
        add = self.live.pop(path)
        remove = {"path": path, "deletionTimestamp": START_MS + version * 1000, "dataChange": True,
                  "extendedFileMetadata": True, "partitionValues": add["partitionValues"], "size": add["size"]}
        self.tombstones[path] = remove
        return remove

    def commit(self, version):
        """The actions of one commit, applied to the live state as it goes."""
        actions = [{"commitInfo": {"timestamp": START_MS + version * 1000, "operation": "WRITE",
                                   "operationParameters": {"mode": "Append", "partitionBy": "[\"date\"]"},
                                   "readVersion": version - 1, "isolationLevel": "Serializable",
                                   "isBlindAppend": False, "engineInfo": ENGINE,
                                   "txnId": str(uuid.UUID(int=self.rng.getrandbits(128)))}}]
        if version == 0:
            actions.append({"protocol": {"minReaderVersion": 1, "minWriterVersion": 2}})
            actions.append({"metaData": {"id": self.table_id, "format": {"provider": "parquet", "options": {}},
                                         "schemaString": json.dumps(SCHEMA), "partitionColumns": ["date"],
                                         "configuration": {}, "createdTime": START_MS}})
        adds = self.adds_for(version)
        removes = 0 if version == 0 else adds - self.net_per_commit(version)
        for _ in range(min(removes, len(self.live_paths))):
            actions.append({"remove": self.remove_one(version)})
        for index in range(adds):
            add = self.new_add(version, index)
            self.live[add["path"]] = add
            self.live_paths.append(add["path"])
            self.tombstones.pop(add["path"], None)
            actions.append({"add": add})
        if version % 10 == 0:
            self.txn = {"appId": "ingest-stream", "version": version // 10, "lastUpdated": START_MS + version * 1000}
            actions.append({"txn": self.txn})
        return actions

    def net_per_commit(self, version):
        """Live files gained by a commit, so that the last commit ends at --files."""
        total, commits = self.args.files, self.args.commits
        return total * (version + 1) // commits - total * version // commits

    def adds_for(self, version):
        return self.net_per_commit(version) if version == 0 else self.net_per_commit(version) + 2


def checkpoint_schema():
    import pyarrow as pa

    string_map = pa.map_(pa.string(), pa.string())
    dv = pa.struct([("storageType", pa.string()), ("pathOrInlineDv", pa.string()), ("offset", pa.int32()),
                    ("sizeInBytes", pa.int32()), ("cardinality", pa.int64()), ("maxRowIndex", pa.int64())])
    return pa.schema([
        ("txn", pa.struct([("appId", pa.string()), ("version", pa.int64()), ("lastUpdated", pa.int64())])),
        ("add", pa.struct([("path", pa.string()), ("partitionValues", string_map), ("size", pa.int64()),
                           ("modificationTime", pa.int64()), ("dataChange", pa.bool_()), ("stats", pa.string()),
                           ("tags", string_map), ("deletionVector", dv), ("baseRowId", pa.int64()),
                           ("defaultRowCommitVersion", pa.int64()), ("clusteringProvider", pa.string())])),
        ("remove", pa.struct([("path", pa.string()), ("deletionTimestamp", pa.int64()), ("dataChange", pa.bool_()),
                              ("extendedFileMetadata", pa.bool_()), ("partitionValues", string_map),
                              ("size", pa.int64()), ("deletionVector", dv), ("baseRowId", pa.int64()),
                              ("defaultRowCommitVersion", pa.int64())])),
        ("metaData", pa.struct([("id", pa.string()), ("name", pa.string()), ("description", pa.string()),
                                ("format", pa.struct([("provider", pa.string()), ("options", string_map)])),
                                ("schemaString", pa.string()), ("partitionColumns", pa.list_(pa.string())),
                                ("configuration", string_map), ("createdTime", pa.int64())])),
        ("protocol", pa.struct([("minReaderVersion", pa.int32()), ("minWriterVersion", pa.int32()),
                                ("readerFeatures", pa.list_(pa.string())),
                                ("writerFeatures", pa.list_(pa.string()))])),
    ])


def as_map(d):
    return None if d is None else list(d.items())


def write_checkpoint(log_dir, version, writer, protocol, metadata):
    """A classic single-file checkpoint: one row per action, the other columns null."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    rows = [{"protocol": protocol}, {"metaData": dict(metadata, format={"provider": "parquet", "options": []},
                                                      configuration=[])}]
    if writer.txn:
        rows.append({"txn": writer.txn})
    for add in writer.live.values():
        rows.append({"add": dict(add, partitionValues=as_map(add["partitionValues"]), dataChange=False)})
    for remove in writer.tombstones.values():
        rows.append({"remove": dict(remove, partitionValues=as_map(remove["partitionValues"]), dataChange=False)})
    schema = checkpoint_schema()
    table = pa.Table.from_pylist(rows, schema=schema)
    path = os.path.join(log_dir, version_name(version) + ".checkpoint.parquet")
    pq.write_table(table, path, compression="snappy")
    last = {"version": version, "size": len(rows), "sizeInBytes": os.path.getsize(path),
            "numOfAddFiles": len(writer.live)}
    with open(os.path.join(log_dir, "_last_checkpoint"), "w") as out:
        out.write(json.dumps(last) + "\n")
    return len(rows)


def generate(args):
    log_dir = os.path.join(args.dir, "_delta_log")
    os.makedirs(log_dir, exist_ok=True)
    writer = LogWriter(args)
    protocol = metadata = None
    started = time.time()
    for version in range(args.commits):
        actions = writer.commit(version)
        if version == 0:
            protocol, metadata = actions[1]["protocol"], actions[2]["metaData"]
        with open(os.path.join(log_dir, version_name(version) + ".json"), "w") as out:
            for action in actions:
                out.write(json.dumps(action, separators=(",", ":")) + "\n")
        if version == args.checkpoint:
            rows = write_checkpoint(log_dir, version, writer, protocol, metadata)
            print("checkpoint at version %d: %d rows (%d live files, %d tombstones)"
                  % (version, rows, len(writer.live), len(writer.tombstones)))
    with open(os.path.join(args.dir, STAMP_NAME), "w") as out:
        json.dump(params(args), out)
    print("generated %d commits, %d live files in %.1f s" % (args.commits, len(writer.live), time.time() - started))


def params(args):
    return {"files": args.files, "commits": args.commits, "checkpoint": args.checkpoint, "format": 1}


def reusable(args):
    try:
        with open(os.path.join(args.dir, STAMP_NAME)) as f:
            return json.load(f) == params(args)
    except (OSError, ValueError):
        return False


def measured(cmd):
    """Wall time, peak RSS (bytes) and output of one run of cmd, which must exit 0.

    The peak comes from GNU time (/usr/bin/time): Linux carries a process's
    high-water RSS across exec, so a child forked straight from this Python
    (with pyarrow loaded) would report at least this process's size."""
    started = time.perf_counter()
    proc = subprocess.run(["/usr/bin/time", "-f", "maxrss_kib=%M cpu_s=%U+%S", *cmd], capture_output=True)
    wall = time.perf_counter() - started
    err = proc.stderr.decode(errors="replace")
    if proc.returncode != 0:
        raise RuntimeError("%s exited %d: %s" % (" ".join(cmd), proc.returncode, err))
    found = re.search(r"maxrss_kib=(\d+) cpu_s=([\d.]+)\+([\d.]+)", err)
    peak = int(found.group(1)) * 1024
    cpu = float(found.group(2)) + float(found.group(3))
    return wall, peak, cpu, proc.stdout.decode()


DELTARS_LOAD = """
import resource, sys, time
t0 = time.perf_counter()
from deltalake import DeltaTable
t1, c1 = time.perf_counter(), time.process_time()
dt = DeltaTable(sys.argv[1])
n = len(dt.file_uris())
t2, c2 = time.perf_counter(), time.process_time()
print(dt.version(), n, t2 - t1, c2 - c1, t1 - t0)
"""


def bench_silt(args):
    best, best_cpu, rss, out = None, None, 0, ""
    for _ in range(args.runs):
        wall, peak, cpu, out = measured([args.silt, "table", "info", args.dir])
        best = wall if best is None else min(best, wall)
        best_cpu = cpu if best_cpu is None else min(best_cpu, cpu)
        rss = max(rss, peak)
    version = int(re.search(r"^version: (\d+)$", out, re.M).group(1))
    files = int(re.search(r"^files: (\d+) ", out, re.M).group(1))
    return {"wall": best, "cpu": best_cpu, "rss": rss, "version": version, "files": files}


def bench_deltars(args):
    best, best_cpu, rss, version, files = None, None, 0, None, None
    for _ in range(args.runs):
        _, peak, _, out = measured([sys.executable, "-c", DELTARS_LOAD, args.dir])
        version, files, load, cpu, _imports = out.split()
        best_cpu = float(cpu) if best_cpu is None else min(best_cpu, float(cpu))
        best = float(load) if best is None else min(best, float(load))
        rss = max(rss, peak)
    baseline = measured([sys.executable, "-c", "import deltalake"])[1]
    return {"wall": best, "cpu": best_cpu, "rss": rss, "baseline_rss": baseline, "version": int(version), "files": int(files)}


def mib(n):
    return n / (1024 * 1024)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    parser.add_argument("--silt", default=os.path.join(here, "build", "silt"))
    parser.add_argument("--dir", default="/tmp/silt-bench-snapshot")
    parser.add_argument("--files", type=int, default=100_000)
    parser.add_argument("--commits", type=int, default=10_000)
    parser.add_argument("--checkpoint", type=int, default=None, help="default: commits - 10")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--no-deltars", action="store_true")
    args = parser.parse_args()
    if args.checkpoint is None:
        args.checkpoint = max(0, args.commits - 10)
    if reusable(args):
        print("reusing the table in %s" % args.dir)
    else:
        if os.path.exists(os.path.join(args.dir, "_delta_log")):
            raise SystemExit("%s holds another table; remove it or pick another --dir" % args.dir)
        generate(args)

    silt = bench_silt(args)
    print("silt table info: version %d, %d files; best of %d: %.3f s wall, %.3f s CPU, peak RSS %.1f MiB, "
          "%.0f bytes per file" % (silt["version"], silt["files"], args.runs, silt["wall"], silt["cpu"],
                                   mib(silt["rss"]), silt["rss"] / silt["files"]))
    if not args.no_deltars:
        rs = bench_deltars(args)
        print("delta-rs DeltaTable + file_uris(): version %d, %d files; best of %d: %.3f s wall, %.3f s CPU "
              "(load only), peak RSS %.1f MiB (%.1f MiB after importing deltalake alone)"
              % (rs["version"], rs["files"], args.runs, rs["wall"], rs["cpu"], mib(rs["rss"]),
                 mib(rs["baseline_rss"])))
        if (rs["version"], rs["files"]) != (silt["version"], silt["files"]):
            print("WARNING: silt and delta-rs disagree on version or file count")
        print("ratio silt / delta-rs: wall %.2f, CPU %.2f, peak RSS %.2f (%.2f against delta-rs's RSS above "
              "its import)" % (silt["wall"] / rs["wall"], silt["cpu"] / max(rs["cpu"], 1e-9), silt["rss"] / rs["rss"],
                 silt["rss"] / max(1, rs["rss"] - rs["baseline_rss"])))
    return 0


if __name__ == "__main__":
    sys.exit(main())
