#!/usr/bin/env python3
"""pyarrow data written into Delta tables through silt's C API, read by peers.

    arrow_write.py LIBSILT_SO WORKDIR

LIBSILT_SO is libsilt.so, loaded with ctypes. pyarrow tables are handed to
silt_conn_write_arrow through the Arrow C stream interface, both ways
pyarrow offers (RecordBatchReader._export_to_c and the __arrow_c_stream__
PyCapsule), as a new table, appends, a refused and an accepted mergeSchema
append, overwrites (whole, replaceWhere, dynamic partitions) and a stream
that fails midway. After each step:

  - delta-rs (deltalake) reads the rows, schema, partition columns and
    history (operation and mode);
  - DuckDB reads the live data files delta-rs lists (read_parquet with hive
    partitioning; DuckDB's delta extension is not installable offline);
  - silt reads the table back through silt_conn_exec as an Arrow stream.

Finally delta-rs appends to the silt-written table and silt reads it.

Runs under <repo>/.peers/venv/bin/python (re-executing itself there). Without
the venv it exits 77 (skip), or 1 when CI=true. Prints "N passed, M failed".
"""
import ctypes
import datetime as dt
import decimal
import shutil
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "tests" / "peers"))
from peers import reexec_in_venv  # noqa: E402

reexec_in_venv(__file__)

import pyarrow as pa  # noqa: E402
from deltalake import DeltaTable, write_deltalake  # noqa: E402
from peers import duckdb_connect  # noqa: E402

LIB = ctypes.CDLL(sys.argv[1])
WORK = Path(sys.argv[2])
RESULTS = {"passed": 0, "failed": 0}

SAVE = {"errorifexists": 0, "append": 1, "overwrite": 2, "ignore": 3}


class WriteOptions(ctypes.Structure):
    """silt_write_options (include/silt/write.h), version 2."""
    _fields_ = [("version", ctypes.c_uint), ("mode", ctypes.c_int),
                ("merge_schema", ctypes.c_int), ("overwrite_schema", ctypes.c_int),
                ("replace_where", ctypes.c_char_p),
                ("partition_overwrite_mode", ctypes.c_char_p),
                ("partition_by", ctypes.POINTER(ctypes.c_char_p)),
                ("n_partition_by", ctypes.c_size_t),
                ("user_metadata", ctypes.c_char_p)]


class ArrowArrayStream(ctypes.Structure):
    _fields_ = [("get_schema", ctypes.c_void_p), ("get_next", ctypes.c_void_p),
                ("get_last_error", ctypes.c_void_p), ("release", ctypes.c_void_p),
                ("private_data", ctypes.c_void_p)]


LIB.silt_db_open.argtypes = [ctypes.POINTER(ctypes.c_void_p), ctypes.c_char_p, ctypes.c_void_p]
LIB.silt_conn_open.argtypes = [ctypes.POINTER(ctypes.c_void_p), ctypes.c_void_p]
LIB.silt_conn_write_arrow.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p,
                                      ctypes.POINTER(WriteOptions)]
LIB.silt_conn_exec.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]
LIB.silt_conn_errmsg.argtypes = [ctypes.c_void_p]
LIB.silt_conn_errmsg.restype = ctypes.c_char_p
LIB.silt_conn_close.argtypes = [ctypes.c_void_p]
LIB.silt_db_close.argtypes = [ctypes.c_void_p]
PyCapsule_GetPointer = ctypes.pythonapi.PyCapsule_GetPointer
PyCapsule_GetPointer.restype = ctypes.c_void_p
PyCapsule_GetPointer.argtypes = [ctypes.py_object, ctypes.c_char_p]


def check(name, cond, detail=""):
    if cond:
        RESULTS["passed"] += 1
        print(f"ok   {name}")
    else:
        RESULTS["failed"] += 1
        print(f"FAIL {name} {detail}")


