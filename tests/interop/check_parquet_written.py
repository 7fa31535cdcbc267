#!/usr/bin/env python3
"""Interop test of the Parquet writer: files written by silt, read by pyarrow and DuckDB.

Runs parquet_write_gen (tests/interop/parquet_write_gen.c) into a temporary
folder. For every case it wrote, <case>.parquet holds the file,
<case>.jsonl the rows the writer was given and <case>.meta.json the options
and the file statistics the writer returned. This script reads each file
with pyarrow, with DuckDB and (when the deltalake package is there, as the
only file of a one-commit Delta table) with delta-rs, and checks:

  - every row and value, in order, against the JSON lines,
  - the Parquet schema: physical types, logical types (INT(8), DECIMAL,
    TIMESTAMP(MICROS, isAdjustedToUTC), STRING, LIST, MAP), field ids,
  - the footer: row groups, encodings (dictionary or PLAIN), codecs,
    page index presence, key-value metadata, created_by,
  - the column chunk statistics (min, max, null count) of every row group,
    and the per-file statistics the writer returned, against values
    computed here from the rows,
  - equality filters in DuckDB and pyarrow, which prune row groups by those
    statistics, still find every matching row.

Canonical value form in the JSON lines: null; true/false; integers;
floats as numbers or "NaN", "Infinity", "-Infinity" (-0.0 keeps its sign);
decimals as strings; strings; binary as lower-case hex; dates as days since
1970-01-01; timestamps as microseconds since 1970-01-01; structs as
objects; arrays as lists; maps as lists of [key, value] pairs.

Usage: check_parquet_written.py --gen <parquet_write_gen> --repo <repository root>
It needs pyarrow and duckdb: it re-runs itself with <repo>/.peers/venv/bin/python
when the current interpreter lacks them. Without them it exits 77 (skipped) or,
when CI=true, fails.
"""
import argparse
import datetime
import decimal
import json
import math
import os
import subprocess
import sys
import tempfile

SKIP = 77


def have_peers():
    try:
        import duckdb  # noqa: F401
        import pyarrow  # noqa: F401
        return True
    except ImportError:
        return False


def ensure_peers(args):
    if have_peers():
        return
    venv_python = os.path.join(args.repo, ".peers", "venv", "bin", "python")
    # The venv's python is a symlink to the system one: mark the re-run instead
    # of comparing paths.
    if os.path.exists(venv_python) and not os.environ.get("SILT_PQW_IN_VENV"):
        os.environ["SILT_PQW_IN_VENV"] = "1"
        os.execv(venv_python, [venv_python] + sys.argv)
    msg = ("pyarrow and duckdb are not available (expected %s; create it with "
           "scripts/setup-peers.sh or python3 -m venv .peers/venv && "
           ".peers/venv/bin/pip install duckdb pyarrow)" % venv_python)
    if os.environ.get("CI") == "true":
        print("FAIL: " + msg)
        sys.exit(1)
    print("SKIP: " + msg)
    sys.exit(SKIP)


EPOCH_DATE = datetime.date(1970, 1, 1)
EPOCH_TS = datetime.datetime(1970, 1, 1)


class Checker:
    def __init__(self):
        self.failures = []
        self.checks = 0

    def expect(self, cond, what):
        self.checks += 1
        if not cond:
            self.failures.append(what)
            if len(self.failures) < 40:
                print("  FAIL: " + what)
        return cond


def canon_float(value):
    if value is None:
        return None
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "Infinity" if value > 0 else "-Infinity"
    if value == 0:
        return "-0.0" if math.copysign(1.0, value) < 0 else "0.0"
    return float(value)


def canon_expected(value, typ):
    """Brings a JSON value to the comparison form for arrow type typ."""
    import pyarrow as pa
    if value is None:
        return None
    if pa.types.is_floating(typ):
        if isinstance(value, str):
            return value
        return canon_float(float(value))
    if pa.types.is_decimal(typ):
        return decimal.Decimal(value)
    if pa.types.is_struct(typ):
        return {typ.field(i).name: canon_expected(value[typ.field(i).name], typ.field(i).type)
                for i in range(typ.num_fields)}
    if pa.types.is_map(typ):
        return [[canon_expected(k, typ.key_type), canon_expected(v, typ.item_type)] for k, v in value]
    if pa.types.is_list(typ) or pa.types.is_large_list(typ):
        return [canon_expected(v, typ.value_type) for v in value]
    return value


