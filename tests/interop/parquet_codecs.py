#!/usr/bin/env python3
"""Interop test of spark.sql.parquet.compression.codec: tables silt writes with
every codec Spark names, read by pyarrow and DuckDB.

For each codec, `silt sql` runs SET spark.sql.parquet.compression.codec and a
CTAS of 20,000 rows (long, double, string with repeats, nulls) plus an INSERT.
Then, for every data file of the table (file names from the _delta_log adds):
  - DuckDB's parquet_metadata shows the codec of every column chunk (Spark's
    lz4 is the Hadoop-framed LZ4, the format's LZ4; lz4_raw is LZ4_RAW), and
    pyarrow's footer agrees for the other codecs (it misnames both LZ4s),
  - the file name carries Spark's codec infix (.zstd.parquet, .gz.parquet ...),
  - pyarrow and DuckDB read the same rows silt reads (compared as sorted CSV).

Usage: parquet_codecs.py SILT_BIN WORKDIR. Needs pyarrow and duckdb: re-runs
itself with <repo>/.peers/venv/bin/python when they are missing; exits 77
(skipped) without them unless CI=true.
"""
import csv
import io
import json
import os
import shutil
import subprocess
import sys

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

# Spark's name -> (codec pyarrow reports, file name infix)
CODECS = {
    "snappy": ("SNAPPY", ".snappy"),
    "ZSTD": ("ZSTD", ".zstd"),
    "gzip": ("GZIP", ".gz"),
    "lz4": ("LZ4", ".lz4"),
    "lz4_raw": ("LZ4_RAW", ".lz4raw"),
    "none": ("UNCOMPRESSED", ""),
    "uncompressed": ("UNCOMPRESSED", ""),
}


def need_peers():
    try:
        import duckdb  # noqa: F401
        import pyarrow  # noqa: F401
        return
    except ImportError:
        pass
    venv = os.path.join(REPO, ".peers", "venv", "bin", "python")
    # The venv's python is a symlink to the system one: mark the re-run instead.
    if os.path.exists(venv) and not os.environ.get("SILT_CODECS_IN_VENV"):
        os.environ["SILT_CODECS_IN_VENV"] = "1"
        os.execv(venv, [venv] + sys.argv)
    print("pyarrow/duckdb not available")
    sys.exit(1 if os.environ.get("CI") == "true" else 77)


def silt_csv(silt, sql):
    out = subprocess.run([silt, "sql", "--format", "csv", sql], capture_output=True, text=True)
    if out.returncode != 0:
        raise SystemExit("silt failed: %s\n%s" % (sql, out.stderr))
    return out.stdout


def data_files(table):
    files = set()
    log = os.path.join(table, "_delta_log")
    for name in sorted(os.listdir(log)):
        if not name.endswith(".json"):
            continue
        with open(os.path.join(log, name)) as f:
            for line in f:
                action = json.loads(line)
                if "add" in action:
                    files.add(action["add"]["path"])
                if "remove" in action:
                    files.discard(action["remove"]["path"])
    return sorted(files)


def canon_rows(rows):
    """Sorted CSV text of rows (tuples): None -> empty, floats with repr."""
    def cell(v):
        if v is None:
            return ""
        if isinstance(v, float):
            return repr(v)
        return str(v)
    return sorted(",".join(cell(v) for v in r) for r in rows)


def main():
    need_peers()
    import duckdb
    import pyarrow.parquet as pq

    silt, work = sys.argv[1], sys.argv[2]
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    failures = 0
    for name, (want, infix) in CODECS.items():
        table = os.path.join(work, "t_" + name)
        silt_csv(silt, "SET spark.sql.parquet.compression.codec = %s; "
                 "CREATE TABLE delta.`%s` USING DELTA AS SELECT id, id / 3.0D AS d, "
                 "CASE WHEN id %% 5 = 0 THEN NULL ELSE concat('name ', CAST(id %% 97 AS STRING)) "
                 "END AS s FROM range(20000); "
                 "INSERT INTO delta.`%s` VALUES (-1, 0.5D, 'inserted')" % (name, table, table))
        text = silt_csv(silt, "SELECT id, d, s FROM delta.`%s`" % table)
        silt_rows = []
        for r in list(csv.reader(io.StringIO(text)))[1:]:
            silt_rows.append((int(r[0]), float(r[1]), r[2] if r[2] != "" else None))
        paths = data_files(table)
        arrow_rows, duck_rows = [], []
        for rel in paths:
            full = os.path.join(table, rel)
            if not rel.endswith(".c000%s.parquet" % infix):
                print("FAIL %s: file name %s lacks %s" % (name, rel, infix))
                failures += 1
            # DuckDB names the footer's codec as the format does; pyarrow calls LZ4_RAW
            # "LZ4" and the Hadoop LZ4 "UNKNOWN" (it reads both), so it checks the others.
            got = duckdb.sql("SELECT DISTINCT compression FROM parquet_metadata('%s')"
                             % full).fetchall()
            if got != [(want,)]:
                print("FAIL %s: %s has codecs %s, not %s" % (name, rel, got, want))
                failures += 1
            md = pq.ParquetFile(full).metadata
            for rg in range(md.num_row_groups):
                for c in range(md.num_columns):
                    got = md.row_group(rg).column(c).compression
                    if not want.startswith("LZ4") and got != want:
                        print("FAIL %s: %s column %d is %s, not %s" % (name, rel, c, got, want))
                        failures += 1
            t = pq.read_table(full)
            arrow_rows += list(zip(*[t.column(n).to_pylist() for n in ("id", "d", "s")]))
            duck_rows += duckdb.sql("SELECT id, d, s FROM read_parquet('%s')" % full).fetchall()
        want_rows = canon_rows(silt_rows)
        if len(silt_rows) != 20001 or len(paths) != 2:
            print("FAIL %s: %d rows in %d files" % (name, len(silt_rows), len(paths)))
            failures += 1
        for reader, rows in (("pyarrow", arrow_rows), ("duckdb", duck_rows)):
            if canon_rows(rows) != want_rows:
                print("FAIL %s: %s reads other rows than silt" % (name, reader))
                failures += 1
        print("ok   %s: %d files of %s read by pyarrow and duckdb" % (name, len(paths), want))
    if failures:
        print("%d failures" % failures)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