class Silt:
    def __init__(self):
        self.db = ctypes.c_void_p()
        self.conn = ctypes.c_void_p()
        assert LIB.silt_db_open(ctypes.byref(self.db), None, None) == 0
        assert LIB.silt_conn_open(ctypes.byref(self.conn), self.db) == 0

    def close(self):
        LIB.silt_conn_close(self.conn)
        LIB.silt_db_close(self.db)

    def write(self, target, data, mode="errorifexists", capsule=False, merge_schema=False,
              replace_where=None, partition_overwrite_mode=None, partition_by=(),
              user_metadata=None):
        opts = WriteOptions(2, SAVE[mode], int(merge_schema), 0,
                            replace_where.encode() if replace_where else None,
                            partition_overwrite_mode.encode() if partition_overwrite_mode
                            else None, None, len(partition_by),
                            user_metadata.encode() if user_metadata else None)
        names = (ctypes.c_char_p * (len(partition_by) + 1))(*[p.encode() for p in partition_by])
        opts.partition_by = ctypes.cast(names, ctypes.POINTER(ctypes.c_char_p))
        if capsule:
            cap = data.__arrow_c_stream__()
            ptr = PyCapsule_GetPointer(cap, b"arrow_array_stream")
            rc = LIB.silt_conn_write_arrow(self.conn, str(target).encode(), ptr,
                                           ctypes.byref(opts))
            released = ArrowArrayStream.from_address(ptr).release is None
            del cap
        else:
            stream = ArrowArrayStream()
            reader = data if isinstance(data, pa.RecordBatchReader) else \
                pa.RecordBatchReader.from_batches(data.schema, data.to_batches(max_chunksize=3))
            reader._export_to_c(ctypes.addressof(stream))
            rc = LIB.silt_conn_write_arrow(self.conn, str(target).encode(),
                                           ctypes.addressof(stream), ctypes.byref(opts))
            released = stream.release is None
        check(f"stream released ({mode})", released)
        return rc, LIB.silt_conn_errmsg(self.conn).decode()

    def query(self, sql):
        stream = ArrowArrayStream()
        rc = LIB.silt_conn_exec(self.conn, sql.encode(), ctypes.addressof(stream))
        if rc != 0:
            raise RuntimeError(LIB.silt_conn_errmsg(self.conn).decode())
        return pa.RecordBatchReader._import_from_c(ctypes.addressof(stream)).read_all()


def types_table(start, n):
    ids = list(range(start, start + n))
    some = [None if i % 4 == 1 else i for i in ids]
    return pa.table({
        "id": pa.array(ids, pa.int64()),
        "i8": pa.array([None if v is None else v % 100 - 50 for v in some], pa.int8()),
        "i16": pa.array([None if v is None else v * 100 for v in some], pa.int16()),
        "i32": pa.array([None if v is None else -v * 1000 for v in some], pa.int32()),
        "f32": pa.array([None if v is None else v / 4 for v in some], pa.float32()),
        "f64": pa.array([None if v is None else v / 8 for v in some], pa.float64()),
        "flag": pa.array([None if v is None else v % 2 == 0 for v in some], pa.bool_()),
        "dec": pa.array([None if v is None else decimal.Decimal(v) / 100 for v in some],
                        pa.decimal128(12, 2)),
        "s": pa.array([None if v is None else f"name-{v}" for v in some], pa.string()),
        "ls": pa.array([None if v is None else "é" * (v % 5) for v in some], pa.large_string()),
        "bin": pa.array([None if v is None else bytes([v % 256, 0]) for v in some], pa.binary()),
        "day": pa.array([None if v is None else dt.date(2024, 1, 1) + dt.timedelta(days=v)
                         for v in some], pa.date32()),
        "ts": pa.array([None if v is None else 1_700_000_000_000_000 + v for v in some],
                       pa.timestamp("us", tz="UTC")),
        "ts_ms": pa.array([None if v is None else 1_700_000_000_000 + v for v in some],
                          pa.timestamp("ms", tz="Europe/Paris")),
        "ntz": pa.array([None if v is None else 1_700_000_000_000_000_000 + v * 1000
                         for v in some], pa.timestamp("ns")),
        "st": pa.array([None if v is None else {"a": v, "b": f"x{v}"} for v in some],
                       pa.struct([("a", pa.int32()), ("b", pa.string())])),
        "lst": pa.array([None if v is None else [v, None, v + 1] for v in some],
                        pa.list_(pa.int64())),
        "llst": pa.array([None if v is None else [f"e{v}"] * (v % 3) for v in some],
                         pa.large_list(pa.string())),
        "m": pa.array([None if v is None else [("k", float(v)), ("z", None)] for v in some],
                      pa.map_(pa.string(), pa.float64())),
        "city": pa.array([["Paris", "Tokyo", None][i % 3] for i in ids]).dictionary_encode(),
        "p": pa.array([f"g{i % 3}" for i in ids], pa.string()),
    })


