#!/usr/bin/env python3
"""The trips tutorial (../shared/tutorials/001_7f61e7eb7ca43da3.txt) replayed
through `silt sql`: 2,000,000 JSON rows into a partitioned Delta table with
CTAS, a schema-evolving INSERT BY NAME, UPDATE, DELETE and MERGE, then time
travel by version and timestamp and DESCRIBE HISTORY.

    trips_tutorial.py SILT_BIN WORKDIR

When <repo>/.peers/venv exists (the script re-runs itself under its python),
Spark reads the table after every operation (a checksum per version and the
history operations must equal silt's), then appends, updates and merges into
it, and silt must read each of those versions as Spark does (with CI=true a
missing venv is a failure).
Prints one line per check and "N passed, M failed"; exits 1 on a failure.
"""
import csv
import io
import json
import shutil
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(Path(__file__).resolve().parent))
import spark_peer  # noqa: E402
from trips_data import N_ROWS, write_inputs  # noqa: E402

HAS_VENV = spark_peer.ensure_venv(REPO, [str(Path(__file__).resolve())] + sys.argv[1:])
# A checksum of a version, integers only: before and after the origin column.
SUMMARY = ["count(*)", "sum(trip_id)", "sum(length(destination))", "count(DISTINCT route_id)"]
EVOLVED = SUMMARY + ["count(origin)", "sum(length(origin))"]

passed = failed = 0


def describe_columns(silt, t):
    """The column names DESCRIBE lists, before Spark's '# Partition Information' section."""
    names = []
    for r in silt.rows(f"DESCRIBE {t}"):
        if r[0] == "" or r[0].startswith("#"):
            break
        names.append(r[0])
    return names


def check(name, got, want):
    global passed, failed
    if got == want:
        passed += 1
        print(f"ok   {name}")
    else:
        failed += 1
        print(f"FAIL {name}: got {got!r}, want {want!r}")


class Silt:
    def __init__(self, binary):
        self.binary = binary

    def run(self, sql, ok=True):
        proc = subprocess.run([self.binary, "sql", "--format", "csv", sql],
                              capture_output=True, text=True, timeout=300)
        if ok and proc.returncode != 0:
            raise RuntimeError(f"silt failed on {sql!r}:\n{proc.stderr}")
        return proc

    def rows(self, sql):
        """Rows of the last result of sql as lists of strings."""
        out = self.run(sql).stdout
        lines = out.splitlines()
        # Each statement prints a header; keep the last result only.
        return list(csv.reader(io.StringIO(out)))[1:] if lines else []

    def one(self, sql):
        rows = self.rows(sql)
        return rows[0][0] if rows else None


def history(silt, table):
    rows = list(csv.DictReader(io.StringIO(silt.run(f"DESCRIBE HISTORY {table}").stdout)))
    return rows


def silt_summary(silt, t, version, exprs):
    at = f" VERSION AS OF {version}" if version is not None else ""
    rows = silt.rows(f"SELECT {', '.join(exprs)} FROM {t}{at}")
    return rows[0] if rows else None


def silt_operations(silt, t):
    return sorted((int(h["version"]), h["operation"]) for h in history(silt, t))


def compare_with_spark(peer, silt, t, path, version, label, exprs=EVOLVED):
    """Spark reads `version` as silt does and sees the same history."""
    if peer is None:
        return
    check(f"Spark reads {label} (version {version}) as silt does",
          peer.summary(path, version, exprs), silt_summary(silt, t, version, exprs))
    check(f"Spark sees silt's history after {label}", peer.operations(path),
          silt_operations(silt, t))


