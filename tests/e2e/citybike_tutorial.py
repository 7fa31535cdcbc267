#!/usr/bin/env python3
"""The city-bike tutorial (../shared/tutorials/000_f979234874f9595e.txt, "Data
Lakes on Acid") replayed through `silt sql` over generated Oslo-city-bike-like
CSV data, with Spark + Delta checking every step:

  v0  v1-API trips (4 columns, legacy station ids) read from CSV with header and
      inferSchema, joined twice with the legacy-id dimension table, year/month
      columns added, written partitioned by (start_year, start_month)
  --  the v2-API trips (13 columns) appended without mergeSchema: refused with
      Spark's message naming the new columns, nothing written
  v1  the same append WITH SCHEMA EVOLUTION: new columns at the end, old rows null
      (and, on a copy of v0, the same append through the C API's
      silt_conn_write_arrow: refused without mergeSchema, equal to SQL's with it)
  v2  DELETE FROM t (every row): count 0
  v3  RESTORE TABLE t TO VERSION AS OF 1: counts back, RESTORE in history with
      Spark's metrics
  v4  (beyond the tutorial) MERGE WITH SCHEMA EVOLUTION with a range in ON
  v5  INSERT ... REPLACE WHERE over data columns
  then Spark writes after silt (append, UPDATE, MERGE) and silt reads each back.

After every operation Spark reads the table at that version (count and a
checksum of sums) and its history operations, and must agree with silt.

    citybike_tutorial.py SILT_BIN WORKDIR

Spark runs in this process (re-executed under <repo>/.peers/venv's python);
without the venv the Spark checks are skipped, and fail with CI=true.
"""
import csv
import ctypes
import io
import json
import random
import shutil
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(Path(__file__).resolve().parent))
import spark_peer  # noqa: E402

HAS_VENV = spark_peer.ensure_venv(REPO, [str(Path(__file__).resolve())] + sys.argv[1:])
if len(sys.argv) > 1:
    spark_peer.preload_sanitizer_runtime(Path(sys.argv[1]).resolve().parent / "libsilt.so",
                                         [str(Path(__file__).resolve())] + sys.argv[1:])

N_V1_FILES, N_V1_ROWS = 3, 4000      # per file
N_V2_FILES, N_V2_ROWS = 2, 3000
N_STATIONS = 60
V2_COLUMNS = ["started_at", "ended_at", "duration", "start_station_id", "start_station_name",
              "start_station_description", "start_station_latitude", "start_station_longitude",
              "end_station_id", "end_station_name", "end_station_description",
              "end_station_latitude", "end_station_longitude"]
# A checksum of the table: integers only, so Spark and silt print them alike.
SUMMARY = ["count(*)", "sum(start_station_id)", "sum(end_station_id)", "sum(api_version)",
           "sum(start_year * 100 + start_month)"]
EVOLVED = SUMMARY + ["count(duration)", "sum(duration)"]  # versions with the v2 columns
RIDERS = EVOLVED + ["count(rider_type)", "sum(length(rider_type))"]  # after the MERGE

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


def generate(work):
    """v1 CSVs (legacy ids, 2016-2018), the id mapping, v2 CSVs (new ids, 2019-2022)."""
    rnd = random.Random(42)
    (work / "v1").mkdir()
    (work / "v2").mkdir()
    legacy = list(range(157, 157 + N_STATIONS))
    with open(work / "legacy_new_station_id_mapping.csv", "w") as f:
        f.write("legacy_id,new_id\n")
        # one legacy id has no mapping: the inner join drops its trips, as in the tutorial
        for k, lid in enumerate(legacy[:-1]):
            f.write(f"{lid},{1000 + k}\n")
    for n in range(N_V1_FILES):
        with open(work / "v1" / f"trips-{2016 + n}.csv", "w") as f:
            f.write("Start station,Start time,End station,End time\n")
            for _ in range(N_V1_ROWS):
                month, day = rnd.randint(4, 11), rnd.randint(1, 28)
                h, m = rnd.randint(5, 22), rnd.randint(0, 59)
                f.write(f"{rnd.choice(legacy)},{2016 + n}-{month:02d}-{day:02d} {h:02d}:{m:02d}:00,"
                        f"{rnd.choice(legacy)},{2016 + n}-{month:02d}-{day:02d} {h:02d}:"
                        f"{min(m + 10, 59):02d}:30\n")
    for n in range(N_V2_FILES):
        with open(work / "v2" / f"trips-{2019 + n}.csv", "w") as f:
            w = csv.writer(f, lineterminator="\n")
            w.writerow(V2_COLUMNS)
            for _ in range(N_V2_ROWS):
                month, day = rnd.randint(1, 12), rnd.randint(1, 28)
                h, m = rnd.randint(5, 22), rnd.randint(0, 49)
                s, e = rnd.randint(1000, 1000 + N_STATIONS), rnd.randint(1000, 1000 + N_STATIONS)
                w.writerow([f"{2019 + n}-{month:02d}-{day:02d} {h:02d}:{m:02d}:01",
                            f"{2019 + n}-{month:02d}-{day:02d} {h:02d}:{m + 10:02d}:07",
                            600 + rnd.randint(0, 60), s, f"Station {s}", f"by the {s} corner",
                            59.9 + s / 100000, 10.7 + s / 100000, e, f"Station {e}",
                            f"by the {e} corner", 59.9 + e / 100000, 10.7 + e / 100000])


