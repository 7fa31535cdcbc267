#!/usr/bin/env python3
"""S3 scan benchmark: the trips table (tests/e2e/trips_data.py, 2,000,000 rows
partitioned by route_id) on a local versitygw server (tests/s3/s3_suite.py
starts it the same way), read three ways in the same run:

  raw      curl GETs every data file of the table (one process, kept-alive
           connection, SigV4): the server's raw GET throughput
  silt     silt sql: a full scan (count, sums over two columns) and a
           selective one (one partition, a range of trip_id)
  pyarrow  pyarrow's S3FileSystem reading the same files (the columns the
           query needs; the selective scan reads the partition's files with
           the same filter)

Then silt's two scans again through the counting proxy (tests/s3/fault_proxy.py,
no faults) to count its requests and the bytes it fetched. Wall seconds are
the best of --repeat runs. A benchmark, never a test.

    .peers/venv/bin/python bench/s3_bench.py [--silt build/silt] [--dir /tmp/silt-s3bench]
        [--rows 2000000] [--repeat 3]
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path
from urllib.parse import quote

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests" / "s3"))
sys.path.insert(0, str(REPO / "tests" / "e2e"))
from fault_proxy import FaultProxy  # noqa: E402
from s3_suite import ACCESS, BUCKET, SECRET, Server, Silt  # noqa: E402
from trips_data import write_inputs  # noqa: E402

EMPTY_SHA256 = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"  # GET's payload
FULL = "SELECT count(*), sum(trip_id), sum(length(destination)) FROM {t}"
SELECTIVE = ("SELECT count(*), sum(trip_id) FROM {t} WHERE route_id = 'C' "
             "AND trip_id BETWEEN 500000 AND 520000")


def best(fn, repeat):
    times, out = [], None
    for _ in range(repeat):
        start = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - start)
    return min(times), out


def data_files(server, prefix):
    root = server.data / BUCKET / prefix
    live = set()
    for commit in sorted((root / "_delta_log").glob("*.json")):
        for line in commit.read_text().splitlines():
            action = json.loads(line)
            if "add" in action:
                live.add(action["add"]["path"])
            elif "remove" in action:
                live.discard(action["remove"]["path"])
    return sorted(live)


def raw_get(server, prefix, files):
    # '=' of the partition folders percent-encoded, as SigV4's canonical URI has it.
    cfg = "".join(f'url = "http://127.0.0.1:{server.port}/{BUCKET}/{prefix}/{quote(f)}"\n'
                  'output = "/dev/null"\n' for f in files)
    subprocess.run(["curl", "-sS", "--fail", "--aws-sigv4", "aws:amz:us-east-1:s3", "--user",
                    f"{ACCESS}:{SECRET}", "-H", "x-amz-content-sha256: " + EMPTY_SHA256, "-K", "-"], input=cfg, text=True, check=True)


def pyarrow_scan(server, prefix, files, selective):
    import pyarrow.compute as pc
    import pyarrow.dataset as ds
    from pyarrow import fs
    s3 = fs.S3FileSystem(access_key=ACCESS, secret_key=SECRET, region="us-east-1",
                         endpoint_override=f"127.0.0.1:{server.port}", scheme="http")
    paths = [f"{BUCKET}/{prefix}/{f}" for f in files
             if not selective or f.startswith("route_id=C/")]
    dataset = ds.dataset(paths, filesystem=s3, format="parquet")
    if selective:
        table = dataset.to_table(columns=["trip_id"], filter=(pc.field("trip_id") >= 500000) &
                                 (pc.field("trip_id") <= 520000))
        return [table.num_rows, pc.sum(table["trip_id"]).as_py()]
    table = dataset.to_table(columns=["trip_id", "destination"])
    return [table.num_rows, pc.sum(table["trip_id"]).as_py(),
            pc.sum(pc.utf8_length(table["destination"])).as_py()]


WIDE_COLS = 12
WIDE = ("SELECT count(*), sum(a), " + ", ".join(f"sum(length(h{i}))" for i in range(WIDE_COLS))
        + " FROM {t}")


def prefetch_bench(silt, server, repeat, rows):
    """A wide table in a few large files: a row group's column chunks fetched in turn
    (fs.s3a.vectored.active.ranged.reads = 1) against several at once (4, the default)."""
    t = f"delta.`s3://{BUCKET}/wide`"
    cols = ", ".join(f"CAST(xxhash64(id + {i}) AS STRING) AS h{i}" for i in range(WIDE_COLS))
    silt.run(f"SET silt.write.targetFileSize = '512m'; CREATE TABLE {t} USING delta AS "
             f"SELECT id AS a, {cols} FROM range({rows})")
    files = data_files(server, "wide")
    total = sum((server.data / BUCKET / "wide" / f).stat().st_size for f in files)
    raw_s, _ = best(lambda: raw_get(server, "wide", files), repeat)
    print(f"wide table: {rows} rows, {len(files)} data files, {total / 1e6:.1f} MB; raw GET "
          f"{raw_s:.3f} s ({total / raw_s / 1e6:.1f} MB/s)")
    for n in (1, 4):
        sql = f"SET fs.s3a.vectored.active.ranged.reads = {n}; " + WIDE.format(t=t)
        s_s, s_out = best(lambda: silt.rows(sql), repeat)
        proxy = FaultProxy(server.port).start()
        silt.rows(sql, env=dict(silt.env, AWS_ENDPOINT_URL=f"http://127.0.0.1:{proxy.port}"))
        proxy.stop()
        print(f"wide full scan, {n} ranged read(s) at once: {s_s:.3f} s  {s_out[-1]}  "
              f"{len(proxy.requests)} requests, {proxy.bytes_out / 1e6:.1f} MB fetched, "
              f"{total / s_s / (total / raw_s) * 100:.0f}% of raw GET")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--silt", default=str(REPO / "build" / "silt"))
    ap.add_argument("--dir", default="/tmp/silt-s3bench")
    ap.add_argument("--rows", type=int, default=2_000_000)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--wide-rows", type=int, default=150_000)
    args = ap.parse_args()
    work = Path(args.dir)
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    (work / "home").mkdir()
    server = Server(work)
    try:
        silt = Silt(args.silt, work / "home", server.port)
        write_inputs(str(work), args.rows)
        t = f"delta.`s3://{BUCKET}/trips`"
        silt.run(f"CREATE TABLE {t} USING DELTA PARTITIONED BY (route_id) "
                 f"AS SELECT * FROM json.`{work / 'trips.json'}`")
        files = data_files(server, "trips")
        total = sum((server.data / BUCKET / "trips" / f).stat().st_size for f in files)
        print(f"table: {args.rows} rows, {len(files)} data files, {total / 1e6:.1f} MB")
        raw_s, _ = best(lambda: raw_get(server, "trips", files), args.repeat)
        print(f"raw GET (curl):      {raw_s:.3f} s  {total / raw_s / 1e6:8.1f} MB/s")
        for name, sql, selective in (("full", FULL, False), ("selective", SELECTIVE, True)):
            s_s, s_out = best(lambda: silt.rows(sql.format(t=t)), args.repeat)
            p_s, p_out = best(lambda: pyarrow_scan(server, "trips", files, selective),
                              args.repeat)
            proxy = FaultProxy(server.port).start()
            env = dict(silt.env, AWS_ENDPOINT_URL=f"http://127.0.0.1:{proxy.port}")
            silt.rows(sql.format(t=t), env=env)
            proxy.stop()
            gets = [r for r in proxy.requests if r[0] == "GET"]
            print(f"{name:9s} silt:      {s_s:.3f} s  {s_out}  {len(proxy.requests)} requests "
                  f"({len(gets)} GET), {proxy.bytes_out / 1e6:.1f} MB fetched"
                  + (f", {proxy.bytes_out / s_s / 1e6:.1f} MB/s = "
                     f"{proxy.bytes_out / s_s / (total / raw_s) * 100:.0f}% of raw GET"
                     if not selective else ""))
            print(f"{name:9s} pyarrow:   {p_s:.3f} s  {p_out}")
            if ["" if v is None else str(v) for v in p_out] != s_out[-1]:
                print(f"          MISMATCH: silt {s_out[-1]} pyarrow {p_out}")
        if args.wide_rows > 0:
            prefetch_bench(silt, server, args.repeat, args.wide_rows)
    finally:
        server.stop()
    shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
