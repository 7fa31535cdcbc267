#!/usr/bin/env python3
"""Interop test of the Parquet writer with Spark (parquet-mr and Spark's vectorized reader).

Runs parquet_write_gen into a temporary folder (see check_parquet_written.py
for the cases and the canonical JSON form of the expected rows) and reads
every file with a local Spark session, once with the vectorized reader and
once with parquet-mr's row reader, comparing every value.

Usage: check_parquet_written_spark.py --gen <parquet_write_gen> --repo <repository root>
It needs pyspark (and Java): it re-runs itself with <repo>/.peers/venv/bin/python
when the current interpreter lacks it. Without it it exits 77 (skipped) or,
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
import time

SKIP = 77


def ensure_spark(args):
    try:
        import pyspark  # noqa: F401
        return
    except ImportError:
        pass
    venv_python = os.path.join(args.repo, ".peers", "venv", "bin", "python")
    if os.path.exists(venv_python) and not os.environ.get("SILT_PQW_IN_VENV"):
        os.environ["SILT_PQW_IN_VENV"] = "1"
        os.execv(venv_python, [venv_python] + sys.argv)
    msg = "pyspark is not available (expected in %s; see scripts/setup-peers.sh)" % venv_python
    if os.environ.get("CI") == "true":
        print("FAIL: " + msg)
        sys.exit(1)
    print("SKIP: " + msg)
    sys.exit(SKIP)


EPOCH_DATE = datetime.date(1970, 1, 1)
EPOCH_TS = datetime.datetime(1970, 1, 1)


def canon_float(v):
    if v is None:
        return None
    if math.isnan(v):
        return "NaN"
    if math.isinf(v):
        return "Infinity" if v > 0 else "-Infinity"
    if v == 0:
        return "-0.0" if math.copysign(1.0, v) < 0 else "0.0"
    return float(v)


def canon_actual(v, t):
    from pyspark.sql import types as T
    if v is None:
        return None
    if isinstance(t, (T.FloatType, T.DoubleType)):
        return canon_float(v)
    if isinstance(t, T.DecimalType):
        return decimal.Decimal(v)
    if isinstance(t, T.BinaryType):
        return bytes(v).hex()
    if isinstance(t, T.DateType):
        return (v - EPOCH_DATE).days
    if isinstance(t, (T.TimestampType, T.TimestampNTZType)):
        if v.tzinfo is not None:
            v = v.astimezone(datetime.timezone.utc).replace(tzinfo=None)
        return (v - EPOCH_TS) // datetime.timedelta(microseconds=1)
    if isinstance(t, T.StructType):
        return {f.name: canon_actual(v[f.name], f.dataType) for f in t.fields}
    if isinstance(t, T.MapType):
        # Spark hands maps over as dicts: compare them unordered.
        return sorted(([canon_actual(k, t.keyType), canon_actual(x, t.valueType)]
                       for k, x in v.items()), key=repr)
    if isinstance(t, T.ArrayType):
        return [canon_actual(x, t.elementType) for x in v]
    return v


def canon_expected(v, t):
    from pyspark.sql import types as T
    if v is None:
        return None
    if isinstance(t, (T.FloatType, T.DoubleType)):
        return v if isinstance(v, str) else canon_float(float(v))
    if isinstance(t, T.DecimalType):
        return decimal.Decimal(v)
    if isinstance(t, T.StructType):
        return {f.name: canon_expected(v[f.name], f.dataType) for f in t.fields}
    if isinstance(t, T.MapType):
        return sorted(([canon_expected(k, t.keyType), canon_expected(x, t.valueType)]
                       for k, x in v), key=repr)
    if isinstance(t, T.ArrayType):
        return [canon_expected(x, t.elementType) for x in v]
    return v


def literal(value, t):
    """A JSON value as a Spark literal of the column's type."""
    from pyspark.sql import functions as F
    from pyspark.sql import types as T
    if isinstance(t, T.DecimalType):
        return F.lit(decimal.Decimal(value)).cast(t)
    if isinstance(t, T.BinaryType):
        return F.lit(bytearray(bytes.fromhex(value)))
    if isinstance(t, T.DateType):
        return F.lit(EPOCH_DATE + datetime.timedelta(days=value))
    if isinstance(t, (T.ByteType, T.ShortType, T.IntegerType, T.LongType)):
        return F.lit(value).cast(t)
    return F.lit(value)