class Silt:
    def __init__(self, binary):
        self.binary = binary

    def run(self, sql, ok=True):
        return spark_peer.silt_sql(self.binary, sql, ok)

    def rows(self, sql):
        out = self.run(sql).stdout
        return list(csv.reader(io.StringIO(out)))[1:] if out else []

    def summary(self, t, version=None, exprs=EVOLVED):
        at = f" VERSION AS OF {version}" if version is not None else ""
        rows = self.rows(f"SELECT {', '.join(exprs)} FROM {t}{at}")
        return rows[0] if rows else None

    def history(self, t):
        return list(csv.DictReader(io.StringIO(self.run(f"DESCRIBE HISTORY {t}").stdout)))

    def operations(self, t):
        return sorted((int(h["version"]), h["operation"]) for h in self.history(t))


def compare_with_spark(peer, silt, t, path, version, label, exprs=EVOLVED):
    """Spark reads the table at `version` like silt does, and sees the same history."""
    if peer is None:
        return
    check(f"Spark reads {label} (version {version}) as silt does",
          peer.summary(path, version, exprs), silt.summary(t, version, exprs))
    check(f"Spark sees silt's history after {label}", peer.operations(path), silt.operations(t))


def main():
    started = time.monotonic()
    silt = Silt(sys.argv[1])
    work = Path(sys.argv[2])
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    generate(work)
    path = work / "processed" / "delta"
    t = f"delta.`{path}`"

    peer = None
    if HAS_VENV:
        peer = spark_peer.SparkPeer.start(REPO)
    elif spark_peer.in_ci():
        check("Spark peer (.peers/venv) is present in CI", False, True)
    else:
        print("skip Spark checks: no .peers/venv (run scripts/setup-peers.sh)")
    print(f"data generated, Spark up in {time.monotonic() - started:.1f} s")

    views = (f"CREATE TEMPORARY VIEW v1raw USING csv OPTIONS (path '{work / 'v1'}', header "
             "'true', inferSchema 'true'); "
             "CREATE TEMPORARY VIEW stationdim USING csv OPTIONS (path "
             f"'{work / 'legacy_new_station_id_mapping.csv'}', header 'true', inferSchema 'true'); "
             f"CREATE TEMPORARY VIEW v2raw USING csv OPTIONS (path '{work / 'v2'}', header "
             "'true', inferSchema 'true'); ")
    # version 0: v1 data, renamed, with year/month/api_version, legacy ids mapped by two joins
    silt.run(views + f"CREATE TABLE {t} USING DELTA PARTITIONED BY (start_year, start_month) AS "
             "SELECT v.`Start time` AS started_at, v.`End time` AS ended_at, "
             "year(v.`Start time`) AS start_year, month(v.`Start time`) AS start_month, "
             "1 AS api_version, s.new_id AS start_station_id, e.new_id AS end_station_id "
             "FROM v1raw v JOIN stationdim s ON v.`Start station` = s.legacy_id "
             "JOIN stationdim e ON v.`End station` = e.legacy_id")
    v1_raw = int(silt.rows(views + "SELECT count(*) FROM v1raw")[0][0])
    check("v1 raw rows read with header", v1_raw, N_V1_FILES * N_V1_ROWS)
    v0 = silt.summary(t, None, SUMMARY)
    check("v0: the inner joins drop the trips of the unmapped station",
          0 < int(v0[0]) < v1_raw, True)
    check("v0 partition folders are start_year=/start_month=",
          sorted({p.name for p in path.iterdir() if p.name.startswith("start_year=")}),
          [f"start_year={2016 + n}" for n in range(N_V1_FILES)])
    compare_with_spark(peer, silt, t, path, 0, "the v1 ingest", SUMMARY)

    # the v2 append without mergeSchema: refused, naming the columns, nothing written
    v2_select = ("SELECT *, year(started_at) AS start_year, month(started_at) AS start_month, "
                 "2 AS api_version FROM v2raw")
    bad = silt.run(views + f"INSERT INTO {t} BY NAME {v2_select}", ok=False)
    check("append with another schema is refused", bad.returncode, 1)
    check("the refusal is Spark's schema mismatch",
          "[DELTA_METADATA_MISMATCH] A schema mismatch detected when writing to the Delta table"
          in bad.stderr, True)
    check("the refusal names the new columns",
          all(f'"{c}"' in bad.stderr for c in V2_COLUMNS if c not in ("started_at", "ended_at",
              "start_station_id", "end_station_id")), True)
    check("the refusal hints at mergeSchema", "mergeSchema" in bad.stderr, True)
    check("nothing was written (still version 0)", silt.history(t)[0]["version"], "0")

    # The same append through the C API (a copy of version 0): refused without mergeSchema,
    # accepted with it; its result must equal the SQL append's below.
    capi_path = work / "processed" / "delta-capi"
    shutil.copytree(path, capi_path)
    capi = CApi(Path(sys.argv[1]).resolve().parent / "libsilt.so")
    rc, msg = capi.append(views + v2_select, capi_path, merge_schema=False)
    check("C API append with another schema is refused", rc, 9)
    check("the C API refusal is the same as SQL's",
          "[DELTA_METADATA_MISMATCH] A schema mismatch detected" in msg and "mergeSchema" in msg,
          True)
    rc, msg = capi.append(views + v2_select, capi_path, merge_schema=True)
    check("C API append with mergeSchema", (rc, msg), (0, ""))
    capi.close()

    # version 1: the same append with schema evolution
    silt.run(views + f"INSERT WITH SCHEMA EVOLUTION INTO {t} BY NAME {v2_select}")
    capi_t = f"delta.`{capi_path}`"
    check("the C API mergeSchema append gives SQL's rows", silt.summary(capi_t), silt.summary(t))
    check("the C API mergeSchema append gives SQL's schema", silt.rows(f"DESCRIBE {capi_t}"),
          silt.rows(f"DESCRIBE {t}"))
    check("the C API append is a WRITE (Append)",
          [(h["operation"], dict(json.loads(h["operationParameters"])).get("mode"))
           for h in silt.history(capi_t)][0], ("WRITE", "Append"))
    compare_with_spark(peer, silt, capi_t, capi_path, 1, "the C API mergeSchema append")
    columns = describe_columns(silt, t)
    check("v1: the new columns come after the old ones",
          columns[:7] + columns[7:9], ["started_at", "ended_at", "start_year", "start_month",
                                       "api_version", "start_station_id", "end_station_id",
                                       "duration", "start_station_name"])
    v1 = silt.summary(t)
    check("v1 count", int(v1[0]), int(v0[0]) + N_V2_FILES * N_V2_ROWS)
    check("v1: old rows have null durations", int(v1[5]), N_V2_FILES * N_V2_ROWS)
    check("api_version 1 and 2 rows", silt.rows(
        f"SELECT api_version, count(*) FROM {t} GROUP BY api_version ORDER BY api_version"),
        [["1", v0[0]], ["2", str(N_V2_FILES * N_V2_ROWS)]])
    compare_with_spark(peer, silt, t, path, 1, "the v2 append with schema evolution")

    # version 2: the "hacker" deletes everything
    deleted = silt.rows(f"DELETE FROM {t}")
    check("DELETE FROM t reports every row", deleted, [[v1[0]]])
    check("count after DELETE", silt.summary(t)[0], "0")
    compare_with_spark(peer, silt, t, path, 2, "DELETE FROM t")

    # version 3: RESTORE TABLE t TO VERSION AS OF 1
    restored = silt.rows(f"RESTORE TABLE {t} TO VERSION AS OF 1")
    check("RESTORE result has Spark's six metrics", len(restored[0]) if restored else 0, 6)
    check("counts back as at version 1", silt.summary(t), v1)
    compare_with_spark(peer, silt, t, path, 3, "RESTORE TO VERSION AS OF 1")
    hist = silt.history(t)
    check("history operations", [h["operation"] for h in hist],
          ["RESTORE", "DELETE", "WRITE", "CREATE TABLE AS SELECT"])
    params = dict(json.loads(hist[0]["operationParameters"]))
    metrics = dict(json.loads(hist[0]["operationMetrics"]))
    check("RESTORE parameters", params.get("version"), "1")
    check("RESTORE metric keys", sorted(metrics),
          sorted(["numRestoredFiles", "numRemovedFiles", "numOfFilesAfterRestore",
                  "removedFilesSize", "restoredFilesSize", "tableSizeAfterRestore"]))
    check("RESTORE numRemovedFiles (the DELETE removed all; nothing live)",
          metrics.get("numRemovedFiles"), "0")
    check("RESTORE numRestoredFiles = files after restore",
          metrics.get("numRestoredFiles"), metrics.get("numOfFilesAfterRestore"))
    if peer is not None:
        sh = peer.history(path, 3)
        check("Spark reads the RESTORE's metrics as silt wrote them",
              dict(sh["operationMetrics"]) if sh else None, metrics)

    more_silt_writes(peer, silt, t, path)
    if peer is not None:
        spark_writes_after_silt(peer, silt, t, path)

    print(f"{passed} passed, {failed} failed in {time.monotonic() - started:.1f} s")
    if failed == 0:
        shutil.rmtree(work, ignore_errors=True)
    return 1 if failed else 0


