#!/usr/bin/env python3
"""silt writes to every table of the shared conformance corpus, or refuses by name.

    delta_write_tables.py SILT_BIN CONFORMANCE_DIR [case ...]

For every table under CONFORMANCE_DIR/tables (copied to a temporary folder
first; ../shared is never written) silt runs, through `silt sql`:

  1. an append of the table's own rows:  INSERT INTO t SELECT * FROM t
  2. an UPDATE of one column where it holds one of its values
  3. a DELETE of the rows holding another value of that column

After each step `silt table scan --format jsonl` must equal the expected rows
of the latest version (expected/<case>/v<N>.jsonl) transformed by the steps
so far: appended rows twice, the updated cells replaced, the deleted rows
gone. At the end delta-rs (the `deltalake` package of <repo>/.peers/venv)
must read the same rows, whenever it reads the original table right; for
the other tables Spark with Delta (pyspark + delta-spark, one session at the
end) must. When the change data feed is on, silt's UPDATE and DELETE write
change data files, and delta-rs's change data feed of those two versions must
hold the pre- and post-images of the updated rows and the deleted rows.

A table may instead be refused: a statement then fails with an error naming a
writer feature ("writer feature \"X\"") and writes nothing (the copy's files
are byte-for-byte those before the statement). Usually that is the append;
with the change data feed on the append is accepted and UPDATE is refused.
Any other outcome fails the test. Tables whose fixture has no data files (case.json log_only)
cannot be read and are listed as such.

Prints one line per table and a closing line with the counts:
"N accepted, M refused by name, K log only, F failed". Exit status 0 when
nothing failed. Runs with the system python; the delta-rs cross-check needs
the peers venv and is a failure when CI=true and it is missing.
"""
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
PEERS_PYTHON = os.path.join(REPO, ".peers", "venv", "bin", "python")

INT_TYPES = ("byte", "short", "integer", "long")

# Accepted tables delta-rs could not check: (name, path, expected lines), read by Spark
# at the end in one session (starting Spark costs tens of seconds).
SPARK_PENDING = []


class Failure(Exception):
    pass


def run_silt(silt, *args):
    proc = subprocess.run([silt, *args], capture_output=True, text=True, timeout=300)
    return proc.returncode, proc.stdout, proc.stderr


def scan_lines(silt, path):
    rc, out, err = run_silt(silt, "table", "scan", path, "--format", "jsonl",
                            "--max-rows", "100000000")
    if rc != 0:
        raise Failure("silt could not read the table back: " + err.strip())
    return sorted((l for l in out.splitlines() if l), key=lambda l: l.encode())


def canonical(row):
    """A parsed row back in the corpus's canonical text (keys keep their order)."""
    return json.dumps(row, separators=(",", ":"), ensure_ascii=False)


def file_digests(root):
    """Every file below root with its SHA-256: what "nothing was written" compares."""
    out = {}
    for base, _, names in os.walk(root):
        for name in names:
            full = os.path.join(base, name)
            with open(full, "rb") as f:
                out[os.path.relpath(full, root)] = hashlib.sha256(f.read()).hexdigest()
    return out


def simple_string(value):
    return isinstance(value, str) and re.fullmatch(r"[A-Za-z0-9 _.:-]{1,40}", value) is not None


def usable_type(dtype):
    return dtype in INT_TYPES or dtype in ("string", "date") or (
        isinstance(dtype, str) and re.fullmatch(r"decimal\(\d+,\d+\)", dtype) is not None)


def literal(value, dtype):
    """The SQL literal of a canonical value (corpus README) of a column type."""
    if dtype in INT_TYPES:
        return str(value)
    if dtype == "date":
        return "DATE '%s'" % value
    if dtype.startswith("decimal"):
        return "CAST('%s' AS %s)" % (value, dtype)
    return "'" + value + "'"


def new_value(dtype, old):
    """A canonical value of the type for UPDATE to set (different from old)."""
    if dtype == "string":
        return "silt-updated"
    if dtype == "date":
        return "2001-02-03" if old != "2001-02-03" else "2001-02-04"
    if dtype.startswith("decimal"):
        scale = int(dtype[:-1].split(",")[1])
        value = "0" + ("." + "0" * scale if scale else "")
        return value if value != old else value[:-1] + "1"
    if dtype == "byte":
        return 99 if old != 99 else 98
    return 424242 if old != 424242 else 424243