def expected_rows(table):
    """What a reader of the Delta table gets: ns -> us, dictionary -> plain, zones -> UTC."""
    rows = []
    for r in table.to_pylist():
        r = dict(r)
        for k, v in list(r.items()):
            if isinstance(v, dt.datetime) and v.tzinfo is not None:
                r[k] = v.astimezone(dt.timezone.utc)
        if r.get("m") is not None:
            r["m"] = sorted(r["m"])
        rows.append(r)
    return sorted(rows, key=lambda r: r["id"])


def normalize(table):
    rows = []
    for r in table.to_pylist():
        r = dict(r)
        for k, v in list(r.items()):
            if isinstance(v, dt.datetime) and v.tzinfo is not None:
                r[k] = v.astimezone(dt.timezone.utc)
            if hasattr(v, "to_pydatetime"):
                r[k] = v.to_pydatetime()
        if r.get("m") is not None:
            r["m"] = sorted(r["m"])
        rows.append(r)
    return sorted(rows, key=lambda r: r["id"])


def delta_rows(path, columns=None):
    return normalize(DeltaTable(str(path)).to_pyarrow_table(columns=columns))


def history_ops(path):
    return [(h.get("operation"), (h.get("operationParameters") or {}).get("mode"))
            for h in reversed(DeltaTable(str(path)).history())]


def duckdb_count_sum(path):
    files = [u.replace("file://", "") for u in DeltaTable(str(path)).file_uris()]
    con = duckdb_connect()
    row = con.execute("SELECT count(*), sum(id) FROM read_parquet(?, hive_partitioning = true, "
                      "union_by_name = true)", [files]).fetchone()
    return tuple(row)