class CApi:
    """silt_conn_write_arrow through ctypes: rows of a silt query (one connection's Arrow
    stream) written by another connection, as a program holding Arrow data would."""

    class Options(ctypes.Structure):
        _fields_ = [("version", ctypes.c_uint), ("mode", ctypes.c_int),
                    ("merge_schema", ctypes.c_int), ("overwrite_schema", ctypes.c_int),
                    ("replace_where", ctypes.c_char_p),
                    ("partition_overwrite_mode", ctypes.c_char_p),
                    ("partition_by", ctypes.c_void_p), ("n_partition_by", ctypes.c_size_t)]

    def __init__(self, lib_path):
        lib = self.lib = ctypes.CDLL(str(lib_path))
        lib.silt_db_open.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]
        lib.silt_conn_open.argtypes = [ctypes.c_void_p, ctypes.c_void_p]
        lib.silt_conn_exec.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]
        lib.silt_conn_write_arrow.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p,
                                              ctypes.c_void_p]
        lib.silt_conn_errmsg.argtypes = [ctypes.c_void_p]
        lib.silt_conn_errmsg.restype = ctypes.c_char_p
        lib.silt_conn_close.argtypes = [ctypes.c_void_p]
        lib.silt_db_close.argtypes = [ctypes.c_void_p]
        self.db, self.writer = ctypes.c_void_p(), ctypes.c_void_p()
        assert lib.silt_db_open(ctypes.byref(self.db), None, None) == 0
        assert lib.silt_conn_open(ctypes.byref(self.writer), self.db) == 0

    def append(self, sql, target, merge_schema):
        stream = (ctypes.c_void_p * 5)()  # struct ArrowArrayStream
        reader = ctypes.c_void_p()  # a fresh session: its temporary views are the query's
        assert self.lib.silt_conn_open(ctypes.byref(reader), self.db) == 0
        if self.lib.silt_conn_exec(reader, sql.encode(), ctypes.byref(stream)) != 0:
            msg = self.lib.silt_conn_errmsg(reader).decode()
            self.lib.silt_conn_close(reader)
            return -1, msg
        opts = CApi.Options(1, 1, int(merge_schema), 0, None, None, None, 0)  # mode append
        rc = self.lib.silt_conn_write_arrow(self.writer, str(target).encode(),
                                            ctypes.byref(stream), ctypes.byref(opts))
        check("the C API released the stream", stream[3], None)
        self.lib.silt_conn_close(reader)
        return rc, self.lib.silt_conn_errmsg(self.writer).decode()

    def close(self):
        self.lib.silt_conn_close(self.writer)
        self.lib.silt_db_close(self.db)