def spark_writes_after_silt(peer, silt, t, path):
    """Spark appends, updates and merges into silt's table; silt reads each version back."""
    peer.sql(f"INSERT INTO delta.`{path}` (trip_id, tstamp, route_id, destination, origin) "
             "SELECT 3000000 + id, '2022-02-01 00:00:00', 'K', 'Hartford', 'Boston' "
             "FROM range(100)")
    peer.sql(f"UPDATE delta.`{path}` SET origin = 'Albany' WHERE route_id = 'B' AND "
             "trip_id % 1000 = 1")
    peer.sql(f"MERGE INTO delta.`{path}` t USING (SELECT 2999990 + id AS trip_id, 'Avon' AS d "
             "FROM range(20)) s ON t.trip_id = s.trip_id "
             "WHEN MATCHED THEN UPDATE SET destination = s.d "
             "WHEN NOT MATCHED THEN INSERT (trip_id, route_id, destination) "
             "VALUES (s.trip_id, 'L', s.d)")
    for version, label in [(5, "Spark's append"), (6, "Spark's UPDATE"), (7, "Spark's MERGE")]:
        check(f"silt reads {label} (version {version}) as Spark does",
              silt_summary(silt, t, version, EVOLVED), peer.summary(path, version, EVOLVED))
    check("silt sees Spark's history", silt_operations(silt, t), peer.operations(path))
    check("silt reads Spark's rows", silt.rows(
        f"SELECT route_id, count(*), count(origin) FROM {t} WHERE route_id IN ('K', 'L') "
        "GROUP BY route_id ORDER BY route_id"), [["K", "100", "100"], ["L", "10", "0"]])


