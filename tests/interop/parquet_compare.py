#!/usr/bin/env python3
"""Compares what `silt parquet cat` reads with what pyarrow reads.

    parquet_compare.py SILT_BIN FILE|DIR...      compare the given files (all
                                                 *.parquet of a DIR)
    parquet_compare.py SILT_BIN --generate DIR   write files with pyarrow and
                                                 DuckDB (every type, codec and
                                                 page version they can write),
                                                 then compare them all

Both sides are rendered in the canonical JSON-lines row format of
../shared/conformance/README.md and compared row by row, in file order.
Timestamps are compared without their zone suffix (INT96 columns have no
zone in pyarrow), everything else exactly. Needs pyarrow (and duckdb for
--generate) from <repo>/.peers/venv; when they are missing the script
fails if CI=true and skips (exit 77) otherwise.
"""
import datetime
import decimal
decimal.getcontext().prec = 80
import json
import math
import os
import struct
import subprocess
import sys

def reexec_in_peers_venv():
    """Runs under <repo>/.peers/venv's python when started by another one."""
    repo = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    venv_python = os.path.join(repo, ".peers", "venv", "bin", "python")
    if os.path.exists(venv_python) and os.path.realpath(sys.prefix) != os.path.realpath(os.path.join(repo, ".peers", "venv")):
        os.execv(venv_python, [venv_python] + sys.argv)


reexec_in_peers_venv()

try:
    import pyarrow as pa
    import pyarrow.parquet as pq
except ImportError:
    print("pyarrow is not installed (run scripts/setup-peers.sh)")
    sys.exit(1 if os.environ.get("CI") == "true" else 77)


def js_number(text):
    """Lays out a shortest round-trip repr the way JavaScript's toString does."""
    sign = ""
    if text.startswith("-"):
        sign, text = "-", text[1:]
    mant, _, exp = text.partition("e")
    exp = int(exp) if exp else 0
    intpart, _, frac = mant.partition(".")
    digits = (intpart + frac).lstrip("0")
    point = len(intpart) + exp - (len(intpart + frac) - len((intpart + frac).lstrip("0")))
    digits = digits.rstrip("0")
    if not digits:
        return sign + "0"
    k = len(digits)
    if k <= point <= 21:
        return sign + digits + "0" * (point - k)
    if 0 < point <= 21:
        return sign + digits[:point] + "." + digits[point:]
    if -6 < point <= 0:
        return sign + "0." + "0" * (-point) + digits
    e = point - 1
    return sign + digits[0] + ("." + digits[1:] if k > 1 else "") + "e" + ("+" if e >= 0 else "-") + str(abs(e))


def fmt_real(x, is_float):
    if math.isnan(x):
        return '"NaN"'
    if math.isinf(x):
        return '"Infinity"' if x > 0 else '"-Infinity"'
    if x == 0:
        return "-0" if math.copysign(1, x) < 0 else "0"
    if is_float:
        for prec in range(1, 18):
            text = "%.*e" % (prec - 1, x)
            if struct.unpack("f", struct.pack("f", float(text)))[0] == x:
                return js_number(text)
    return js_number(repr(x))


def fmt(value, typ):
    if value is None:
        return "null"
    if pa.types.is_boolean(typ):
        return "true" if value else "false"
    if pa.types.is_integer(typ):
        if pa.types.is_uint64(typ):
            return '"%d"' % value
        return str(value)
    if pa.types.is_floating(typ):
        return fmt_real(float(value), not pa.types.is_float64(typ))
    if pa.types.is_decimal(typ):
        q = decimal.Decimal(1).scaleb(-typ.scale)
        text = format(value.quantize(q), "f") if typ.scale > 0 else str(int(value))
        return json.dumps(text)
    if pa.types.is_string(typ) or pa.types.is_large_string(typ):
        return json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    if pa.types.is_binary(typ) or pa.types.is_large_binary(typ) or pa.types.is_fixed_size_binary(typ):
        return '"%s"' % bytes(value).hex()
    if pa.types.is_date(typ):
        return '"%s"' % value.isoformat()
    if pa.types.is_timestamp(typ):
        return '"%s"' % value.strftime("%Y-%m-%dT%H:%M:%S.%f")
    if pa.types.is_time(typ):
        return str(value)
    if pa.types.is_struct(typ):
        parts = []
        for idx in range(typ.num_fields):
            field = typ.field(idx)
            parts.append(json.dumps(field.name) + ":" + fmt(value.get(field.name), field.type))
        return "{" + ",".join(parts) + "}"
    if pa.types.is_map(typ):
        pairs = ["[" + fmt(k, typ.key_type) + "," + fmt(v, typ.item_type) + "]" for k, v in value]
        pairs.sort(key=lambda p: p.encode())
        return "[" + ",".join(pairs) + "]"
    if pa.types.is_list(typ) or pa.types.is_large_list(typ) or pa.types.is_fixed_size_list(typ):
        return "[" + ",".join(fmt(v, typ.value_type) for v in value) + "]"
    if pa.types.is_null(typ):
        return "null"
    raise ValueError("type %s is not handled" % typ)