def more_silt_writes(peer, silt, t, path):
    """Beyond the tutorial: a MERGE that evolves the schema with a range in its ON condition
    (version 4) and a replaceWhere over data columns (version 5), both read by Spark."""
    merged = silt.rows(
        f"MERGE WITH SCHEMA EVOLUTION INTO {t} AS t USING (SELECT DISTINCT start_station_id, "
        f"'member' AS rider_type FROM {t} WHERE api_version = 2 AND start_month = 6 "
        "UNION ALL SELECT 9999, 'casual') AS s ON t.start_station_id = s.start_station_id "
        "AND t.api_version = 2 AND t.start_month BETWEEN 6 AND 6 "
        "WHEN MATCHED THEN UPDATE SET * WHEN NOT MATCHED THEN INSERT *")
    june = silt.rows(f"SELECT count(*) FROM {t} WHERE api_version = 2 AND start_month = 6")
    check("MERGE updates every June v2 trip and inserts the new station",
          merged[0][1:] if merged else None, [june[0][0], "0", "1"])
    check("the MERGE added rider_type at the end", describe_columns(silt, t)[-1],
          "rider_type")
    check("the inserted row's partition values are null", silt.rows(
        f"SELECT start_year, start_month, rider_type FROM {t} WHERE start_station_id = 9999"),
        [["", "", "casual"]])
    compare_with_spark(peer, silt, t, path, 4, "MERGE WITH SCHEMA EVOLUTION", RIDERS)

    before = int(silt.rows(f"SELECT count(*) FROM {t} WHERE api_version = 1 AND "
                           "start_station_id < 1010")[0][0])
    silt.run(f"INSERT INTO {t} REPLACE WHERE api_version = 1 AND start_station_id < 1010 "
             f"SELECT * FROM {t} WHERE api_version = 1 AND start_station_id < 1005")
    check("REPLACE WHERE over data columns keeps only the rewritten rows", silt.rows(
        f"SELECT count(*) FROM {t} WHERE api_version = 1 AND start_station_id < 1010")[0][0],
        silt.rows(f"SELECT count(*) FROM {t} VERSION AS OF 4 WHERE api_version = 1 AND "
                  "start_station_id < 1005")[0][0])
    check("REPLACE WHERE deleted rows", before > 0, True)
    compare_with_spark(peer, silt, t, path, 5, "INSERT REPLACE WHERE on data columns", RIDERS)