def identity_columns(path, always_only):
    """Top-level identity columns (GENERATED ALWAYS only, when always_only) of the table's
    latest metaData in its JSON commits: an append cannot give ALWAYS ones values (Delta's
    DELTA_IDENTITY_COLUMNS_EXPLICIT_INSERT_NOT_SUPPORTED), and no UPDATE may set any
    (DELTA_IDENTITY_COLUMNS_UPDATE_NOT_SUPPORTED)."""
    meta = None
    for name in sorted(os.listdir(os.path.join(path, "_delta_log"))):
        if not re.fullmatch(r"\d{20}\.json", name):
            continue
        with open(os.path.join(path, "_delta_log", name)) as f:
            for line in f:
                if '"metaData"' in line:
                    meta = json.loads(line).get("metaData") or meta
    if meta is None or not meta.get("schemaString"):
        return []
    fields = json.loads(meta["schemaString"]).get("fields", [])
    return [fl["name"] for fl in fields
            if "delta.identity.start" in fl.get("metadata", {})
            and not (always_only and fl["metadata"].get("delta.identity.allowExplicitInsert"))]


def pick_column(case, rows, exclude=()):
    """The column UPDATE and DELETE work on: a top-level column of a simple type with
    two distinct usable values, else one (data columns before partition columns; for
    a table without rows any such column). Returns (name, type, update value, delete value)
    or None."""
    parts = set(case.get("partition_columns") or [])
    fields = case["schema"]
    ordered = [f for f in fields if f["name"] not in parts] + [f for f in fields if f["name"] in parts]
    one_value = None  # a column with a single value: DELETE then removes the updated rows
    for field in ordered:
        dtype = field["type"]
        if not usable_type(dtype) or field["name"] in exclude:
            continue
        if not rows:
            return field["name"], dtype, new_value(dtype, None), new_value(dtype, None)
        values = []
        for row in rows:
            v = row.get(field["name"])
            if v is None or isinstance(v, bool):
                continue
            if dtype == "string" and not simple_string(v):
                continue
            if v not in values:
                values.append(v)
            if len(values) == 2:
                return field["name"], dtype, values[0], values[1]
        if values and one_value is None:
            one_value = field["name"], dtype, values[0], None
    return one_value


def quote_name(name):
    return "`" + name.replace("`", "``") + "`"


def quote_path(path):
    return "delta.`" + path + "`"


def refused_by_name(err):
    match = re.search(r'writer feature "([^"]+)"', err)
    return match.group(1) if match else None


DELTARS_SCRIPT = """
import json, sys
sys.path.insert(0, %r)
import canon, pyarrow as pa
from deltalake import DeltaTable
for job in json.load(sys.stdin):
    out = {"path": job["path"]}
    try:
        dt = DeltaTable(job["path"])
        schema = json.loads(dt.schema().to_json())
        out["rows"] = canon.rows(dt.to_pyarrow_table().to_pylist(), schema)
        if job.get("cdf"):
            schema["fields"].append({"name": "_change_type", "type": "string",
                                     "nullable": True, "metadata": {}})
            try:
                start, end = job["cdf"]
                changes = pa.table(dt.load_cdf(starting_version=start,
                                               ending_version=end).read_all()).to_pylist()
                out["changes"] = canon.rows(changes, schema)
            except Exception as exc:
                out["changes_error"] = str(exc).splitlines()[0][:200] if str(exc) else repr(exc)
    except Exception as exc:
        out["error"] = (str(exc).splitlines() or [repr(exc)])[0][:200]
    print(json.dumps(out), flush=True)
"""


def deltars_read(jobs):
    """delta-rs reads tables in one process (starting Python with pyarrow and deltalake
    costs a second or more): jobs are {"path", "cdf": [start, end] or None}; returns
    {path: {"rows": sorted lines, "changes": sorted lines} or {"error": text}}."""
    if not jobs:
        return {}
    script = DELTARS_SCRIPT % os.path.join(REPO, "tests", "interop")
    proc = subprocess.run([PEERS_PYTHON, "-c", script], input=json.dumps(jobs),
                          capture_output=True, text=True, timeout=1800,
                          env=dict(os.environ, TZ="UTC"))
    out = {}
    for line in proc.stdout.splitlines():
        if line.startswith("{\"path\""):
            item = json.loads(line)
            for key in ("rows", "changes"):
                if key in item:
                    item[key] = sorted(item[key], key=lambda l: l.encode())
            out[item["path"]] = item
    for job in jobs:
        out.setdefault(job["path"], {"error": "delta-rs did not answer: " + (
            (proc.stderr.strip().splitlines() or ["no output"])[-1])})
    return out