def main():
    shutil.rmtree(WORK, ignore_errors=True)
    WORK.mkdir(parents=True)
    silt = Silt()
    path = WORK / "events"
    first = types_table(0, 10)

    # A new table (mode errorifexists, the default), partitioned.
    rc, msg = silt.write(path, first, partition_by=["p"], user_metadata="first load")
    check("create: ok", rc == 0, msg)
    dtab = DeltaTable(str(path))
    check("create: delta-rs version 0", dtab.version() == 0, dtab.version())
    check("create: partition columns", dtab.metadata().partition_columns == ["p"])
    types = {f.name: str(f.type) for f in dtab.schema().fields}
    want_types = {"i8": "PrimitiveType(\"byte\")", "ls": "PrimitiveType(\"string\")",
                  "ntz": "PrimitiveType(\"timestamp_ntz\")", "ts_ms": "PrimitiveType(\"timestamp\")",
                  "city": "PrimitiveType(\"string\")", "dec": "PrimitiveType(\"decimal(12,2)\")"}
    check("create: Delta types", all(types.get(k) == v for k, v in want_types.items()), types)
    got = delta_rows(path)
    want = expected_rows(first.set_column(first.schema.get_field_index("city"), "city",
                                          first["city"].cast(pa.string())))
    check("create: delta-rs rows", got == want,
          next(((g, w) for g, w in zip(got, want) if g != w), (len(got), len(want))))
    # As Spark's df.write.partitionBy("p").save(path) records it.
    check("create: history", history_ops(path) == [("WRITE", "ErrorIfExists")],
          history_ops(path))
    first_commit = DeltaTable(str(path)).history()[-1]
    check("create: partitionBy and userMetadata",
          first_commit.get("operationParameters", {}).get("partitionBy") == '["p"]' and
          first_commit.get("userMetadata") == "first load", first_commit)
    check("create: duckdb", duckdb_count_sum(path) == (10, 45), duckdb_count_sum(path))
    rc, msg = silt.write(path, first)
    check("errorifexists refuses", rc == 11 and "DELTA_TABLE_ALREADY_EXISTS" in msg, msg)

    # Appends, through both ways of exporting a stream.
    rc, msg = silt.write(path, types_table(10, 5), mode="append", capsule=True)
    check("append (capsule): ok", rc == 0, msg)
    rc, msg = silt.write(path, types_table(15, 5).select(["p", "s", "id"]), mode="append")
    check("append (fewer columns, by name): ok", rc == 0, msg)
    rows = delta_rows(path, ["id", "s", "i8"])
    check("append: delta-rs count", len(rows) == 20, len(rows))
    check("append: missing columns null", all(r["i8"] is None for r in rows if r["id"] >= 15))
    check("append: history", history_ops(path)[1:] == [("WRITE", "Append")] * 2,
          history_ops(path))
    check("append: duckdb", duckdb_count_sum(path) == (20, 190), duckdb_count_sum(path))
    silt_back = silt.query(f"SELECT count(*) AS n, sum(id) AS s, count(ntz) AS t FROM "
                           f"delta.`{path}`").to_pylist()
    check("append: silt reads", silt_back == [{"n": 20, "s": 190, "t": 11}], silt_back)

    # mergeSchema: refused without, accepted with.
    extra = pa.table({"id": pa.array([100, 101], pa.int64()), "p": ["g0", "g1"],
                      "origin": ["Boston", None]})
    rc, msg = silt.write(path, extra, mode="append")
    check("new column refused", rc != 0 and "schema mismatch" in msg, msg)
    check("new column refused: no new version", DeltaTable(str(path)).version() == 2)
    rc, msg = silt.write(path, extra, mode="append", merge_schema=True)
    check("mergeSchema: ok", rc == 0, msg)
    names = [f.name for f in DeltaTable(str(path)).schema().fields]
    check("mergeSchema: column at the end", names[-1] == "origin", names)
    rows = delta_rows(path, ["id", "origin"])
    check("mergeSchema: old rows null",
          all(r["origin"] is None for r in rows if r["id"] < 100) and
          [r["origin"] for r in rows if r["id"] >= 100] == ["Boston", None], rows[-3:])

    # Overwrite: dynamic partitions, replaceWhere, then everything.
    g1 = pa.table({"id": pa.array([500], pa.int64()), "p": ["g1"]})
    rc, msg = silt.write(path, g1, mode="overwrite", partition_overwrite_mode="dynamic")
    check("dynamic overwrite: ok", rc == 0, msg)
    rows = delta_rows(path, ["id", "p"])
    check("dynamic overwrite: only g1 replaced",
          [r["id"] for r in rows if r["p"] == "g1"] == [500] and
          len([r for r in rows if r["p"] == "g0"]) == 8, rows)
    g2 = pa.table({"id": pa.array([600, 601], pa.int64()), "p": ["g2", "g2"]})
    rc, msg = silt.write(path, g2, mode="overwrite", replace_where="p = 'g2'")
    check("replaceWhere: ok", rc == 0, msg)
    rows = delta_rows(path, ["id", "p"])
    check("replaceWhere: g2 replaced", sorted(r["id"] for r in rows if r["p"] == "g2") ==
          [600, 601], rows)
    rc, msg = silt.write(path, types_table(0, 3), mode="overwrite")
    check("overwrite: ok", rc == 0, msg)
    check("overwrite: rows", [r["id"] for r in delta_rows(path, ["id"])] == [0, 1, 2])
    check("overwrite: history modes", [m for _, m in history_ops(path)[-3:]] ==
          ["Overwrite"] * 3, history_ops(path))
    check("overwrite: duckdb", duckdb_count_sum(path) == (3, 3), duckdb_count_sum(path))

    # A stream that fails midway: an error naming the producer's message, no new version.
    version = DeltaTable(str(path)).version()

    def failing():
        yield pa.record_batch([pa.array([7], pa.int64()), pa.array(["g0"])], names=["id", "p"])
        raise ValueError("the sensor feed dropped")
    reader = pa.RecordBatchReader.from_batches(
        pa.schema([("id", pa.int64()), ("p", pa.string())]), failing())
    rc, msg = silt.write(path, reader, mode="append")
    check("failing stream: error", rc == 2 and "sensor feed dropped" in msg, msg)
    check("failing stream: table unchanged", DeltaTable(str(path)).version() == version)

    # An Arrow type without a Delta type.
    rc, msg = silt.write(path, pa.table({"id": pa.array([1], pa.uint64())}), mode="append")
    check("uint64 refused", rc == 6 and "\"L\"" in msg, msg)

    # delta-rs writes after silt; silt reads it.
    write_deltalake(str(path), pa.table({"id": pa.array([9000], pa.int64()), "p": ["g9"]}),
                    mode="append", schema_mode="merge")
    back = silt.query(f"SELECT id FROM delta.`{path}` WHERE p = 'g9'").to_pylist()
    check("delta-rs append read by silt", back == [{"id": 9000}], back)
    silt.close()
    print(f"{RESULTS['passed']} passed, {RESULTS['failed']} failed")
    return 1 if RESULTS["failed"] else 0


if __name__ == "__main__":
    sys.exit(main())
