#!/usr/bin/env python3
"""Tables written by silt's Delta write path, read by delta-rs and Spark.

    txn_log_interop.py TXN_WRITER WORKDIR

TXN_WRITER is tests/interop/txn_writer.c built. silt writes the log
(create, appends into partitions, a delete, a streaming txn id); the data
files are Parquet files written here with pyarrow (silt's Parquet writer is
not on this branch). Then:

  - delta-rs: version(), file_uris(), history() (operations, readVersion,
    isBlindAppend, engineInfo), schema(), protocol(), the rows, time travel,
    transaction_version();
  - Spark with Delta: the rows, DESCRIBE HISTORY, and a Spark append on top
    of the silt table, after which silt reads the new version;
  - tables with deletion vectors / timestamp_ntz / in-commit timestamps /
    column mapping enabled get the protocol delta-rs expects and open.

Runs under <repo>/.peers/venv/bin/python (re-executing itself there). Without
the venv it exits 77 (skip), or 1 when CI=true. Prints "N passed, M failed".
"""
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "tests" / "peers"))
from peers import reexec_in_venv  # noqa: E402

reexec_in_venv(__file__)

import pyarrow as pa  # noqa: E402
import pyarrow.parquet as pq  # noqa: E402
from deltalake import DeltaTable  # noqa: E402

WRITER = sys.argv[1]
WORK = Path(sys.argv[2])
RESULTS = {"passed": 0, "failed": 0}

SCHEMA = json.dumps({"type": "struct", "fields": [
    {"name": "id", "type": "long", "nullable": True, "metadata": {}},
    {"name": "name", "type": "string", "nullable": True, "metadata": {}},
    {"name": "p", "type": "string", "nullable": True, "metadata": {}},
]})


def silt(*args):
    proc = subprocess.run([WRITER, *map(str, args)], capture_output=True, text=True)
    if proc.returncode != 0:
        raise RuntimeError(f"txn_writer {args[0]} failed: {proc.stderr.strip()}")
    return proc.stdout


def check(name, cond, detail=""):
    if cond:
        RESULTS["passed"] += 1
        print(f"ok   {name}")
    else:
        RESULTS["failed"] += 1
        print(f"FAIL {name} {detail}")


def write_file(root, rel, ids, names):
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    pq.write_table(pa.table({"id": pa.array(ids, pa.int64()), "name": pa.array(names, pa.string())}), path)
    stats = json.dumps({"numRecords": len(ids), "minValues": {"id": min(ids)},
                        "maxValues": {"id": max(ids)}, "nullCount": {"id": 0, "name": 0}})
    return path.stat().st_size, stats


def build_main_table(root):
    silt("create", root, SCHEMA, "p", "delta.appendOnly=false")
    size, stats = write_file(root, "p=a/part-0.parquet", [1, 2], ["x", "y"])
    silt("append", root, "p=a/part-0.parquet", size, stats, "p=a")
    size, stats = write_file(root, "p=b/part-1.parquet", [3], ["z"])
    silt("append", root, "p=b/part-1.parquet", size, stats, "p=b")
    size, stats = write_file(root, "p=a/part-2.parquet", [4], ["w"])
    silt("append", root, "p=a/part-2.parquet", size, stats, "p=a")
    silt("remove", root, "p=a/part-0.parquet")


def rows_of(arrow_table):
    return sorted((r["id"], r["name"], r["p"]) for r in arrow_table.to_pylist())


EXPECTED_ROWS = [(3, "z", "b"), (4, "w", "a")]


def test_delta_rs(root):
    dt = DeltaTable(str(root))
    check("delta-rs version", dt.version() == 4, dt.version())
    files = sorted(os.path.relpath(u.replace("file://", ""), root) for u in dt.file_uris())
    check("delta-rs files", files == ["p=a/part-2.parquet", "p=b/part-1.parquet"], files)
    names = [(f.name, str(f.type)) for f in dt.schema().fields]
    check("delta-rs schema", [n for n, _ in names] == ["id", "name", "p"], names)
    check("delta-rs partition columns", dt.metadata().partition_columns == ["p"])
    proto = dt.protocol()
    check("delta-rs protocol", (proto.min_reader_version, proto.min_writer_version) == (1, 2))
    check("delta-rs rows", rows_of(dt.to_pyarrow_table()) == EXPECTED_ROWS,
          rows_of(dt.to_pyarrow_table()))
    hist = dt.history()
    ops = [h.get("operation") for h in hist]
    check("delta-rs history operations", ops == ["DELETE", "WRITE", "WRITE", "WRITE", "CREATE TABLE"], ops)
    newest = hist[0]
    check("delta-rs history readVersion", newest.get("readVersion") == 3, newest)
    check("delta-rs history engineInfo", str(newest.get("engineInfo", "")).startswith("silt/"), newest)
    check("delta-rs history isBlindAppend", hist[1].get("isBlindAppend") is True and
          newest.get("isBlindAppend") is False, hist[:2])
    check("delta-rs history parameters", hist[4].get("operationParameters", {}).get("partitionBy") == '["p"]',
          hist[4])
    old = DeltaTable(str(root), version=2)
    check("delta-rs time travel", rows_of(old.to_pyarrow_table()) == [(1, "x", "a"), (2, "y", "a"), (3, "z", "b")])