# Tables delta-rs reads right as given: {path: True}; filled before the writes.
DELTARS_OK = {}
# Accepted tables for delta-rs to check at the end: (name, path, rows, cdf range, changes).
DELTARS_PENDING = []


SPARK_SCRIPT = """
import json, os, sys, time
os.environ["TZ"] = "UTC"
time.tzset()
sys.path.insert(0, %r)
sys.path.insert(0, %r)
import canon, peers
spark = peers.spark_session()
for path in sys.argv[1:]:
    try:
        df = spark.read.format("delta").load(path)
        lines = canon.rows(df.toArrow().to_pylist(), json.loads(df.schema.json()))
        print(json.dumps({"path": path, "rows": lines}), flush=True)
    except Exception as exc:
        print(json.dumps({"path": path, "error": str(exc).splitlines()[0][:300]}), flush=True)
peers.stop_spark()
"""


def spark_lines(paths):
    """Spark's rows (canonical lines, sorted) of each table, read in one Spark session:
    {path: lines or an error text}."""
    script = SPARK_SCRIPT % (os.path.join(REPO, "tests", "interop"),
                             os.path.join(REPO, "tests", "peers"))
    proc = subprocess.run([PEERS_PYTHON, "-c", script, *paths], capture_output=True, text=True,
                          timeout=1800, env=dict(os.environ, TZ="UTC"))
    out = {}
    for line in proc.stdout.splitlines():
        if line.startswith("{\"path\""):
            item = json.loads(line)
            out[item["path"]] = (sorted(item["rows"], key=lambda l: l.encode())
                                 if "rows" in item else item["error"])
    for path in paths:
        out.setdefault(path, "Spark did not answer: " +
                       ((proc.stderr.strip().splitlines() or ["no output"])[-1]))
    return out


def latest_version(path):
    log = os.path.join(path, "_delta_log")
    return max(int(f[:20]) for f in os.listdir(log)
               if len(f) == 25 and f.endswith(".json") and f[:20].isdigit())


def has_cdc(path, version):
    with open(os.path.join(path, "_delta_log", "%020d.json" % version)) as f:
        return any('"cdc"' in line[:8] for line in f)


def change_lines(rows, change_type):
    return [canonical(dict(r, _change_type=change_type)) for r in rows]


def expect_equal(step, got, want):
    if got == want:
        return
    missing = [l for l in want if l not in set(got)][:3]
    extra = [l for l in got if l not in set(want)][:3]
    raise Failure("%s: %d rows read, %d expected; missing %s; unexpected %s"
                  % (step, len(got), len(want), missing, extra))


def original_lines(conformance, name):
    """The expected rows of a table's latest version (canonical lines, sorted), or None."""
    try:
        with open(os.path.join(conformance, "expected", name, "case.json")) as f:
            case = json.load(f)
        jsonl = case["versions"][str(case["latest_version"])].get("jsonl")
        if case.get("log_only") or jsonl is None:
            return None
        with open(os.path.join(conformance, "expected", name, jsonl)) as f:
            return sorted((l.strip() for l in f if l.strip()), key=lambda l: l.encode())
    except (OSError, ValueError, KeyError):
        return None