def main():
    started = time.monotonic()
    silt = Silt(sys.argv[1])
    work = Path(sys.argv[2])
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    table_path = work / "trips"
    t = f"delta.`{table_path}`"

    write_inputs(str(work))

    peer = None
    if HAS_VENV:
        peer = spark_peer.SparkPeer.start(REPO)
    elif spark_peer.in_ci():
        check("Spark peer (.peers/venv) is present in CI", False, True)
    else:
        print("skip Spark checks: no .peers/venv (run scripts/setup-peers.sh)")
    print(f"data generated, Spark up in {time.monotonic() - started:.1f} s")
    # version 0: CTAS partitioned by route_id
    silt.run(f"CREATE TABLE {t} USING DELTA PARTITIONED BY (route_id) "
             f"AS SELECT * FROM json.`{work / 'trips.json'}`")
    check("v0 columns", describe_columns(silt, t),
          ["destination", "route_id", "trip_id", "tstamp"])
    check("v0 count", silt.one(f"SELECT count(*) FROM {t}"), str(N_ROWS))
    check("v0 partition folders", sorted(p.name for p in table_path.iterdir()
                                         if p.name.startswith("route_id=")),
          [f"route_id={chr(65 + i)}" for i in range(10)])
    compare_with_spark(peer, silt, t, table_path, 0, "the CTAS", SUMMARY)

    # version 1: 20 rows with a new column, autoMerge on, INSERT BY NAME
    silt.run("SET spark.databricks.delta.schema.autoMerge.enabled = true; "
             f"INSERT INTO {t} BY NAME SELECT * FROM json.`{work / 'insert.json'}`")
    check("v1 count and max(trip_id)",
          silt.rows(f"SELECT count(*), max(trip_id) FROM {t}"), [[str(N_ROWS + 20), "2000019"]])
    check("v1 old rows' origin is null",
          silt.one(f"SELECT count(*) FROM {t} WHERE origin IS NULL"), str(N_ROWS))
    check("v1 Syracuse", silt.one(f"SELECT count(*) FROM {t} WHERE destination = 'Syracuse'"),
          "20")
    compare_with_spark(peer, silt, t, table_path, 1, "the evolving INSERT BY NAME")

    # version 2: UPDATE
    silt.run(f"UPDATE {t} SET destination = 'Philadelphia' WHERE destination = 'Syracuse'")
    check("v2 Syracuse", silt.one(f"SELECT count(*) FROM {t} WHERE destination = 'Syracuse'"),
          "0")
    check("v2 Philadelphia",
          silt.one(f"SELECT count(*) FROM {t} WHERE destination = 'Philadelphia'"), "200020")
    compare_with_spark(peer, silt, t, table_path, 2, "the UPDATE")

    # version 3: DELETE
    silt.run(f"DELETE FROM {t} WHERE destination = 'New Jersey'")
    check("v3 count", silt.one(f"SELECT count(*) FROM {t}"), "1800020")
    compare_with_spark(peer, silt, t, table_path, 3, "the DELETE")

    # A failed statement leaves the table as it was (still version 3).
    bad = silt.run(f"INSERT INTO {t} (trip_id) VALUES ('not a number')", ok=False)
    check("bad INSERT fails", bad.returncode, 1)
    bad = silt.run(f"UPDATE {t} SET trip_id = destination WHERE trip_id = 7", ok=False)
    check("bad UPDATE fails", bad.returncode, 1)
    check("table still at version 3 after the failures", history(silt, t)[0]["version"], "3")

    # version 4: MERGE of 10 rows, 5 matched and 5 new
    merged = silt.rows(
        f"MERGE INTO {t} AS t USING json.`{work / 'merge.json'}` AS s "
        "ON t.trip_id = s.trip_id WHEN MATCHED THEN UPDATE SET * WHEN NOT MATCHED THEN INSERT *")
    check("v4 merge counts (affected, updated, deleted, inserted)", merged,
          [["10", "5", "0", "5"]])
    check("v4 count", silt.one(f"SELECT count(*) FROM {t}"), "1800025")
    compare_with_spark(peer, silt, t, table_path, 4, "the MERGE")
    check("v4 merged rows", silt.rows(
        f"SELECT trip_id, destination, origin FROM {t} WHERE trip_id >= 2000014 ORDER BY trip_id"),
        [["2000014", "Philadelphia", "Las Vagas"],
         ["2000015", "Vernon", "Seattle"], ["2000016", "Winsted", "Seattle"],
         ["2000017", "Westport", "Seattle"], ["2000018", "Fairfield", "Seattle"],
         ["2000019", "Stamford", "Seattle"], ["2000020", "Avon", "Seattle"],
         ["2000021", "Simsbury", "Seattle"], ["2000022", "Farmington", "Seattle"],
         ["2000023", "Windsor", "Seattle"], ["2000024", "Ellington", "Seattle"]])

    # time travel
    for version, want in [(0, N_ROWS), (1, N_ROWS + 20), (2, N_ROWS + 20), (3, 1800020)]:
        check(f"VERSION AS OF {version}",
              silt.one(f"SELECT count(*) FROM {t} VERSION AS OF {version}"), str(want))
    check("Philadelphia at version 1",
          silt.one(f"SELECT count(*) FROM {t} VERSION AS OF 1 "
                   "WHERE destination = 'Philadelphia'"), "200000")
    hist = history(silt, t)
    v0_ts = hist[-1]["timestamp"]
    check("TIMESTAMP AS OF version 0's time",
          silt.one(f"SELECT count(*) FROM {t} TIMESTAMP AS OF '{v0_ts}'"), str(N_ROWS))

    # history
    check("history versions", [h["version"] for h in hist], ["4", "3", "2", "1", "0"])
    check("history operations", [h["operation"] for h in hist],
          ["MERGE", "DELETE", "UPDATE", "WRITE", "CREATE TABLE AS SELECT"])
    params = [dict(json.loads(h["operationParameters"])) for h in hist]
    metrics = [dict(json.loads(h["operationMetrics"])) for h in hist]
    check("CTAS partitionBy", params[4].get("partitionBy"), '["route_id"]')
    check("CTAS numOutputRows", metrics[4].get("numOutputRows"), str(N_ROWS))
    check("WRITE mode", params[3].get("mode"), "Append")
    check("WRITE numOutputRows", metrics[3].get("numOutputRows"), "20")
    check("UPDATE predicate", params[2].get("predicate"), '["destination = \'Syracuse\'"]')
    check("UPDATE numUpdatedRows", metrics[2].get("numUpdatedRows"), "20")
    check("DELETE predicate", params[1].get("predicate"), '["destination = \'New Jersey\'"]')
    check("DELETE numDeletedRows", metrics[1].get("numDeletedRows"), "200000")
    check("MERGE predicate", params[0].get("predicate"), '["t.trip_id = s.trip_id"]')
    check("MERGE matchedPredicates", params[0].get("matchedPredicates"),
          '[{"actionType":"update"}]')
    check("MERGE notMatchedPredicates", params[0].get("notMatchedPredicates"),
          '[{"actionType":"insert"}]')
    check("MERGE numTargetRowsUpdated", metrics[0].get("numTargetRowsUpdated"), "5")
    check("MERGE numTargetRowsInserted", metrics[0].get("numTargetRowsInserted"), "5")
    check("MERGE numSourceRows", metrics[0].get("numSourceRows"), "10")

    if peer is not None:
        spark_writes_after_silt(peer, silt, t, table_path)

    print(f"{passed} passed, {failed} failed in {time.monotonic() - started:.1f} s")
    if failed == 0:
        shutil.rmtree(work, ignore_errors=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
