#!/usr/bin/env python3
"""Smoke test of the test peers: proves that each one runs here.

    .peers/venv/bin/python tests/peers/smoke_test.py

- Spark with Delta writes a small Delta table, reads it back, DESCRIBE HISTORY;
- delta-rs (deltalake) reads that table, and writes one that Spark reads;
- DuckDB writes and reads a Parquet file; pyarrow reads it.

Exits non-zero on any failure. The last line is `N passed, M failed` (with
`, K skipped` when a peer is missing outside CI; with CI=true a missing peer
is a failure, never a skip).
"""

from __future__ import annotations

import datetime as dt
import decimal
import importlib
import shutil
import signal
import sys
import tempfile
import time
import traceback
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import peers  # noqa: E402

TIMEOUT_S = 900  # the whole run; Spark takes about 20 s on 2 cores


class Missing(Exception):
    """A peer is not installed: a skip outside CI, a failure in CI."""


def need(module: str):
    try:
        return importlib.import_module(module)
    except ImportError as e:
        raise Missing(f"{module} not importable ({e}); {peers.SETUP_HINT}") from e


# The rows every peer writes or is checked against: a few Delta types and a NULL.
ROWS = [
    (1, "one", dt.datetime(2024, 1, 2, 3, 4, 5, tzinfo=dt.timezone.utc), decimal.Decimal("1.50")),
    (2, "two", dt.datetime(2024, 6, 30, 23, 59, 59, 123456, tzinfo=dt.timezone.utc), decimal.Decimal("-2.25")),
    (3, None, None, None),
]


def normalise(rows):
    """Rows as comparable tuples, timestamps in UTC, sorted by the first column."""
    out = []
    for r in rows:
        r = tuple(r)
        ts = r[2]
        if ts is not None:
            ts = ts.replace(tzinfo=dt.timezone.utc) if ts.tzinfo is None else ts.astimezone(dt.timezone.utc)
        out.append((r[0], r[1], ts, r[3]))
    return sorted(out, key=lambda r: r[0])


def check_equal(got, want, what):
    got, want = normalise(got), normalise(want)
    if got != want:
        raise AssertionError(f"{what}:\n  got  {got}\n  want {want}")


class Ctx:
    def __init__(self, tmp: Path):
        self.tmp = tmp
        self.spark_table = tmp / "spark_table"
        self.spark_table_written = False
        self.parquet = tmp / "duck.parquet"
        self.parquet_written = False


def spark_session():
    need("pyspark")
    need("delta")
    try:
        peers.delta_jars()
    except FileNotFoundError as e:
        raise Missing(str(e)) from e
    return peers.spark_session()


def test_spark_delta_write_read(ctx: Ctx):
    spark = spark_session()
    schema = "id BIGINT, name STRING, ts TIMESTAMP, amount DECIMAL(10,2)"
    path = str(ctx.spark_table)
    spark.createDataFrame(ROWS[:2], schema).write.format("delta").save(path)
    spark.createDataFrame(ROWS[2:], schema).write.format("delta").mode("append").save(path)
    ctx.spark_table_written = True

    got = spark.read.format("delta").load(path).collect()
    check_equal(got, ROWS, "Spark reading its own Delta table")
    log = ctx.spark_table / "_delta_log"
    for v in (0, 1):
        if not (log / f"{v:020d}.json").is_file():
            raise AssertionError(f"no commit {v} in {log}")

    hist = spark.sql(f"DESCRIBE HISTORY delta.`{path}`").orderBy("version").collect()
    if [h["version"] for h in hist] != [0, 1]:
        raise AssertionError(f"history versions {[h['version'] for h in hist]}, want [0, 1]")
    if [h["operation"] for h in hist] != ["WRITE", "WRITE"]:
        raise AssertionError(f"history operations {[h['operation'] for h in hist]}")
    old = spark.read.format("delta").option("versionAsOf", 0).load(path).count()
    if old != 2:
        raise AssertionError(f"version 0 has {old} rows, want 2")


def test_deltalake_reads_spark_table(ctx: Ctx):
    deltalake = need("deltalake")
    if not ctx.spark_table_written:
        raise AssertionError("no table: the Spark test did not write one")
    table = deltalake.DeltaTable(str(ctx.spark_table))
    if table.version() != 1:
        raise AssertionError(f"delta-rs sees version {table.version()}, want 1")
    t = table.to_pyarrow_table()
    check_equal(zip(*(t.column(c).to_pylist() for c in ("id", "name", "ts", "amount"))), ROWS,
                "delta-rs reading Spark's table")
    ops = [h["operation"] for h in table.history()]
    if len(ops) != 2:
        raise AssertionError(f"delta-rs history has {ops}, want 2 commits")