def run_case(silt, conformance, name, workdir, peer_ok):
    """Returns ("accepted", detail) or ("refused", feature) or ("log only", why); raises Failure."""
    with open(os.path.join(conformance, "expected", name, "case.json")) as f:
        case = json.load(f)
    if case.get("log_only"):
        return "log only", "the fixture has no data files"
    latest = str(case["latest_version"])
    jsonl = case["versions"][latest].get("jsonl")
    if jsonl is None:
        raise Failure("case.json gives no rows for the latest version %s" % latest)
    with open(os.path.join(conformance, "expected", name, jsonl)) as f:
        rows = [json.loads(l) for l in f if l.strip()]

    path = os.path.join(workdir, name)  # copied by main, read by delta-rs there
    before = file_digests(path)
    peer_why = DELTARS_OK.get(path, "no peer")

    table = quote_path(path)
    identity = identity_columns(path, True)
    if identity:  # the append lets the identity columns take new values
        cols = ", ".join(quote_name(f["name"]) for f in case["schema"]
                         if f["name"] not in identity)
        append = "INSERT INTO %s (%s) SELECT %s FROM %s" % (table, cols, cols, table)
    else:
        append = "INSERT INTO %s SELECT * FROM %s" % (table, table)
    rc, _, err = run_silt(silt, "sql", append)
    if rc != 0:
        feature = refused_by_name(err)
        if feature is None:
            raise Failure("append failed without naming a writer feature: " + err.strip())
        if file_digests(path) != before:
            raise Failure("refused (%s) but files were written or changed" % feature)
        return "refused", feature
    original = sorted((canonical(r) for r in rows), key=lambda l: l.encode())
    rows = rows + rows
    if identity:
        got = [json.loads(l) for l in scan_lines(silt, path)]

        def aside(rs):
            return sorted((canonical({k: v for k, v in r.items() if k not in identity})
                           for r in rs), key=lambda l: l.encode())
        expect_equal("after the append (identity columns aside)", aside(got), aside(rows))
        for col in identity:
            values = [r.get(col) for r in got]
            if None in values or len(set(values)) != len(values):
                raise Failure("identity column %s is not unique after the append" % col)
        rows = got
    else:
        expect_equal("after the append", scan_lines(silt, path), sorted(
            (canonical(r) for r in rows), key=lambda l: l.encode()))

    picked = pick_column(case, rows, identity_columns(path, False))
    if picked is None:
        raise Failure("no column of a simple type with two values to UPDATE and DELETE on")
    column, dtype, old, gone = picked
    new = new_value(dtype, old)
    col_sql = quote_name(column)
    if gone is None:
        gone = new
    steps = [
        ("UPDATE %s SET %s = %s WHERE %s = %s" % (table, col_sql, literal(new, dtype), col_sql,
                                                  literal(old, dtype)),
         lambda r: [dict(x, **{column: new}) if x.get(column) == old else x for x in r]),
        ("DELETE FROM %s WHERE %s = %s" % (table, col_sql, literal(gone, dtype)),
         lambda r: [x for x in r if x.get(column) != gone]),
    ]
    changes = []  # the change data feed silt's UPDATE and DELETE must produce
    for statement, transform in steps:
        if statement.startswith("UPDATE"):
            pre = [r for r in rows if r.get(column) == old]
            changes += change_lines(pre, "update_preimage")
            changes += change_lines(transform(pre), "update_postimage")
        else:
            changes += change_lines([r for r in rows if r.get(column) == gone], "delete")
        before = file_digests(path)
        rc, _, err = run_silt(silt, "sql", statement)
        if rc != 0:
            # A feature that only matters for commits removing data (the change data
            # feed) lets the append through; the UPDATE/DELETE must then be refused by
            # name before it writes anything.
            feature = refused_by_name(err)
            if feature is None:
                raise Failure("%s failed: %s" % (statement, err.strip()))
            if file_digests(path) != before:
                raise Failure("%s refused (%s) but files were written or changed"
                              % (statement.split()[0], feature))
            return "refused", "%s (append accepted, %s refused)" % (feature,
                                                                    statement.split()[0])
        rows = transform(rows)
        expect_equal(statement.split()[0], scan_lines(silt, path),
                     sorted((canonical(r) for r in rows), key=lambda l: l.encode()))

    detail = "%d rows, column %s" % (len(rows), column)
    last = latest_version(path)
    cdf = has_cdc(path, last - 1) or has_cdc(path, last)
    if cdf:
        detail += ", change data written"
    if peer_why is True:
        DELTARS_PENDING.append((name, path, sorted((canonical(r) for r in rows),
                                                   key=lambda l: l.encode()),
                                [last - 1, last] if cdf else None,
                                sorted(changes, key=lambda l: l.encode())))
        detail += ", delta-rs checks it at the end"
    else:
        detail += (", delta-rs cannot read the original right (%s)" % peer_why) if peer_ok else ""
        if peer_ok:
            SPARK_PENDING.append((name, path, sorted((canonical(r) for r in rows),
                                                     key=lambda l: l.encode()),
                                  os.path.join(conformance, "tables", name), original))
    return "accepted", detail