def test_features(work):
    cases = [
        ("dv", SCHEMA, ["delta.enableDeletionVectors=true"], (3, 7), "deletionVectors"),
        ("ict", SCHEMA, ["delta.enableInCommitTimestamps=true"], (1, 7), "inCommitTimestamp"),
        ("ntz", json.dumps({"type": "struct", "fields": [
            {"name": "t", "type": "timestamp_ntz", "nullable": True, "metadata": {}}]}), [], (3, 7),
         "timestampNtz"),
        ("mapping", SCHEMA, ["delta.columnMapping.mode=name"], (2, 7), "columnMapping"),
    ]
    for name, schema, props, versions, feature in cases:
        root = work / f"feature-{name}"
        try:
            silt("create", root, schema, "", *props)
            dt = DeltaTable(str(root))
            proto = dt.protocol()
            got = (proto.min_reader_version, proto.min_writer_version)
            ok = got == versions and (feature is None or feature in (proto.writer_features or []))
            check(f"delta-rs opens {name} table", ok and dt.version() == 0, (got, proto))
        except Exception as exc:  # noqa: BLE001 - report and go on
            check(f"delta-rs opens {name} table", False, repr(exc)[:300])


def delta_type(t):
    """A pyarrow type written the way col_type_format writes Delta types."""
    if pa.types.is_struct(t):
        return "struct<" + ",".join(f"{f.name}:{delta_type(f.type)}" for f in t
                                    if not f.name.endswith("_parsed")) + ">"
    if pa.types.is_map(t):
        return f"map<{delta_type(t.key_type)},{delta_type(t.item_type)}>"
    if pa.types.is_list(t):
        return f"array<{delta_type(t.value_type)}>"
    names = {pa.int64(): "long", pa.int32(): "integer", pa.bool_(): "boolean", pa.string(): "string"}
    return names[t]


def test_checkpoint_schema():
    """silt's checkpoint schema is the one Spark writes (shared conformance tables)."""
    ours = silt("checkpoint-schema", WORK / "unused").strip()
    for table in ["basic-with-inserts-deletes-checkpoint", "dv-partitioned-with-checkpoint"]:
        path = (REPO.parent / "shared" / "conformance" / "tables" / table / "_delta_log" /
                "00000000000000000010.checkpoint.parquet")
        if not path.exists():
            check(f"checkpoint schema vs {table}", False, f"missing {path}")
            continue
        theirs = delta_type(pa.struct(list(pq.read_schema(path))))
        check(f"checkpoint schema vs {table}", ours == theirs, f"\nsilt:  {ours}\nspark: {theirs}")


def test_spark_features(spark, work):
    """Spark reads and appends to silt tables with in-commit timestamps and column mapping."""
    root = work / "spark-ict"
    silt("create", root, SCHEMA, "p", "delta.enableInCommitTimestamps=true")
    size, stats = write_file(root, "p=a/part-0.parquet", [1], ["x"])
    silt("append", root, "p=a/part-0.parquet", size, stats, "p=a")
    spark.createDataFrame([(2, "y", "b")], "id long, name string, p string") \
        .write.format("delta").mode("append").save(str(root))
    hist = spark.sql(f"DESCRIBE HISTORY delta.`{root}`").orderBy("version").collect()
    stamps = [h.timestamp for h in hist]
    check("spark ICT table history", [h.version for h in hist] == [0, 1, 2] and stamps == sorted(stamps),
          [(h.version, h.timestamp) for h in hist])
    info = silt("info", root).splitlines()
    check("silt reads Spark's ICT append", info[0] == "version 2 files 2", info)

    root = work / "spark-mapping"
    silt("create", root, SCHEMA, "", "delta.columnMapping.mode=name")
    spark.createDataFrame([(7, "m", "q")], "id long, name string, p string") \
        .write.format("delta").mode("append").save(str(root))
    rows = [(r.id, r.name, r.p) for r in spark.read.format("delta").load(str(root)).collect()]
    check("spark appends to a silt column-mapping table", rows == [(7, "m", "q")], rows)
    dt = DeltaTable(str(root))
    # delta-rs 1.6.6 opens column-mapped tables but its to_pyarrow_table() does not map physical
    # names (Spark-written conformance tables give nulls too): check the log view only.
    check("delta-rs opens the column-mapping table",
          dt.version() == 1 and len(dt.file_uris()) == 1 and
          [f.name for f in dt.schema().fields] == ["id", "name", "p"])
    info = silt("info", root).splitlines()
    check("silt reads the column-mapping table", info[0] == "version 1 files 1", info)


def test_spark(root):
    from peers import spark_session
    spark = spark_session()
    rows = sorted((r.id, r.name, r.p) for r in spark.read.format("delta").load(str(root)).collect())
    check("spark rows", rows == EXPECTED_ROWS, rows)
    hist = spark.sql(f"DESCRIBE HISTORY delta.`{root}`").collect()
    check("spark history", [h.operation for h in hist][:2] == ["DELETE", "WRITE"] and len(hist) == 5,
          [h.operation for h in hist])
    spark.createDataFrame([(5, "v", "c")], "id long, name string, p string") \
        .write.format("delta").mode("append").save(str(root))
    info = silt("info", root).splitlines()
    check("silt reads Spark's append", info[0] == "version 5 files 3", info)
    test_spark_features(spark, WORK)


def main():
    if WORK.exists():
        shutil.rmtree(WORK)
    WORK.mkdir(parents=True)
    root = WORK / "main"
    build_main_table(root)
    test_delta_rs(root)
    test_features(WORK)
    test_checkpoint_schema()
    if os.environ.get("SILT_SKIP_SPARK") != "1":
        test_spark(root)
    print(f"{RESULTS['passed']} passed, {RESULTS['failed']} failed")
    return 1 if RESULTS["failed"] else 0


if __name__ == "__main__":
    sys.exit(main())