def canon_actual(value, typ):
    """Brings a value from pyarrow's to_pylist to the comparison form."""
    import pyarrow as pa
    if value is None:
        return None
    if pa.types.is_floating(typ):
        return canon_float(value)
    if pa.types.is_decimal(typ):
        return decimal.Decimal(value)
    if pa.types.is_binary(typ) or pa.types.is_large_binary(typ) or pa.types.is_fixed_size_binary(typ):
        return value.hex()
    if pa.types.is_date32(typ) or pa.types.is_date64(typ):
        return (value - EPOCH_DATE).days
    if pa.types.is_timestamp(typ):
        if value.tzinfo is not None:
            value = value.astimezone(datetime.timezone.utc).replace(tzinfo=None)
        return (value - EPOCH_TS) // datetime.timedelta(microseconds=1)
    if pa.types.is_struct(typ):
        return {typ.field(i).name: canon_actual(value[typ.field(i).name], typ.field(i).type)
                for i in range(typ.num_fields)}
    if pa.types.is_map(typ):
        items = value.items() if isinstance(value, dict) else value
        return [[canon_actual(k, typ.key_type), canon_actual(v, typ.item_type)] for k, v in items]
    if pa.types.is_list(typ) or pa.types.is_large_list(typ):
        return [canon_actual(v, typ.value_type) for v in value]
    if isinstance(value, bool):
        return value
    return value


def compare_table(chk, table, expected_rows, schema, reader):
    chk.expect(table.num_rows == len(expected_rows),
               "%s: %d rows, expected %d" % (reader, table.num_rows, len(expected_rows)))
    for field in schema:
        if field.name not in table.column_names:
            chk.expect(False, "%s: column %s missing" % (reader, field.name))
            continue
        column = table.column(field.name)
        actual = [canon_actual(v, column.type) for v in column.to_pylist()]
        expected = [canon_expected(row[field.name], field.type) for row in expected_rows]
        bad = [i for i in range(min(len(actual), len(expected))) if actual[i] != expected[i]]
        if not chk.expect(not bad, "%s: column %s differs in %d rows" % (reader, field.name, len(bad))):
            i = bad[0]
            print("    row %d: got %r, expected %r" % (i, actual[i], expected[i]))


def utf8_or_bytes(value):
    return value.encode("utf-8") if isinstance(value, str) else value


def stat_key(value, typ):
    """Orders values the way Parquet's type-defined order does."""
    import pyarrow as pa
    if pa.types.is_string(typ):
        return value.encode("utf-8")
    if pa.types.is_binary(typ):
        return bytes.fromhex(value)
    if pa.types.is_decimal(typ):
        return decimal.Decimal(value)
    if pa.types.is_boolean(typ):
        return int(value)
    if pa.types.is_floating(typ):
        return float(value)
    return value


def stat_actual(value, typ):
    import pyarrow as pa
    if pa.types.is_string(typ) or pa.types.is_binary(typ):
        return utf8_or_bytes(value)
    if pa.types.is_decimal(typ):
        return decimal.Decimal(value)
    if pa.types.is_date32(typ):
        return (value - EPOCH_DATE).days
    if pa.types.is_timestamp(typ):
        if value.tzinfo is not None:
            value = value.astimezone(datetime.timezone.utc).replace(tzinfo=None)
        return (value - EPOCH_TS) // datetime.timedelta(microseconds=1)
    if pa.types.is_boolean(typ):
        return int(value)
    return value


def bounds(values, typ):
    """(min, max, null_count) of JSON values, NaN left out of the bounds."""
    present = [v for v in values if v is not None and v != "NaN"]
    nulls = sum(1 for v in values if v is None)
    keys = []
    for v in present:
        if v == "Infinity":
            keys.append(float("inf"))
        elif v == "-Infinity":
            keys.append(float("-inf"))
        else:
            keys.append(stat_key(v, typ))
    if not keys:
        return None, None, nulls
    return min(keys), max(keys), nulls


