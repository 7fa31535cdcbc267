#!/usr/bin/env python3
"""Writes the seed corpus of fuzz_parquet (fuzz/corpus/parquet/).

Small files made with pyarrow covering the reader's paths: every physical
type, logical types, nulls, nested lists/maps/structs, dictionary and delta
encodings, each codec, data pages v1 and v2; plus a few damaged copies
(truncated, flipped bytes) so the error paths are seeded too.

    .peers/venv/bin/python fuzz/make_parquet_corpus.py fuzz/corpus/parquet
"""
import datetime
import decimal
import os
import random
import sys

import pyarrow as pa
import pyarrow.parquet as pq


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    n = 20
    flat = pa.table({
        "b": pa.array([i % 3 == 0 if i % 5 else None for i in range(n)]),
        "i8": pa.array([i - 10 for i in range(n)], pa.int8()),
        "u32": pa.array([i * 1000 for i in range(n)], pa.uint32()),
        "i64": pa.array([None if i % 4 == 0 else i * 10**12 for i in range(n)], pa.int64()),
        "f": pa.array([i / 3 for i in range(n)], pa.float32()),
        "d": pa.array([i / 7 for i in range(n)], pa.float64()),
        "dec": pa.array([decimal.Decimal(i).scaleb(-2) for i in range(n)], pa.decimal128(7, 2)),
        "s": pa.array(["v%d" % (i % 4) for i in range(n)]),
        "empty": pa.array(["" if i % 3 else None for i in range(n)]),
        "bin": pa.array([bytes([i]) * (i % 3) for i in range(n)]),
        "fx": pa.array([bytes([i, i]) for i in range(n)], pa.binary(2)),
        "date": pa.array([datetime.date(2020, 1, 1 + i % 28) for i in range(n)]),
        "ts": pa.array([i * 1000 for i in range(n)], pa.timestamp("ms", tz="UTC")),
        "ns": pa.array([i * 1001 for i in range(n)], pa.timestamp("ns")),
    })
    nested = pa.table({
        "l": pa.array([[j for j in range(i % 3)] if i % 4 else None for i in range(n)], pa.list_(pa.int32())),
        "ll": pa.array([[[i, None]] * (i % 2) for i in range(n)], pa.list_(pa.list_(pa.int16()))),
        "m": pa.array([[("k%d" % j, j) for j in range(i % 3)] for i in range(n)], pa.map_(pa.string(), pa.int64())),
        "st": pa.array([{"a": i, "b": {"c": "x" if i % 2 else None}} for i in range(n)]),
    })
    files = []
    for codec in ["NONE", "SNAPPY", "GZIP", "ZSTD", "LZ4", "BROTLI"]:
        name = os.path.join(out, "flat_%s.parquet" % codec.lower())
        pq.write_table(flat, name, compression=codec, row_group_size=10)
        files.append(name)
    for version in ["1.0", "2.0"]:
        name = os.path.join(out, "nested_v%s.parquet" % version)
        pq.write_table(nested, name, data_page_version=version, compression="NONE")
        files.append(name)
    name = os.path.join(out, "delta.parquet")
    pq.write_table(flat.select(["i64", "s", "bin"]), name, use_dictionary=False, compression="NONE",
                   column_encoding={"i64": "DELTA_BINARY_PACKED", "s": "DELTA_BYTE_ARRAY",
                                    "bin": "DELTA_LENGTH_BYTE_ARRAY"})
    files.append(name)
    name = os.path.join(out, "bss.parquet")
    pq.write_table(flat.select(["f", "d", "fx"]), name, use_dictionary=False, compression="NONE",
                   column_encoding={"f": "BYTE_STREAM_SPLIT", "d": "BYTE_STREAM_SPLIT",
                                    "fx": "BYTE_STREAM_SPLIT"})
    files.append(name)
    rnd = random.Random(1)
    for idx, src in enumerate([files[0], files[6], files[8]]):
        data = bytearray(open(src, "rb").read())
        with open(os.path.join(out, "truncated_%d.parquet" % idx), "wb") as f:
            f.write(data[: len(data) * 2 // 3] + data[-8:])
        for flip in range(3):
            copy = bytearray(data)
            for _ in range(4):
                copy[rnd.randrange(4, len(copy) - 8)] ^= 1 << rnd.randrange(8)
            with open(os.path.join(out, "flipped_%d_%d.parquet" % (idx, flip)), "wb") as f:
                f.write(copy)


if __name__ == "__main__":
    main()
