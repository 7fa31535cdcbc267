#!/usr/bin/env python3
"""Page skipping on Parquet files written by pyarrow with a page index.

    parquet_page_index.py PROBE DIR

Writes files with pyarrow (write_page_index=True, small pages, several row
groups, data page v1 and v2, dictionary and plain strings, nulls) into DIR
and runs PROBE (tests/interop/parquet_page_probe.c) on each with several
ranges of the sorted integer column "id". PROBE itself checks that the rows
it read are exactly the rows of the pages the ColumnIndex keeps; this script
checks that every row it prints has pyarrow's values for that row, that the
rows with id in the range are exactly those of pyarrow's table filtered
afterwards, and that pages were skipped. Needs pyarrow from
<repo>/.peers/venv; when it is missing the script fails if CI=true and
skips (exit 77) otherwise.
"""
import os
import subprocess
import sys


def reexec_in_peers_venv():
    """Runs under <repo>/.peers/venv's python when started by another one."""
    repo = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    venv = os.path.join(repo, ".peers", "venv")
    venv_python = os.path.join(venv, "bin", "python")
    if os.path.exists(venv_python) and os.path.realpath(sys.prefix) != os.path.realpath(venv):
        os.execv(venv_python, [venv_python] + sys.argv)


reexec_in_peers_venv()

try:
    import pyarrow as pa
    import pyarrow.parquet as pq
except ImportError:
    print("pyarrow is not installed (run scripts/setup-peers.sh)")
    sys.exit(1 if os.environ.get("CI") == "true" else 77)

N_ROWS = 50000


def make_table():
    rows = list(range(N_ROWS))
    # id is sorted with repeats and null runs (whole null pages when long enough).
    ids = [None if 20000 <= r < 21500 else r // 2 for r in rows]
    s = [None if r % 11 == 0 else "s%d-%s" % (r, "x" * (r % 17)) for r in rows]
    k = ["red", "green", "blue", None][0:4]
    kind = [k[r % 4] for r in rows]
    x = [None if r % 9 == 0 else r * 0.25 - 1000.5 for r in rows]
    return pa.table({
        "row": pa.array(rows, pa.int64()),
        "id": pa.array(ids, pa.int32()),
        "s": pa.array(s, pa.string()),
        "kind": pa.array(kind, pa.string()),
        "x": pa.array(x, pa.float64()),
    })


FILES = {
    "v1_snappy.parquet": dict(compression="snappy", data_page_version="1.0"),
    "v2_zstd.parquet": dict(compression="zstd", data_page_version="2.0"),
    "plain_none.parquet": dict(compression="none", use_dictionary=False),
}

RANGES = [(0, 10), (3000, 3400), (12345, 12345), (9990, 10800), (24990, 30000), (-5, -1)]


def render(value):
    if value is None:
        return "null"
    if isinstance(value, float):
        return "%.17g" % value
    return str(value)


def check(probe, path, table, lo, hi):
    out = subprocess.run([probe, path, "id", str(lo), str(hi)], capture_output=True, text=True)
    if out.returncode != 0:
        return ["%s [%d, %d]: probe failed: %s" % (path, lo, hi, out.stderr.strip())]
    lines = out.stdout.splitlines()
    stats = dict(line.split(" ") for line in lines[-2:])
    lines = lines[:-2]
    columns = table.column_names
    pycols = {name: table.column(name).to_pylist() for name in columns}
    errors = []
    got_in_range = []
    for line in lines:
        fields = line.split("\t")
        row = int(fields[columns.index("row")])
        want = [render(pycols[name][row]) for name in columns]
        if fields != want:
            errors.append("%s row %d: silt %r, pyarrow %r" % (path, row, fields, want))
            break
        ident = pycols["id"][row]
        if ident is not None and lo <= ident <= hi:
            got_in_range.append(row)
    want_in_range = [r for r in range(N_ROWS)
                     if pycols["id"][r] is not None and lo <= pycols["id"][r] <= hi]
    if got_in_range != want_in_range:
        errors.append("%s [%d, %d]: %d matching rows, pyarrow filtered has %d"
                      % (path, lo, hi, len(got_in_range), len(want_in_range)))
    if int(stats["pages_skipped"]) == 0 or len(lines) >= N_ROWS:
        errors.append("%s [%d, %d]: nothing skipped (%s, %d rows)"
                      % (path, lo, hi, stats, len(lines)))
    return errors


def main():
    probe, out_dir = sys.argv[1], sys.argv[2]
    os.makedirs(out_dir, exist_ok=True)
    table = make_table()
    errors = []
    for name, opts in FILES.items():
        path = os.path.join(out_dir, name)
        pq.write_table(table, path, write_page_index=True, data_page_size=2048,
                       row_group_size=20000, **opts)
        md = pq.ParquetFile(path).metadata
        if not md.row_group(0).column(1).has_column_index:
            errors.append("%s: pyarrow wrote no column index" % name)
            continue
        for lo, hi in RANGES:
            errors += check(probe, path, table, lo, hi)
    for e in errors:
        print(e)
    print("%d files x %d ranges, %d errors" % (len(FILES), len(RANGES), len(errors)))
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