def check_bound(chk, what, actual, expected, is_max, typ, limit=64):
    import pyarrow as pa
    if (pa.types.is_string(typ) or pa.types.is_binary(typ)) and len(expected) > limit:
        # Truncated: min is a prefix, max is above the true max and short.
        if is_max:
            chk.expect(actual >= expected and len(actual) <= limit,
                       "%s: truncated max %r does not bound %r" % (what, actual, expected))
        else:
            chk.expect(expected.startswith(actual) and len(actual) <= limit,
                       "%s: truncated min %r is not a prefix of %r" % (what, actual, expected))
        return
    chk.expect(actual == expected, "%s: %r, expected %r" % (what, actual, expected))


def check_footer(chk, name, path, rows, meta):
    import pyarrow as pa
    import pyarrow.parquet as pq
    pf = pq.ParquetFile(path)
    md = pf.metadata
    arrow_schema = pf.schema_arrow
    chk.expect(md.created_by.startswith("silt version"), "%s: created_by %r" % (name, md.created_by))
    chk.expect(md.num_rows == len(rows), "%s: footer num_rows %d" % (name, md.num_rows))
    rg_rows = meta["row_group_rows"]
    if rg_rows and rows:
        chk.expect(md.num_row_groups == -(-len(rows) // rg_rows),
                   "%s: %d row groups for %d rows of %d" % (name, md.num_row_groups, len(rows), rg_rows))
    chk.expect(meta["row_groups"] == md.num_row_groups, "%s: stats say %d row groups, footer %d"
               % (name, meta["row_groups"], md.num_row_groups))
    kv = {k.decode(): v.decode() for k, v in (md.metadata or {}).items()}
    for k, v in meta["kv"].items():
        chk.expect(kv.get(k) == v, "%s: key-value %r is %r, expected %r" % (name, k, kv.get(k), v))

    # Field ids, written only when asked.
    def walk_ids(field, prefix):
        fid = (field.metadata or {}).get(b"PARQUET:field_id")
        yield prefix + field.name, fid
        typ = field.type
        if pa.types.is_struct(typ):
            for i in range(typ.num_fields):
                yield from walk_ids(typ.field(i), prefix + field.name + ".")
    ids = dict(x for f in arrow_schema for x in walk_ids(f, ""))
    if meta["field_ids"]:
        chk.expect(ids.get("id") == b"1" and ids.get("st.p.lat") == b"111" and ids.get("st.n") == b"122",
                   "%s: field ids %r" % (name, ids))
    else:
        chk.expect(all(v is None for v in ids.values()), "%s: unexpected field ids" % name)

    # Encodings of every chunk.
    for rg in range(md.num_row_groups):
        for c in range(md.num_columns):
            col = md.row_group(rg).column(c)
            enc = set(col.encodings)
            is_bool = col.physical_type == "BOOLEAN"
            if meta["dictionary"] and not is_bool:
                ok = "RLE_DICTIONARY" in enc and col.has_dictionary_page
            else:
                ok = "PLAIN" in enc and "RLE_DICTIONARY" not in enc and not col.has_dictionary_page
            chk.expect(ok, "%s: row group %d column %s encodings %r" % (name, rg, col.path_in_schema, enc))
            chk.expect(col.compression == {0: "UNCOMPRESSED", 1: "SNAPPY", 2: "GZIP", 6: "ZSTD"}[meta["codec"]],
                       "%s: codec %s" % (name, col.compression))
            # Page index: always an OffsetIndex; a ColumnIndex unless INT96 (no order).
            chk.expect(col.has_offset_index, "%s: %s has no offset index" % (name, col.path_in_schema))
            if col.physical_type != "INT96" and col.path_in_schema not in ("f32", "f64"):
                chk.expect(col.has_column_index, "%s: %s has no column index" % (name, col.path_in_schema))
    if name == "dict_fallback" and md.num_row_groups:
        enc = set(md.row_group(0).column(0).encodings)
        chk.expect("RLE_DICTIONARY" in enc and "PLAIN" in enc,
                   "%s: the string column should fall back to PLAIN: %r" % (name, enc))
        enc = set(md.row_group(0).column(2).encodings)
        chk.expect("PLAIN" not in enc, "%s: the low-cardinality column should stay dictionary: %r" % (name, enc))

    # Chunk statistics of top-level primitive columns, row group by row group.
    start = 0
    for rg in range(md.num_row_groups):
        group = md.row_group(rg)
        part = rows[start:start + group.num_rows]
        start += group.num_rows
        for c in range(md.num_columns):
            col = group.column(c)
            if "." in col.path_in_schema:
                continue
            typ = arrow_schema.field(col.path_in_schema).type
            lo, hi, nulls = bounds([r[col.path_in_schema] for r in part], typ)
            st = col.statistics
            what = "%s: row group %d column %s" % (name, rg, col.path_in_schema)
            if not chk.expect(st is not None, what + ": no statistics"):
                continue
            chk.expect(st.null_count == nulls, "%s null_count %s, expected %d" % (what, st.null_count, nulls))
            if col.physical_type == "INT96":
                # No defined sort order: no bounds.
                chk.expect(not st.has_min_max, what + ": INT96 with min/max")
                continue
            if lo is None:
                chk.expect(not st.has_min_max, what + ": min/max where all values are null")
                continue
            if not chk.expect(st.has_min_max, what + ": no min/max"):
                continue
            check_bound(chk, what + " min", stat_actual(st.min, typ), lo, False, typ)
            check_bound(chk, what + " max", stat_actual(st.max, typ), hi, True, typ)

    # File statistics returned by the writer (the input of Delta's stats JSON).
    chk.expect(meta["num_records"] == len(rows), "%s: stats num_records" % name)
    for leaf in meta["leaves"]:
        if len(leaf["path"]) != 1:
            continue
        col = leaf["path"][0]
        typ = arrow_schema.field(col).type
        lo, hi, nulls = bounds([r[col] for r in rows], typ)
        what = "%s: file stats of %s" % (name, col)
        chk.expect(leaf["null_count"] == nulls, "%s: null_count %d, expected %d" % (what, leaf["null_count"], nulls))
        if lo is None:
            chk.expect("min" not in leaf, what + ": min/max where all values are null")
            continue
        if not chk.expect("min" in leaf, what + ": no min/max"):
            continue
        limit = 64
        check_bound(chk, what + " min", stat_key(leaf["min"], typ), lo, False, typ, limit)
        check_bound(chk, what + " max", stat_key(leaf["max"], typ), hi, True, typ, limit)


def check_types(chk, name, path, int96):
    """Physical and logical types of the primitive columns (writer.h mapping)."""
    import pyarrow.parquet as pq
    schema = pq.ParquetFile(path).schema
    want = {
        "i8": ("INT32", "Int(bitWidth=8, isSigned=true)"),
        "i16": ("INT32", "Int(bitWidth=16, isSigned=true)"),
        "i32": ("INT32", "None"),
        "i64": ("INT64", "None"),
        "d9": ("INT32", "Decimal(precision=9, scale=2)"),
        "d18": ("INT64", "Decimal(precision=18, scale=6)"),
        "d38": ("FIXED_LEN_BYTE_ARRAY", "Decimal(precision=38, scale=10)"),
        "d20": ("FIXED_LEN_BYTE_ARRAY", "Decimal(precision=20, scale=0)"),
        "s": ("BYTE_ARRAY", "String"),
        "bin": ("BYTE_ARRAY", "None"),
        "dt": ("INT32", "Date"),
        "ts": ("INT64", "Timestamp(isAdjustedToUTC=true, timeUnit=microseconds, is_from_converted_type=false, force_set_converted_type=false)"),
        "ts_ntz": ("INT64", "Timestamp(isAdjustedToUTC=false, timeUnit=microseconds, is_from_converted_type=false, force_set_converted_type=false)"),
    }
    if int96:
        want["ts"] = ("INT96", "None")
    lengths = {"d38": 16, "d20": 9}
    for i in range(len(schema)):
        col = schema.column(i)
        if col.path in want:
            phys, logical = want[col.path]
            chk.expect(col.physical_type == phys and str(col.logical_type) == logical,
                       "%s: column %s is %s %s, expected %s %s" % (name, col.path, col.physical_type,
                                                                  col.logical_type, phys, logical))
            if col.path in lengths:
                chk.expect(col.length == lengths[col.path], "%s: %s has length %d" % (name, col.path, col.length))
            if col.path == "ts" and not int96:
                chk.expect(col.converted_type == "TIMESTAMP_MICROS", "%s: ts converted type %s" % (name, col.converted_type))
            if col.path == "i8":
                chk.expect(col.converted_type == "INT_8", "%s: i8 converted type %s" % (name, col.converted_type))


def read_with_delta_rs(folder, name, table_schema):
    """Reads the file as the only file of a Delta table, with delta-rs (arrow-rs's reader)."""
    import shutil
    import uuid
    from deltalake import DeltaTable
    from deltalake.schema import Schema
    root = os.path.join(folder, "delta_" + name)
    os.makedirs(os.path.join(root, "_delta_log"))
    shutil.copyfile(os.path.join(folder, name + ".parquet"), os.path.join(root, "part-0.parquet"))
    schema_json = Schema.from_arrow(table_schema).to_json()
    actions = [
        {"protocol": {"minReaderVersion": 3, "minWriterVersion": 7,
                      "readerFeatures": ["timestampNtz"], "writerFeatures": ["timestampNtz"]}},
        {"metaData": {"id": str(uuid.uuid4()), "format": {"provider": "parquet", "options": {}},
                      "schemaString": schema_json, "partitionColumns": [], "configuration": {},
                      "createdTime": 0}},
        {"add": {"path": "part-0.parquet", "partitionValues": {},
                 "size": os.path.getsize(os.path.join(root, "part-0.parquet")),
                 "modificationTime": 0, "dataChange": True}},
    ]
    with open(os.path.join(root, "_delta_log", "00000000000000000000.json"), "w") as f:
        f.write("".join(json.dumps(a) + "\n" for a in actions))
    return DeltaTable(root).to_pyarrow_table()


def param_value(value, typ):
    """A JSON value as the Python value pyarrow and DuckDB compare a column with."""
    import pyarrow as pa
    if pa.types.is_binary(typ):
        return bytes.fromhex(value)
    if pa.types.is_decimal(typ):
        return decimal.Decimal(value)
    if pa.types.is_date32(typ):
        return EPOCH_DATE + datetime.timedelta(days=value)
    if pa.types.is_floating(typ):
        return float(value)
    return value


def duck_type(typ):
    import pyarrow as pa
    if pa.types.is_decimal(typ):
        return "DECIMAL(%d,%d)" % (typ.precision, typ.scale)
    return {pa.int8(): "TINYINT", pa.int16(): "SMALLINT", pa.int32(): "INTEGER", pa.int64(): "BIGINT",
            pa.float32(): "FLOAT", pa.float64(): "DOUBLE", pa.string(): "VARCHAR", pa.binary(): "BLOB",
            pa.date32(): "DATE", pa.bool_(): "BOOLEAN"}.get(typ)


def check_filters(chk, name, path, rows, schema):
    """Filters that prune row groups by statistics must still find every matching row.

    DuckDB and pyarrow skip row groups whose min/max exclude the value, so a
    wrong bound (sort order, truncation, decimal encoding) loses rows here.
    """
    import duckdb
    import pyarrow as pa
    import pyarrow.compute as pc
    import pyarrow.parquet as pq
    con = duckdb.connect()
    for field in schema:
        typ = field.type
        dtype = duck_type(typ)
        if dtype is None or not rows:
            continue
        present = [r[field.name] for r in rows if r[field.name] is not None
                   and not (isinstance(r[field.name], str) and pa.types.is_floating(typ))]
        if not present:
            continue
        keyed = sorted(present, key=lambda v: stat_key(v, typ))
        candidates = [keyed[0], keyed[-1], present[len(present) // 3], present[2 * len(present) // 3]]
        for value in candidates:
            # SQL equality: -0.0 = 0.0.
            same = ((lambda v: float(v) == float(value)) if pa.types.is_floating(typ)
                    else (lambda v: canon_expected(v, typ) == canon_expected(value, typ)))
            want = sum(1 for r in rows if r[field.name] is not None and
                       not (isinstance(r[field.name], str) and pa.types.is_floating(typ)) and
                       same(r[field.name]))
            param = param_value(value, typ)
            got = con.execute('SELECT count(*) FROM read_parquet(?) WHERE "%s" = CAST(? AS %s)'
                              % (field.name, dtype), [path, param]).fetchone()[0]
            chk.expect(got == want, "%s: duckdb found %d rows with %s = %r, expected %d"
                       % (name, got, field.name, value, want))
            got = pq.read_table(path, columns=[field.name],
                                filters=pc.field(field.name) == pa.scalar(param, type=typ)).num_rows
            chk.expect(got == want, "%s: pyarrow found %d rows with %s = %r, expected %d"
                       % (name, got, field.name, value, want))


def check_case(chk, folder, name):
    import duckdb
    import pyarrow.parquet as pq
    path = os.path.join(folder, name + ".parquet")
    with open(os.path.join(folder, name + ".jsonl"), encoding="utf-8") as f:
        rows = [json.loads(line) for line in f if line.strip()]
    with open(os.path.join(folder, name + ".meta.json"), encoding="utf-8") as f:
        meta = json.load(f)
    before = len(chk.failures)
    # INT96 timestamps come back as nanoseconds unless told otherwise.
    table = pq.read_table(path, coerce_int96_timestamp_unit="us")
    compare_table(chk, table, rows, table.schema, "pyarrow")
    con = duckdb.connect()
    rel = con.sql("SELECT * FROM read_parquet('%s')" % path.replace("'", "''"))
    # to_arrow_table in DuckDB >= 1.4, fetch_arrow_table before.
    duck = rel.to_arrow_table() if hasattr(rel, "to_arrow_table") else rel.fetch_arrow_table()
    compare_table(chk, duck, rows, table.schema, "duckdb")
    try:
        import deltalake  # noqa: F401
        have_delta_rs = True
    except ImportError:
        have_delta_rs = False
    # INT96 is Spark's legacy timestamp: a Delta schema cannot say so, skip it there.
    if have_delta_rs and not meta["int96"]:
        compare_table(chk, read_with_delta_rs(folder, name, table.schema), rows, table.schema,
                      "delta-rs")
    check_footer(chk, name, path, rows, meta)
    # Cases with several row groups, one per codec and encoding mix (the others add time only).
    if name in ("types_snappy_dict", "types_uncompressed_plain", "row_groups_by_bytes", "dict_fallback"):
        check_filters(chk, name, path, rows, table.schema)
    if name.startswith("types_") or name in ("empty", "row_groups_by_bytes"):
        check_types(chk, name, path, meta["int96"])
    if name == "row_groups_by_bytes":
        chk.expect(pq.ParquetFile(path).metadata.num_row_groups > 1, "%s: one row group only" % name)
    status = "ok" if len(chk.failures) == before else "FAILED"
    print("%-28s %6d rows  %s" % (name, len(rows), status))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--gen", required=True)
    parser.add_argument("--repo", required=True)
    parser.add_argument("--keep", help="write the files into this folder and keep them")
    args = parser.parse_args()
    ensure_peers(args)
    chk = Checker()
    with tempfile.TemporaryDirectory(prefix="silt-pqw-") as tmp:
        folder = args.keep or tmp
        os.makedirs(folder, exist_ok=True)
        subprocess.run([args.gen, folder], check=True)
        names = sorted(f[:-len(".parquet")] for f in os.listdir(folder) if f.endswith(".parquet"))
        if not names:
            print("FAIL: the generator wrote no files")
            return 1
        for name in names:
            check_case(chk, folder, name)
    try:
        import deltalake  # noqa: F401
    except ImportError:
        print("note: deltalake is not installed; delta-rs did not read the files")
    print("%d checks, %d failed" % (chk.checks, len(chk.failures)))
    return 1 if chk.failures else 0


if __name__ == "__main__":
    sys.exit(main())