def test_spark_reads_deltalake_table(ctx: Ctx):
    deltalake = need("deltalake")
    pa = need("pyarrow")
    path = ctx.tmp / "deltars_table"
    data = pa.table({
        "id": pa.array([r[0] for r in ROWS], pa.int64()),
        "name": pa.array([r[1] for r in ROWS], pa.string()),
        "ts": pa.array([r[2] for r in ROWS], pa.timestamp("us", tz="UTC")),
        "amount": pa.array([r[3] for r in ROWS], pa.decimal128(10, 2)),
    })
    deltalake.write_deltalake(str(path), data)
    spark = spark_session()
    got = spark.read.format("delta").load(str(path)).collect()
    check_equal(got, ROWS, "Spark reading delta-rs's table")


def test_duckdb_parquet_write_read(ctx: Ctx):
    need("duckdb")
    con = peers.duckdb_connect()
    con.execute("""
        CREATE TABLE t AS SELECT * FROM (VALUES
            (1::BIGINT, 'one', TIMESTAMPTZ '2024-01-02 03:04:05+00', 1.50::DECIMAL(10,2)),
            (2::BIGINT, 'two', TIMESTAMPTZ '2024-06-30 23:59:59.123456+00', -2.25::DECIMAL(10,2)),
            (3::BIGINT, NULL, NULL, NULL)
        ) v(id, name, ts, amount)""")
    con.execute(f"COPY t TO '{ctx.parquet}' (FORMAT parquet)")
    ctx.parquet_written = True
    got = con.execute(f"SELECT id, name, ts, amount FROM read_parquet('{ctx.parquet}')").fetchall()
    check_equal(got, ROWS, "DuckDB reading its own Parquet file")
    con.close()


def test_pyarrow_reads_duckdb_parquet(ctx: Ctx):
    pq = need("pyarrow.parquet")
    if not ctx.parquet_written:
        raise AssertionError("no file: the DuckDB test did not write one")
    t = pq.read_table(ctx.parquet)
    if t.num_rows != 3:
        raise AssertionError(f"{t.num_rows} rows, want 3")
    check_equal(zip(*(t.column(c).to_pylist() for c in ("id", "name", "ts", "amount"))), ROWS,
                "pyarrow reading DuckDB's Parquet file")


TESTS = [
    test_spark_delta_write_read,
    test_deltalake_reads_spark_table,
    test_spark_reads_deltalake_table,
    test_duckdb_parquet_write_read,
    test_pyarrow_reads_duckdb_parquet,
]


def on_timeout(_signum, _frame):
    raise TimeoutError(f"smoke test took longer than {TIMEOUT_S} s")


def main() -> int:
    signal.signal(signal.SIGALRM, on_timeout)
    signal.alarm(TIMEOUT_S)
    ci = peers.in_ci()
    print(f"python {sys.executable} ({sys.version.split()[0]}), CI={'true' if ci else 'false'}")
    if Path(sys.prefix).resolve() != peers.VENV_DIR.resolve():
        print(f"note: not the peers venv; use {peers.venv_python()}")
    passed = failed = skipped = 0
    tmp = Path(tempfile.mkdtemp(prefix="silt-peers-smoke-"))
    ctx = Ctx(tmp)
    try:
        for test in TESTS:
            t0 = time.monotonic()
            try:
                test(ctx)
            except Missing as e:
                if ci:
                    failed += 1
                    print(f"FAIL {test.__name__}: missing peer in CI: {e}")
                else:
                    skipped += 1
                    print(f"SKIP {test.__name__}: {e}")
                continue
            except Exception:  # noqa: BLE001  any error fails the test
                failed += 1
                print(f"FAIL {test.__name__} ({time.monotonic() - t0:.1f} s)")
                traceback.print_exc(file=sys.stdout)
                continue
            passed += 1
            print(f"ok   {test.__name__} ({time.monotonic() - t0:.1f} s)")
        try:
            peers.stop_spark()
        except Exception:  # noqa: BLE001
            failed += 1
            print("FAIL stopping Spark")
            traceback.print_exc(file=sys.stdout)
    finally:
        signal.alarm(0)
        shutil.rmtree(tmp, ignore_errors=True)
    sys.stdout.flush()
    summary = f"{passed} passed, {failed} failed"
    if skipped:
        summary += f", {skipped} skipped"
    print(summary)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