def spark_writes_after_silt(peer, silt, t, path):
    """Spark appends, updates and merges into silt's table; silt reads each version back."""
    spark = peer.spark
    spark.sql(f"INSERT INTO delta.`{path}` (started_at, ended_at, start_year, start_month, "
              "api_version, start_station_id, end_station_id) SELECT "
              "TIMESTAMP'2022-10-01 10:00:00', TIMESTAMP'2022-10-01 10:20:00', 2022, 10, 3, "
              "id % 500, (id * 7) % 500 FROM range(434)")
    spark.sql(f"UPDATE delta.`{path}` SET end_station_id = end_station_id + 1 "
              "WHERE api_version = 2 AND start_month = 6")
    spark.sql(f"MERGE INTO delta.`{path}` t USING (SELECT id AS sid, 3 AS api FROM range(5)) s "
              "ON t.start_station_id = s.sid AND t.api_version = s.api "
              "WHEN MATCHED THEN UPDATE SET duration = 42 "
              "WHEN NOT MATCHED THEN INSERT (start_station_id, api_version, start_year, "
              "start_month, duration) VALUES (s.sid + 1000, 4, 2022, 11, 7)")
    for version, label in [(6, "Spark's append"), (7, "Spark's UPDATE"), (8, "Spark's MERGE")]:
        check(f"silt reads {label} (version {version}) as Spark does",
              silt.summary(t, version, RIDERS), peer.summary(path, version, RIDERS))
    check("silt sees Spark's history", silt.operations(t), peer.operations(path))
    check("silt reads Spark's latest version", silt.summary(t, None, RIDERS),
          peer.summary(path, None, RIDERS))


if __name__ == "__main__":
    sys.exit(main())