def check_filters(df, rows, name):
    """Equality filters, pushed down to parquet-mr's row-group statistics filter,
    must keep every matching row (a wrong min/max would drop row groups)."""
    from pyspark.sql import functions as F
    from pyspark.sql import types as T
    errors = []
    for field in df.schema.fields:
        t = field.dataType
        if not isinstance(t, (T.ByteType, T.ShortType, T.IntegerType, T.LongType, T.DecimalType,
                              T.StringType, T.BinaryType, T.DateType)):
            continue
        present = [r[field.name] for r in rows if r[field.name] is not None]
        if not present:
            continue
        key = ((lambda v: v.encode("utf-8")) if isinstance(t, T.StringType) else
               (lambda v: bytes.fromhex(v)) if isinstance(t, T.BinaryType) else
               (lambda v: decimal.Decimal(v)) if isinstance(t, T.DecimalType) else (lambda v: v))
        ordered = sorted(present, key=key)
        for value in (ordered[0], ordered[-1], present[len(present) // 2]):
            want = sum(1 for v in present if key(v) == key(value))
            got = df.filter(F.col(field.name) == literal(value, t)).count()
            if got != want:
                errors.append("%s = %r: %d rows, expected %d" % (field.name, value, got, want))
    return errors


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--gen", required=True)
    parser.add_argument("--repo", required=True)
    args = parser.parse_args()
    ensure_spark(args)
    # Python turns Spark timestamps into local datetimes: make local UTC.
    os.environ["TZ"] = "UTC"
    time.tzset()
    from pyspark.sql import SparkSession

    failures = 0
    with tempfile.TemporaryDirectory(prefix="silt-pqw-spark-") as folder:
        subprocess.run([args.gen, folder], check=True, stdout=subprocess.DEVNULL)
        names = sorted(f[:-len(".parquet")] for f in os.listdir(folder) if f.endswith(".parquet"))
        spark = (SparkSession.builder.master("local[1]")
                 .config("spark.sql.session.timeZone", "UTC")
                 .config("spark.ui.enabled", "false")
                 .config("spark.ui.showConsoleProgress", "false")
                 .config("spark.sql.parquet.int96RebaseModeInRead", "CORRECTED")
                 .config("spark.sql.parquet.datetimeRebaseModeInRead", "CORRECTED")
                 .getOrCreate())
        spark.sparkContext.setLogLevel("ERROR")
        try:
            for vectorized in ("true", "false"):
                spark.conf.set("spark.sql.parquet.enableVectorizedReader", vectorized)
                spark.conf.set("spark.sql.parquet.enableNestedColumnVectorizedReader", vectorized)
                for name in names:
                    with open(os.path.join(folder, name + ".jsonl"), encoding="utf-8") as f:
                        rows = [json.loads(line) for line in f if line.strip()]
                    df = spark.read.parquet(os.path.join(folder, name + ".parquet"))
                    got = df.collect()
                    errors = []
                    if len(got) != len(rows):
                        errors.append("%d rows, expected %d" % (len(got), len(rows)))
                    for field in df.schema.fields:
                        actual = [canon_actual(r[field.name], field.dataType) for r in got]
                        expected = [canon_expected(r[field.name], field.dataType) for r in rows]
                        diff = [i for i in range(min(len(actual), len(expected)))
                                if actual[i] != expected[i]]
                        if diff:
                            i = diff[0]
                            errors.append("column %s differs in %d rows; row %d: got %r, expected %r"
                                          % (field.name, len(diff), i, actual[i], expected[i]))
                    if vectorized == "true" and name in ("types_snappy_dict", "row_groups_by_bytes"):
                        errors += check_filters(df, rows, name)
                    failures += bool(errors)
                    print("%-10s %-26s %6d rows  %s" % ("vectorized" if vectorized == "true" else "row",
                                                        name, len(rows),
                                                        "ok" if not errors else "FAILED"))
                    for e in errors:
                        print("    " + e[:1000])
        finally:
            spark.stop()
    print("%d files failed" % failures)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