def main():
    if len(sys.argv) < 3:
        print(__doc__)
        return 2
    silt, conformance = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    tables = os.path.join(conformance, "tables")
    if not os.path.isdir(tables):
        print("conformance data not found at %s" % tables)
        return 1
    # SILT_TEST_PEERS=off (the sanitizer run): silt's own checks only
    peers_off = os.environ.get("SILT_TEST_PEERS", "").lower() == "off"
    peer_ok = os.path.exists(PEERS_PYTHON) and not peers_off
    if not peer_ok and not peers_off and os.environ.get("CI") == "true":
        print("the test peers are not set up (%s missing); run scripts/setup-peers.sh"
              % PEERS_PYTHON)
        return 1
    names = sys.argv[3:] or sorted(os.listdir(tables))
    counts = {"accepted": 0, "refused": 0, "log only": 0, "failed": 0}
    with tempfile.TemporaryDirectory(prefix="silt-write-conf-") as workdir:
        originals = []
        for name in names:
            shutil.copytree(os.path.join(tables, name), os.path.join(workdir, name))
            expected = original_lines(conformance, name)
            if expected is not None:
                originals.append((os.path.join(workdir, name), expected))
        if peer_ok:
            read = deltars_read([{"path": p} for p, _ in originals])
            for p, expected in originals:
                got = read[p]
                DELTARS_OK[p] = (True if got.get("rows") == expected
                                 else got.get("error", "other rows")[:100])
        for name in names:
            try:
                outcome, detail = run_case(silt, conformance, name, workdir, peer_ok)
            except (Failure, subprocess.TimeoutExpired, OSError, ValueError, KeyError) as exc:
                outcome, detail = "failed", str(exc)
            counts[outcome] += 1
            label = {"accepted": "ok      ", "refused": "refused ", "log only": "log-only",
                     "failed": "FAIL    "}[outcome]
            print("%s %s: %s" % (label, name, detail), flush=True)
        if DELTARS_PENDING:
            read = deltars_read([{"path": path, "cdf": cdf}
                                 for _, path, _, cdf, _ in DELTARS_PENDING])
            for name, path, want, cdf, changes in DELTARS_PENDING:
                got = read[path]
                try:
                    if "error" in got:
                        raise Failure("delta-rs could not read silt's table: " + got["error"])
                    expect_equal("delta-rs read", got["rows"], want)
                    if cdf is not None:
                        if "changes_error" in got:
                            raise Failure("delta-rs could not read the change data feed: "
                                          + got["changes_error"])
                        expect_equal("delta-rs change data feed", got["changes"], changes)
                    print("ok       %s: delta-rs agrees (%d rows%s)"
                          % (name, len(want), ", change data feed" if cdf else ""))
                except Failure as exc:
                    counts["accepted"] -= 1
                    counts["failed"] += 1
                    print("FAIL     %s: %s" % (name, exc), flush=True)
        if SPARK_PENDING:
            # Spark reads each original too: a table Spark misreads (fixture quirks) as
            # it was given says nothing about silt's writes.
            read = spark_lines([p for item in SPARK_PENDING for p in (item[1], item[3])])
            for name, path, want, orig_path, orig_want in SPARK_PENDING:
                got = read[path]
                if read[orig_path] != orig_want:
                    print("ok       %s: Spark does not read the original right either" % name)
                    continue
                if isinstance(got, str):
                    detail = "Spark could not read silt's table: " + got
                else:
                    try:
                        expect_equal("Spark read", got, want)
                        print("ok       %s: Spark agrees (%d rows)" % (name, len(got)))
                        continue
                    except Failure as exc:
                        detail = str(exc)
                counts["accepted"] -= 1
                counts["failed"] += 1
                print("FAIL     %s: %s" % (name, detail), flush=True)
    print("%d accepted, %d refused by name, %d log only, %d failed"
          % (counts["accepted"], counts["refused"], counts["log only"], counts["failed"]))
    return 1 if counts["failed"] else 0


if __name__ == "__main__":
    sys.exit(main())