def normalise(table):
    """Casts the columns to the values silt produces (micros, UTC, ...)."""
    cols = []
    for col in table.columns:
        cols.append(cast_column(col))
    return pa.table(cols, names=table.column_names)


def cast_type(typ):
    if pa.types.is_timestamp(typ):
        return pa.timestamp("us")
    if pa.types.is_time(typ):
        return pa.int64()
    if pa.types.is_float16(typ):
        return pa.float32()
    if pa.types.is_dictionary(typ):
        return cast_type(typ.value_type)
    if pa.types.is_struct(typ):
        return pa.struct([pa.field(f.name, cast_type(f.type)) for f in typ])
    if pa.types.is_map(typ):
        return pa.map_(cast_type(typ.key_type), cast_type(typ.item_type))
    if pa.types.is_list(typ) or pa.types.is_large_list(typ):
        return pa.list_(cast_type(typ.value_type))
    return typ


def time_micros(col):
    unit = col.type.unit
    ints = col.cast(pa.int64() if col.type.bit_width == 64 else pa.int32()).cast(pa.int64())
    factor = {"s": 1000000, "ms": 1000, "us": 1, "ns": 0}[unit]
    if factor == 0:
        return pa.array([None if v is None else v // 1000 for v in ints.to_pylist()], pa.int64())
    return pa.array([None if v is None else v * factor for v in ints.to_pylist()], pa.int64())


def cast_column(col):
    col = col.combine_chunks() if isinstance(col, pa.ChunkedArray) else col
    typ = col.type
    if pa.types.is_time(typ):
        return time_micros(col)
    if pa.types.is_timestamp(typ):
        ints = col.cast(pa.int64())
        div = {"s": None, "ms": None, "us": 1, "ns": 1000}[typ.unit]
        mul = {"s": 1000000, "ms": 1000, "us": 1, "ns": 1}[typ.unit]
        vals = [None if v is None else (v // div if div else v * mul) for v in ints.to_pylist()]
        return pa.array(vals, pa.int64()).cast(pa.timestamp("us"))
    target = cast_type(typ)
    if target != typ:
        return col.cast(target)
    return col


def read_reference(path):
    """DuckDB reads the files DuckDB wrote (pyarrow trips on some of them), pyarrow the rest."""
    if os.path.basename(path).startswith("duck_"):
        import duckdb
        con = duckdb.connect()
        res = con.sql("SELECT * FROM read_parquet('%s')" % path)
        for method in ("to_arrow_table", "fetch_arrow_table", "arrow"):
            if hasattr(res, method):
                table = getattr(res, method)()
                return table if isinstance(table, pa.Table) else table.read_all()
        raise ValueError("this duckdb has no arrow export")
    return pq.read_table(path, coerce_int96_timestamp_unit="us")


def pyarrow_rows(path):
    table = normalise(read_reference(path))
    names = table.column_names
    lines = []
    for row in table.to_pylist():
        parts = []
        for idx, name in enumerate(names):
            parts.append(json.dumps(name) + ":" + fmt(row[name], table.schema.field(idx).type))
        lines.append("{" + ",".join(parts) + "}")
    return lines


def strip_zone(line):
    return line.replace('Z"', '"')


# Files silt refuses on purpose, with a fragment of the message it must give.
REFUSED = {
    "large_string_map.brotli.parquet": "is over the limit of",
}


def compare(silt, path):
    proc = subprocess.run([silt, "parquet", "cat", path], capture_output=True, text=True)
    refusal = REFUSED.get(os.path.basename(path))
    if refusal is not None:
        if proc.returncode == 1 and refusal in proc.stderr:
            return None
        return "expected silt to refuse it with %r, got exit %d: %s" % (refusal, proc.returncode, proc.stderr.strip())
    if proc.returncode != 0:
        return "silt failed: " + proc.stderr.strip()
    got = [strip_zone(l) for l in proc.stdout.splitlines()]
    try:
        want = [strip_zone(l) for l in pyarrow_rows(path)]
    except (pa.ArrowException, ValueError, OverflowError, OSError) as e:
        print("skip %s: pyarrow cannot read it (%s)" % (os.path.basename(path), e))
        return None
    if len(got) != len(want):
        return "silt read %d rows, pyarrow %d" % (len(got), len(want))
    for idx, (g, w) in enumerate(zip(got, want)):
        if g != w:
            return "row %d differs:\n  silt:    %s\n  pyarrow: %s" % (idx, g[:600], w[:600])
    return None


def generate(folder):
    """Writes files covering the types, codecs and page versions the peers can write."""
    import random
    rnd = random.Random(7)
    n = 2000
    def maybe(v, i):
        return None if i % 7 == 3 else v
    data = {
        "b": pa.array([maybe(i % 3 == 0, i) for i in range(n)], pa.bool_()),
        "i8": pa.array([maybe(rnd.randint(-128, 127), i) for i in range(n)], pa.int8()),
        "i16": pa.array([maybe(rnd.randint(-32768, 32767), i) for i in range(n)], pa.int16()),
        "i32": pa.array([maybe(rnd.randint(-2**31, 2**31 - 1), i) for i in range(n)], pa.int32()),
        "i64": pa.array([maybe(rnd.randint(-2**63, 2**63 - 1), i) for i in range(n)], pa.int64()),
        "u8": pa.array([maybe(rnd.randint(0, 255), i) for i in range(n)], pa.uint8()),
        "u16": pa.array([maybe(rnd.randint(0, 65535), i) for i in range(n)], pa.uint16()),
        "u32": pa.array([maybe(rnd.randint(0, 2**32 - 1), i) for i in range(n)], pa.uint32()),
        "u64": pa.array([maybe(rnd.randint(0, 2**64 - 1), i) for i in range(n)], pa.uint64()),
        "f32": pa.array([maybe(rnd.uniform(-1e6, 1e6), i) for i in range(n)], pa.float32()),
        "f64": pa.array([maybe(rnd.uniform(-1e300, 1e300), i) for i in range(n)], pa.float64()),
        "dec9": pa.array([maybe(decimal.Decimal(rnd.randint(-10**8, 10**8)).scaleb(-3), i) for i in range(n)], pa.decimal128(9, 3)),
        "dec18": pa.array([maybe(decimal.Decimal(rnd.randint(-10**17, 10**17)).scaleb(-5), i) for i in range(n)], pa.decimal128(18, 5)),
        "dec38": pa.array([maybe(decimal.Decimal(rnd.randint(-10**37, 10**37)).scaleb(-10), i) for i in range(n)], pa.decimal128(38, 10)),
        "s": pa.array([maybe("v%d-%s" % (rnd.randint(0, 50), "é" * (i % 4)), i) for i in range(n)], pa.string()),
        "bin": pa.array([maybe(bytes([rnd.randint(0, 255) for _ in range(i % 9)]), i) for i in range(n)], pa.binary()),
        "fixed": pa.array([maybe(bytes([rnd.randint(0, 255) for _ in range(4)]), i) for i in range(n)], pa.binary(4)),
        "d": pa.array([maybe(datetime.date(1900, 1, 1) + datetime.timedelta(days=rnd.randint(0, 80000)), i) for i in range(n)], pa.date32()),
        "ts_ms": pa.array([maybe(rnd.randint(-2**40, 2**40), i) for i in range(n)], pa.timestamp("ms", tz="UTC")),
        "ts_us": pa.array([maybe(rnd.randint(-2**50, 2**50), i) for i in range(n)], pa.timestamp("us", tz="UTC")),
        "ts_ns": pa.array([maybe(rnd.randint(-2**62, 2**62), i) for i in range(n)], pa.timestamp("ns")),
        "t_ms": pa.array([maybe(rnd.randint(0, 86399999), i) for i in range(n)], pa.time32("ms")),
        "t_us": pa.array([maybe(rnd.randint(0, 86399999999), i) for i in range(n)], pa.time64("us")),
        "lst": pa.array([maybe([maybe(rnd.randint(0, 9), j) for j in range(i % 5)], i) for i in range(n)], pa.list_(pa.int32())),
        "nested": pa.array([maybe([[maybe("x%d" % j, j + k) for j in range(k % 3)] for k in range(i % 4)], i) for i in range(n)], pa.list_(pa.list_(pa.string()))),
        "st": pa.array([maybe({"a": maybe(i, i + 1), "b": maybe("s%d" % i, i + 2), "c": {"d": maybe(i * 2, i + 3)}}, i) for i in range(n)],
                       pa.struct([("a", pa.int64()), ("b", pa.string()), ("c", pa.struct([("d", pa.int32())]))])),
        "m": pa.array([maybe([("k%d" % j, maybe(j, i + j)) for j in range(i % 4)], i) for i in range(n)], pa.map_(pa.string(), pa.int32())),
        "lst_st": pa.array([maybe([{"x": maybe(j, j + i), "y": [j] * (j % 3)} for j in range(i % 3)], i) for i in range(n)],
                           pa.list_(pa.struct([("x", pa.int16()), ("y", pa.list_(pa.int64()))]))),
    }
    table = pa.table(data)
    paths = []
    for codec in ["NONE", "SNAPPY", "GZIP", "ZSTD", "LZ4", "BROTLI"]:
        for version in ["1.0", "2.0"]:
            for dictionary in [True, False]:
                name = os.path.join(folder, "pa_%s_v%s_%s.parquet" % (codec.lower(), version, "dict" if dictionary else "plain"))
                pq.write_table(table, name, compression=codec, data_page_version=version,
                               use_dictionary=dictionary, row_group_size=1000, data_page_size=4096)
                paths.append(name)
    # Encodings pyarrow writes on request (flat columns only).
    enc_table = pa.table({k: data[k] for k in ["i32", "i64", "s", "bin", "f32", "f64", "fixed"]})
    name = os.path.join(folder, "pa_delta.parquet")
    pq.write_table(enc_table.select(["i32", "i64"]), name, use_dictionary=False,
                   column_encoding={"i32": "DELTA_BINARY_PACKED", "i64": "DELTA_BINARY_PACKED"})
    paths.append(name)
    name = os.path.join(folder, "pa_delta_bytes.parquet")
    pq.write_table(enc_table.select(["s", "bin"]), name, use_dictionary=False,
                   column_encoding={"s": "DELTA_BYTE_ARRAY", "bin": "DELTA_LENGTH_BYTE_ARRAY"})
    paths.append(name)
    name = os.path.join(folder, "pa_bss.parquet")
    pq.write_table(enc_table.select(["f32", "f64", "i32", "i64", "fixed"]), name, use_dictionary=False,
                   column_encoding={"f32": "BYTE_STREAM_SPLIT", "f64": "BYTE_STREAM_SPLIT",
                                    "i32": "BYTE_STREAM_SPLIT", "i64": "BYTE_STREAM_SPLIT",
                                    "fixed": "BYTE_STREAM_SPLIT"})
    paths.append(name)
    # RLE booleans (length-prefixed) in both page versions.
    for version in ["1.0", "2.0"]:
        name = os.path.join(folder, "pa_rle_bool_v%s.parquet" % version)
        pq.write_table(table.select(["b"]), name, use_dictionary=False, column_encoding={"b": "RLE"},
                       data_page_version=version)
        paths.append(name)
    # Dictionary pages that overflow: later pages fall back to PLAIN within one chunk.
    name = os.path.join(folder, "pa_dict_fallback.parquet")
    fallback = pa.table({"s": pa.array(["value-%d" % (i * 7919 % 5000) if i % 11 else None for i in range(20000)]),
                         "l": pa.array([["x%d" % (i % 3000)] * (i % 3) for i in range(20000)])})
    pq.write_table(fallback, name, dictionary_pagesize_limit=2000, data_page_size=1000, compression="ZSTD")
    paths.append(name)
    try:
        import duckdb
    except ImportError:
        duckdb = None
        if os.environ.get("CI") == "true":
            raise
    if duckdb is not None:
        con = duckdb.connect()
        con.register("t", table.select(["b", "i8", "i16", "i32", "i64", "f32", "f64", "dec9", "dec18", "dec38", "s", "bin", "d", "ts_us", "lst", "nested", "st", "m", "lst_st"]))
        for codec in ["uncompressed", "snappy", "gzip", "zstd", "lz4", "brotli"]:
            name = os.path.join(folder, "duck_%s.parquet" % codec)
            con.execute("COPY (SELECT * FROM t) TO '%s' (FORMAT parquet, COMPRESSION %s, ROW_GROUP_SIZE 1024)" % (name, codec))
            paths.append(name)
        name = os.path.join(folder, "duck_v2.parquet")
        con.execute("COPY (SELECT * FROM t) TO '%s' (FORMAT parquet, PARQUET_VERSION v2)" % name)
        paths.append(name)
    return paths


def main():
    if len(sys.argv) < 3:
        print(__doc__)
        return 2
    silt = sys.argv[1]
    if sys.argv[2] == "--generate":
        os.makedirs(sys.argv[3], exist_ok=True)
        paths = generate(sys.argv[3])
    else:
        paths = []
        for arg in sys.argv[2:]:
            if os.path.isdir(arg):
                paths += sorted(os.path.join(arg, n) for n in os.listdir(arg) if n.endswith(".parquet"))
            else:
                paths.append(arg)
    failed = 0
    for path in paths:
        problem = compare(silt, path)
        print("%s %s%s" % ("FAIL" if problem else "ok  ", os.path.basename(path), ("\n  " + problem) if problem else ""))
        failed += problem is not None
    print("%d passed, %d failed" % (len(paths) - failed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
