#!/usr/bin/env python3
"""The DuckDB-compared query suite: tests/sql/duckdb/*.sql.

    sql_suite.py DRIVER WORK_DIR [FILE_OR_NAME_FILTER...]

Generates deterministic datasets into WORK_DIR (trips, bike trips as CSV,
stations and routes dimensions; as Parquet, CSV, JSON and silt-written
Delta tables, one of them partitioned and one with three versions), then
runs every block of every query file twice: through silt (DRIVER, one
process per file, see sql_suite_driver.c) and through DuckDB (the oracle)
on the same files, and compares the rows.

Query file format (one block per query):

    == name                 starts a block; the SQL follows, up to a marker
    -- duckdb               DuckDB's text for the same question, where its
                            dialect spells it differently (Spark syntax first)
    -- expect               Spark's answer, one JSON array per row, where
                            Spark's semantics differ from DuckDB's (say why
                            in a comment line starting with "-- why:")
    -- error: TEXT          silt must fail with a message containing TEXT (several
                            such lines: all of them, e.g. the class and the position)
    -- known-failure: WHY   a bug not fixed yet: reported, not counted as a
                            failure, and reported as FIXED once it passes
    -- unordered            compare as a multiset despite a top-level ORDER BY
    -- rowcount             compare only how many rows (LIMIT without ORDER BY)

Rows are compared in order when the query's outermost level has ORDER BY,
as sorted lists otherwise; numbers with a relative tolerance of 1e-9,
timestamps as instants (no zone = UTC), dates as text, decimals as numbers.

Placeholders in the SQL: {W} is the work folder. Both engines see the same
view names (trips, routes, stations, bikes, trips_csv, trips_json, ...).
DuckDB runs with nulls first on ASC and last on DESC, as Spark orders.

Needs duckdb and pyarrow from <repo>/.peers/venv (scripts/setup-peers.sh);
when they are missing it fails if CI=true and skips (exit 77) otherwise.
"""
import datetime
import decimal
import glob
import json
import math
import os
import random
import re
import subprocess
import sys
import time

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))


def reexec_in_peers_venv():
    venv = os.path.join(REPO, ".peers", "venv")
    python = os.path.join(venv, "bin", "python")
    if os.path.exists(python) and os.path.realpath(sys.prefix) != os.path.realpath(venv):
        os.execv(python, [python] + sys.argv)


reexec_in_peers_venv()
try:
    import duckdb
    import pyarrow as pa
    import pyarrow.parquet as pq
except ImportError:
    print("duckdb/pyarrow are not installed (run scripts/setup-peers.sh)")
    sys.exit(1 if os.environ.get("CI") == "true" else 77)

RS = "\x1e"
QUERY_DIR = os.path.join(REPO, "tests", "sql", "duckdb")
N_TRIPS = 20000
N_BIKES = 6000
DESTINATIONS = ["Airport", "Harbor", "Station", "Stadium", "University", "Old Town", "Zoo",
                "harbor east"]
UTC = datetime.timezone.utc

# ---- datasets -------------------------------------------------------------------


def gen_trips(rnd):
    start = datetime.datetime(2024, 1, 1, tzinfo=UTC)
    ids = list(range(1, N_TRIPS + 1))
    rnd.shuffle(ids)
    rows = []
    for tid in ids:
        ts = start + datetime.timedelta(seconds=rnd.randrange(0, 120 * 86400))
        route = rnd.randrange(1, 31)
        dest = None if rnd.random() < 0.03 else DESTINATIONS[rnd.randrange(len(DESTINATIONS))]
        fare = None if rnd.random() < 0.05 else round(rnd.uniform(1.5, 60.0), 2)
        rows.append((tid, ts, route, dest, fare))
    return rows


def gen_bikes(rnd):
    start = datetime.datetime(2024, 5, 1)
    kinds = ["classic_bike", "electric_bike", "docked_bike"]
    rows = []
    for i in range(N_BIKES):
        st = start + datetime.timedelta(seconds=rnd.randrange(0, 30 * 86400))
        dur = rnd.randrange(60, 3 * 3600)
        en = st + datetime.timedelta(seconds=dur)
        s_id = None if rnd.random() < 0.05 else rnd.randrange(1, 151)
        e_id = None if rnd.random() < 0.05 else rnd.randrange(1, 151)
        s_lat, s_lng = round(59.90 + rnd.random() * 0.06, 6), round(10.70 + rnd.random() * 0.1, 6)
        if rnd.random() < 0.03:
            e_lat = e_lng = None
        else:
            e_lat, e_lng = round(59.90 + rnd.random() * 0.06, 6), round(10.70 + rnd.random() * 0.1, 6)
        member = "member" if rnd.random() < 0.7 else "casual"
        rows.append((f"R{i:06d}", kinds[rnd.randrange(3)], st, en, s_id, e_id,
                     s_lat, s_lng, e_lat, e_lng, member, dur))
    return rows


def csv_field(v):
    if v is None:
        return ""
    if isinstance(v, datetime.datetime):
        return v.strftime("%Y-%m-%d %H:%M:%S")
    s = str(v)
    if any(c in s for c in ",\"\n"):
        return '"' + s.replace('"', '""') + '"'
    return s


def write_csv(path, header, rows):
    with open(path, "w") as f:
        f.write(",".join(header) + "\n")
        for r in rows:
            f.write(",".join(csv_field(v) for v in r) + "\n")


def generate(work):
    rnd = random.Random(20261130)
    trips = gen_trips(rnd)
    bikes = gen_bikes(rnd)
    cols = list(zip(*trips))
    t = pa.table({
        "trip_id": pa.array(cols[0], pa.int64()),
        "tstamp": pa.array(cols[1], pa.timestamp("us", tz="UTC")),
        "route_id": pa.array(cols[2], pa.int32()),
        "destination": pa.array(cols[3], pa.string()),
        "fare": pa.array(cols[4], pa.float64()),
    })
    os.makedirs(os.path.join(work, "trips"), exist_ok=True)
    half = N_TRIPS // 2
    pq.write_table(t.slice(0, half), os.path.join(work, "trips", "part-0.parquet"), row_group_size=4000)
    pq.write_table(t.slice(half), os.path.join(work, "trips", "part-1.parquet"), row_group_size=4000)
    # The same trips as CSV (two files, for globs) and JSON lines.
    os.makedirs(os.path.join(work, "trips_csv"), exist_ok=True)
    header = ["trip_id", "tstamp", "route_id", "destination", "fare"]
    write_csv(os.path.join(work, "trips_csv", "a.csv"), header, trips[:half])
    write_csv(os.path.join(work, "trips_csv", "b.csv"), header, trips[half:])
    with open(os.path.join(work, "trips.json"), "w") as f:
        for r in trips:
            obj = {"trip_id": r[0], "tstamp": r[1].strftime("%Y-%m-%d %H:%M:%S"), "route_id": r[2],
                   "destination": r[3], "fare": r[4]}
            f.write(json.dumps({k: v for k, v in obj.items() if v is not None}) + "\n")

    routes = pa.table({
        "route_id": pa.array(list(range(1, 26)), pa.int32()),
        "name": pa.array([f"Line {i}" for i in range(1, 26)], pa.string()),
        "kind": pa.array(["tram" if i % 4 == 0 else "bus" for i in range(1, 26)], pa.string()),
        "length_km": pa.array([None if i % 7 == 0 else round(3 + i * 0.75, 2) for i in range(1, 26)],
                              pa.float64()),
    })
    pq.write_table(routes, os.path.join(work, "routes.parquet"))
    write_csv(os.path.join(work, "routes.csv"), ["route_id", "name", "kind", "length_km"],
              list(zip(*[routes.column(i).to_pylist() for i in range(4)])))

    # Stations 1..120 (bike trips use 1..150, so some have no station), with
    # the legacy ids of the city-bike tutorial's dimension table.
    st_rows = []
    for i in range(1, 121):
        st_rows.append((i, 1000 + i, f"Station {i:03d}", None if i % 11 == 0 else 5 + (i * 7) % 30,
                        round(59.90 + (i * 37 % 100) / 1700, 6), round(10.70 + (i * 53 % 100) / 1000, 6),
                        ["Sentrum", "Grunerlokka", "Frogner", "Majorstuen"][i % 4]))
    sc = list(zip(*st_rows))
    stations = pa.table({
        "station_id": pa.array(sc[0], pa.int32()), "legacy_id": pa.array(sc[1], pa.int64()),
        "name": pa.array(sc[2], pa.string()), "capacity": pa.array(sc[3], pa.int32()),
        "lat": pa.array(sc[4], pa.float64()), "lng": pa.array(sc[5], pa.float64()),
        "district": pa.array(sc[6], pa.string()),
    })
    pq.write_table(stations, os.path.join(work, "stations.parquet"))
    with open(os.path.join(work, "stations.json"), "w") as f:
        for r in st_rows:
            f.write(json.dumps(dict(zip(stations.column_names, r))) + "\n")

    gen_tutorial_data(work, rnd)
    write_csv(os.path.join(work, "bikes.csv"),
              ["ride_id", "rideable_type", "started_at", "ended_at", "start_station_id", "end_station_id",
               "start_lat", "start_lng", "end_lat", "end_lng", "member_casual", "duration_s"], bikes)


BOROUGHS = ["Manhattan", "Brooklyn", "Queens", "Bronx", "Staten Island"]
ARTISTS = ["Justice", "Daft Punk", "Air", "Phoenix", "M83"]


def gen_tutorial_data(work, rnd):
    """Small tables of the shapes the tutorials read: film permits (a multi-line JSON
    array), Spotify plays, AdventureWorks products and IoT readings."""
    permits = [{"eventid": 100000 + i, "borough": BOROUGHS[rnd.randrange(5)],
                "eventtype": rnd.choice(["Shooting Permit", "Rigging Permit", "Theater Load in and Load Outs"]),
                "startdatetime": f"2022-0{1 + i % 9}-1{i % 10}T0{i % 10}:00:00.000"} for i in range(300)]
    with open(os.path.join(work, "permits.json"), "w") as f:
        json.dump(permits, f, indent=2)
    with open(os.path.join(work, "spotify.csv"), "w") as f:
        f.write("ts,platform,ms_played,track_name,artist_name,shuffle\n")
        for i in range(200):
            f.write(f"2021-03-{1 + i % 28:02d} 1{i % 10}:00:00,android,{1000 + rnd.randrange(300000)},"
                    f"Track {i % 37},{ARTISTS[rnd.randrange(5)]},{'true' if i % 3 else 'false'}\n")
    with open(os.path.join(work, "products.csv"), "w") as f:
        f.write("ProductID,ProductName,Category,ListPrice\n")
        for i in range(771, 791):
            f.write(f"{i},Product {i},{['Mountain Bikes', 'Road Bikes', 'Helmets'][i % 3]},{round(100 + i * 3.5, 4)}\n")
    # Nested JSON: a struct, an array, absent fields.
    with open(os.path.join(work, "nested.json"), "w") as f:
        f.write('{"id":1,"user":{"name":"ann","age":31},"tags":["a","b"],"score":1.5}\n'
                '{"id":2,"user":{"name":"bob","age":null},"tags":[],"score":null}\n'
                '{"id":3,"user":null,"tags":["c"]}\n')
    # Malformed records for the CSV modes: a value of another type, too few and too many fields.
    with open(os.path.join(work, "bad.csv"), "w") as f:
        f.write("id,n,s\n1,10,a\n2,x,b\n3,30\n4,40,d,extra\n5,50,e\n")
    with open(os.path.join(work, "iot.json"), "w") as f:
        for i in range(50):
            f.write(json.dumps({"device": f"Dev{i % 7}", "status": ["ok", "error", "ok"][i % 3]}) + "\n")


def tutorial_setup(work):
    """The tutorials' tables: 001's trips with its four versions (write, append, update
    Syracuse -> Philadelphia, delete New Jersey) and catalog tables for 001-004."""
    w = work
    new_rows = ", ".join(f"({2000000 + i}, TIMESTAMP '2024-06-01 10:{i:02d}:00', {1 + i % 5}, "
                         f"'{['Syracuse', 'New Jersey', 'Philadelphia'][i % 3]}')" for i in range(1, 16))
    return [
        f"CREATE TABLE delta.`{w}/tut_trips` USING DELTA PARTITIONED BY (route_id) AS SELECT trip_id + 1980000 "
        f"AS trip_id, tstamp, route_id, CASE destination WHEN 'Zoo' THEN 'Syracuse' WHEN 'Harbor' THEN "
        f"'Philadelphia' WHEN 'Airport' THEN 'New Jersey' ELSE destination END AS destination "
        f"FROM parquet.`{w}/trips`",
        f"INSERT INTO delta.`{w}/tut_trips` VALUES {new_rows}",
        f"UPDATE delta.`{w}/tut_trips` SET destination = 'Philadelphia' WHERE destination = 'Syracuse'",
        f"DELETE FROM delta.`{w}/tut_trips` WHERE destination = 'New Jersey'",
        "CREATE DATABASE my_delta_db",
        f"CREATE TABLE my_delta_db.delta_spark_table USING DELTA LOCATION '{w}/tut_trips'",
        "CREATE DATABASE rmoff",
        f"CREATE TEMPORARY VIEW permits_src USING json OPTIONS (path '{w}/permits.json', multiLine 'true')",
        "CREATE TABLE rmoff.permits USING DELTA AS SELECT * FROM permits_src",
        f"CREATE TABLE delta.`{w}/spotify_delta` USING DELTA AS SELECT * FROM read_files('{w}/spotify.csv', "
        f"format => 'csv', header => true, inferSchema => true)",
        f"CREATE TABLE DeltaDataSQL USING DELTA LOCATION '{w}/spotify_delta'",
        f"CREATE TABLE delta.`{w}/products_delta` USING DELTA AS SELECT * FROM read_files('{w}/products.csv', "
        f"format => 'csv', header => true, inferSchema => true)",
        f"UPDATE delta.`{w}/products_delta` SET ListPrice = ListPrice * 0.9 WHERE ProductID = 771",
        "CREATE DATABASE AdventureWorks",
        f"CREATE TABLE AdventureWorks.ProductsExternal USING DELTA LOCATION '{w}/products_delta'",
        f"CREATE TABLE AdventureWorks.ProductsManaged USING DELTA AS SELECT * FROM read_files("
        f"'{w}/products.csv', format => 'csv', header => true, inferSchema => true)",
        f"CREATE TABLE AdventureWorks.Products USING DELTA LOCATION '{w}/products_delta'",
        f"CREATE TABLE delta.`{w}/iot_delta` USING DELTA AS SELECT * FROM json.`{w}/iot.json`",
        f"CREATE TABLE AdventureWorks.IotDeviceData USING DELTA LOCATION '{w}/iot_delta'",
    ]


def silt_setup(work):
    """Statements that make silt's views and Delta tables (run once, then views per file)."""
    w = work
    return [
        f"CREATE TABLE delta.`{w}/trips_delta` USING DELTA AS SELECT * FROM parquet.`{w}/trips`",
        f"DELETE FROM delta.`{w}/trips_delta` WHERE destination = 'Zoo'",
        f"INSERT INTO delta.`{w}/trips_delta` SELECT trip_id + 100000, tstamp, route_id, 'Zoo', fare "
        f"FROM parquet.`{w}/trips` WHERE destination = 'Zoo' AND route_id < 5",
        f"CREATE TABLE delta.`{w}/trips_part` USING DELTA PARTITIONED BY (route_id) "
        f"AS SELECT * FROM parquet.`{w}/trips`",
        f"CREATE TABLE delta.`{w}/trips_dpart` USING DELTA PARTITIONED BY (destination) "
        f"AS SELECT * FROM parquet.`{w}/trips`",
        f"CREATE TABLE delta.`{w}/stations_delta` USING DELTA AS SELECT * FROM parquet.`{w}/stations.parquet`",
    ]


def silt_views(work):
    w = work
    return "; ".join([
        f"CREATE TEMPORARY VIEW trips USING parquet OPTIONS (path '{w}/trips')",
        f"CREATE TEMPORARY VIEW routes USING parquet OPTIONS (path '{w}/routes.parquet')",
        f"CREATE TEMPORARY VIEW stations USING parquet OPTIONS (path '{w}/stations.parquet')",
        f"CREATE TEMPORARY VIEW bikes USING csv OPTIONS (path '{w}/bikes.csv', header 'true', "
        f"inferSchema 'true')",
        f"CREATE TEMPORARY VIEW trips_csv USING csv OPTIONS (path '{w}/trips_csv', header 'true', "
        f"inferSchema 'true')",
        f"CREATE TEMPORARY VIEW trips_json USING json OPTIONS (path '{w}/trips.json')",
        f"CREATE TEMPORARY VIEW stations_json USING json OPTIONS (path '{w}/stations.json')",
        f"CREATE TEMPORARY VIEW routes_csv USING csv OPTIONS (path '{w}/routes.csv', header 'true', "
        f"inferSchema 'true')",
        f"CREATE TEMPORARY VIEW trips_delta USING delta OPTIONS (path '{w}/trips_delta')",
        f"CREATE TEMPORARY VIEW trips_part USING delta OPTIONS (path '{w}/trips_part')",
        # 001: spark.read.format("delta").load(path).createOrReplaceTempView(...), by version.
        f"CREATE TEMPORARY VIEW temp_trip_table USING delta OPTIONS (path '{w}/tut_trips')",
    ] + [f"CREATE TEMPORARY VIEW temp_trip_table_v{v} AS SELECT * FROM delta.`{w}/tut_trips` VERSION AS OF {v}"
         for v in range(4)] + [
        # 002: spark.read.option("multiline", "true").json(path).createOrReplaceTempView("permits_src")
        f"CREATE TEMPORARY VIEW permits_src USING json OPTIONS (path '{w}/permits.json', multiLine 'true', "
        f"inferSchema 'true')",
    ])


def duckdb_connect(work):
    w = work
    con = duckdb.connect()
    con.execute("SET TimeZone = 'UTC'")
    con.execute("SET default_null_order = 'nulls_first_on_asc_last_on_desc'")
    con.execute("SET threads = 2")
    views = {
        "trips": f"SELECT * FROM read_parquet('{w}/trips/*.parquet')",
        "routes": f"SELECT * FROM read_parquet('{w}/routes.parquet')",
        "stations": f"SELECT * FROM read_parquet('{w}/stations.parquet')",
        "bikes": f"SELECT * FROM read_csv('{w}/bikes.csv', header = true)",
        "trips_csv": f"SELECT * FROM read_csv('{w}/trips_csv/*.csv', header = true)",
        # Spark infers JSON timestamps as strings (inferTimestamp is off by default).
        "trips_json": f"SELECT destination, fare, route_id, trip_id, tstamp FROM read_json('{w}/trips.json', "
                      f"columns = {{trip_id: 'BIGINT', tstamp: 'VARCHAR', route_id: 'BIGINT', "
                      f"destination: 'VARCHAR', fare: 'DOUBLE'}})",
        "stations_json": f"SELECT capacity, district, lat, legacy_id, lng, name, station_id FROM "
                         f"read_json('{w}/stations.json', columns = {{station_id: 'BIGINT', legacy_id: 'BIGINT', "
                         f"name: 'VARCHAR', capacity: 'BIGINT', lat: 'DOUBLE', lng: 'DOUBLE', "
                         f"district: 'VARCHAR'}})",
        "routes_csv": f"SELECT * FROM read_csv('{w}/routes.csv', header = true)",
        # The Delta copies at each version, as the setup statements made them.
        "trips_v0": "SELECT * FROM trips",
        "trips_v1": "SELECT * FROM trips WHERE destination IS DISTINCT FROM 'Zoo'",
        "trips_v2": "SELECT * FROM trips_v1 UNION ALL SELECT trip_id + 100000, tstamp, route_id, 'Zoo', fare "
                    "FROM trips WHERE destination = 'Zoo' AND route_id < 5",
        "trips_delta": "SELECT * FROM trips_v2",
        # Delta keeps partition columns at their schema position (Hive tables move them last).
        "trips_part": "SELECT * FROM trips",
        "trips_dpart": "SELECT * FROM trips",
        "stations_delta": "SELECT * FROM stations",
        "tut_base": "SELECT trip_id + 1980000 AS trip_id, tstamp, route_id, CASE destination WHEN 'Zoo' THEN "
                    "'Syracuse' WHEN 'Harbor' THEN 'Philadelphia' WHEN 'Airport' THEN 'New Jersey' "
                    "ELSE destination END AS destination FROM trips",
        "temp_trip_table_v0": "SELECT * FROM tut_base",
        "temp_trip_table_v1": "SELECT * FROM tut_base UNION ALL SELECT 2000000 + i, TIMESTAMP '2024-06-01 10:00:00' "
                              "+ i * INTERVAL 1 MINUTE, 1 + i % 5, ['Syracuse', 'New Jersey', 'Philadelphia'][i % 3 + 1] "
                              "FROM range(1, 16) r(i)",
        "temp_trip_table_v2": "SELECT trip_id, tstamp, route_id, CASE WHEN destination = 'Syracuse' THEN "
                              "'Philadelphia' ELSE destination END AS destination FROM temp_trip_table_v1",
        "temp_trip_table_v3": "SELECT * FROM temp_trip_table_v2 WHERE destination IS DISTINCT FROM 'New Jersey'",
        "temp_trip_table": "SELECT * FROM temp_trip_table_v3",
        "my_delta_db.delta_spark_table": "SELECT * FROM temp_trip_table_v3",
        "permits_src": f"SELECT borough, eventid, eventtype, startdatetime FROM read_json('{w}/permits.json', "
                       f"format = 'array', columns = {{eventid: 'BIGINT', borough: 'VARCHAR', eventtype: 'VARCHAR', "
                       f"startdatetime: 'VARCHAR'}})",
        "rmoff.permits": "SELECT * FROM permits_src",
        "spotifyStreamData": f"SELECT * FROM read_csv('{w}/spotify.csv', header = true)",
        "DeltaDataSQL": "SELECT * FROM spotifyStreamData",
        "adventureworks.ProductsManaged": f"SELECT * FROM read_csv('{w}/products.csv', header = true)",
        "adventureworks.ProductsExternal": "SELECT ProductID, ProductName, Category, CASE WHEN ProductID = 771 "
                                           "THEN ListPrice * 0.9 ELSE ListPrice END AS ListPrice FROM "
                                           "adventureworks.ProductsManaged",
        "adventureworks.Products": "SELECT * FROM adventureworks.ProductsExternal",
        "adventureworks.IotDeviceData": f"SELECT device, status FROM read_json('{w}/iot.json')",
    }
    for schema in ("my_delta_db", "rmoff", "adventureworks"):
        con.execute(f"CREATE SCHEMA {schema}")
    for name, sql in views.items():
        con.execute(f"CREATE VIEW {name} AS {sql}")
    return con


# ---- query files ----------------------------------------------------------------


COMMIT_TS = {}


def subst(sql, work):
    """{W}: the work folder; {TSn}: when trips_delta's version n was committed (ms, UTC)."""
    sql = sql.replace("{W}", work)
    return re.sub(r"\{TS(\d+)\}", lambda m: COMMIT_TS[int(m.group(1))], sql)


def read_commit_times(work):
    """Delta takes a commit's time from its log file's modification time (no in-commit timestamps)."""
    for v in range(3):
        path = os.path.join(work, "trips_delta", "_delta_log", f"{v:020d}.json")
        ms = int(os.stat(path).st_mtime_ns // 1000000)
        t = datetime.datetime.fromtimestamp(ms / 1000, UTC)
        COMMIT_TS[v] = t.strftime("%Y-%m-%d %H:%M:%S.") + f"{ms % 1000:03d}"


class Block:
    def __init__(self, file, name, line):
        self.file, self.name, self.line = file, name, line
        self.sql, self.duck, self.expect = [], None, None
        self.error = self.known = None
        self.unordered = False
        self.rowcount = False

    def text(self, work):
        return subst("\n".join(self.sql).strip().rstrip(";"), work)


def parse_file(path):
    blocks, cur, section = [], None, None
    with open(path) as f:
        for lineno, raw in enumerate(f, 1):
            line = raw.rstrip("\n")
            s = line.strip()
            if s.startswith("== "):
                cur = Block(os.path.basename(path), s[3:].strip(), lineno)
                blocks.append(cur)
                section = "sql"
                continue
            if cur is None or s.startswith("#") or s.startswith("-- why"):
                continue
            if s == "-- duckdb":
                cur.duck, section = [], "duck"
            elif s == "-- expect":
                cur.expect, section = [], "expect"
            elif s.startswith("-- error:"):
                cur.error = (cur.error or []) + [s[len("-- error:"):].strip()]
            elif s.startswith("-- known-failure:"):
                cur.known = s[len("-- known-failure:"):].strip()
            elif s == "-- unordered":
                cur.unordered = True
            elif s == "-- rowcount":
                cur.rowcount = True
            elif section == "sql":
                cur.sql.append(line)
            elif section == "duck":
                cur.duck.append(line)
            elif section == "expect" and s:
                cur.expect.append(json.loads(s))
    names = [b.name for b in blocks]
    dups = {n for n in names if names.count(n) > 1}
    if dups:
        raise SystemExit(f"{path}: duplicate block names {sorted(dups)}")
    return blocks


def outer_order_by(sql):
    """True when ORDER BY appears outside every parenthesis (the result's order)."""
    depth, out = 0, []
    for ch in re.sub(r"'(?:[^']|'')*'", "''", sql):
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
        elif depth == 0:
            out.append(ch)
    return re.search(r"\border\s+by\b", "".join(out), re.I) is not None


# ---- normalisation --------------------------------------------------------------

TS_RE = re.compile(r"^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:?\d{2})?$")
NUM_RE = re.compile(r"^-?\d+(\.\d+)?$")


def norm(v):
    if v is None:
        return (0, "")
    if isinstance(v, bool):
        return (1, v)
    if isinstance(v, (int, float, decimal.Decimal)):
        f = float(v)
        if math.isnan(f):
            return (2, "NaN")
        return (2, f)
    if isinstance(v, datetime.datetime):
        if v.tzinfo is None:
            v = v.replace(tzinfo=UTC)
        return (3, v.astimezone(UTC).isoformat())
    if isinstance(v, datetime.date):
        return (4, v.isoformat())
    if isinstance(v, datetime.timedelta):
        return (6, v.total_seconds())
    if isinstance(v, str):
        if TS_RE.match(v) and (v.endswith("Z") or "T" in v):
            t = datetime.datetime.fromisoformat(v.replace("Z", "+00:00"))
            return norm(t)
        if NUM_RE.match(v):
            return (2, float(v))
        if v in ("NaN",):
            return (2, "NaN")
        if v in ("Infinity", "-Infinity"):
            return (2, float(v))
        return (4, v)
    if isinstance(v, (list, tuple)):
        return (7, tuple(norm(x) for x in v))
    if isinstance(v, dict):
        return (8, tuple((k, norm(x)) for k, x in v.items()))
    if isinstance(v, bytes):
        return (4, v.hex())
    return (5, str(v))


def same_value(x, y):
    if x[0] != y[0]:
        return False
    if x[0] == 2 and isinstance(x[1], float) and isinstance(y[1], float):
        if math.isinf(x[1]) or math.isinf(y[1]):
            return x[1] == y[1]
        return abs(x[1] - y[1]) <= 1e-9 * max(1.0, abs(x[1]), abs(y[1]))
    if x[0] == 7:
        return len(x[1]) == len(y[1]) and all(same_value(a, b) for a, b in zip(x[1], y[1]))
    return x[1] == y[1]


def same_rows(a, b):
    return len(a) == len(b) and all(
        len(ra) == len(rb) and all(same_value(x, y) for x, y in zip(ra, rb)) for ra, rb in zip(a, b))


def sort_key(row):
    return tuple((k, str(v)) if not isinstance(v, float) else (k, "%030.12f" % v) for k, v in row)


# ---- running --------------------------------------------------------------------


WAREHOUSE = [""]
SLOW_MS = [float(os.environ.get("SQL_SUITE_SLOW_MS", "0"))]


def run_driver(driver, blocks_sql, timeout=300):
    """Runs the blocks in one driver process; returns [(ok, rows_or_error)] for the
    blocks it got through, and whether it ended early (a crash)."""
    payload = RS.join(blocks_sql)
    proc = subprocess.run([driver, "--threads", "2", "--warehouse", WAREHOUSE[0]], input=payload.encode(),
                          capture_output=True, timeout=timeout)
    results, rows = [], []
    for line in proc.stdout.decode("utf-8", "replace").split("\n"):
        if line.startswith(RS + "OK"):
            ms = line.split()[1] if len(line.split()) > 1 else "0"
            if SLOW_MS[0] and float(ms) > SLOW_MS[0]:
                print(f"# slow block {len(results)}: {ms} ms")
            results.append((True, rows))
            rows = []
        elif line.startswith(RS + "ERR"):
            results.append((False, line[len(RS) + 4:].replace("\\n", "\n")))
            rows = []
        elif line:
            # Pairs, not a dict: Spark names count(*) and count(1) alike.
            pairs = json.loads(line, object_pairs_hook=lambda kv: kv)
            rows.append(tuple(norm(v) for _, v in pairs))
    crash = None
    if proc.returncode != 0 or len(results) < len(blocks_sql):
        crash = f"driver exited with {proc.returncode}: {proc.stderr.decode('utf-8', 'replace')[-600:]}"
    return results, crash


def run_silt_file(driver, work, blocks):
    """Results per block; a crash fails the block that crashed and the rest resume."""
    views = silt_views(work)
    out, i = [], 0
    while i < len(blocks):
        results, crash = run_driver(driver, [views] + [b.text(work) for b in blocks[i:]])
        if not results or not results[0][0]:
            msg = results[0][1] if results else crash
            raise RuntimeError(f"silt could not create the views: {msg}")
        got = results[1:]
        out.extend(got)
        i += len(got)
        if crash is not None and i < len(blocks):
            out.append((False, "CRASH " + crash))
            i += 1
    return out


def duck_text(b, work):
    """The block's SQL with silt's path sources spelled as DuckDB's views and readers."""
    sql = "\n".join(b.sql).strip().rstrip(";")
    sql = re.sub(r"delta\.`\{W\}/trips_delta`\s*(?:VERSION\s+AS\s+OF\s+|@v)(\d+)", r"trips_v\1", sql,
                 flags=re.I)
    sql = re.sub(r"delta\.`\{W\}/trips_delta`\s*TIMESTAMP\s+AS\s+OF\s+'\{TS(\d+)\}'", r"trips_v\1", sql,
                 flags=re.I)
    sql = re.sub(r"delta\.`\{W\}/(\w+)`", r"\1", sql)
    sql = re.sub(r"parquet\.`\{W\}/trips`", "read_parquet('{W}/trips/*.parquet')", sql)
    sql = re.sub(r"parquet\.`([^`]*)`", r"read_parquet('\1')", sql)
    return subst(sql, work)


def duck_rows(con, sql):
    return [tuple(norm(v) for v in row) for row in con.execute(sql).fetchall()]


def check_block(con, work, b, res):
    """Returns None when the block passes, else what differs."""
    ok, got = res
    sql = b.text(work)
    if b.error is not None:
        if ok:
            return f"expected an error containing {b.error!r}, got {len(got)} rows"
        missing = [e for e in b.error if e not in got]
        return None if not missing else f"error {got!r} does not contain {missing!r}"
    if not ok:
        return f"silt failed: {got}"
    if b.expect is not None:
        want = [tuple(norm(v) for v in row) for row in b.expect]
    else:
        duck_sql = subst("\n".join(b.duck), work) if b.duck is not None else duck_text(b, work)
        try:
            want = duck_rows(con, duck_sql)
        except duckdb.Error as exc:
            return f"duckdb failed (give a -- duckdb or -- expect section): {exc}"
    if b.rowcount:
        got, want = [((2, float(len(got))),)], [((2, float(len(want))),)]
    elif b.unordered or not outer_order_by(sql):
        got, want = sorted(got, key=sort_key), sorted(want, key=sort_key)
    if same_rows(got, want):
        return None
    show = lambda rows: [tuple(v for _, v in r) for r in rows[:6]]
    return f"rows differ ({len(got)} vs {len(want)})\n       silt: {show(got)}\n       want: {show(want)}"


def main():
    driver, work = sys.argv[1], os.path.abspath(sys.argv[2])
    filters = sys.argv[3:]
    os.makedirs(work, exist_ok=True)
    for old in ("trips_delta", "trips_part", "trips_dpart", "stations_delta", "tut_trips", "spotify_delta",
                "products_delta", "iot_delta", "warehouse"):
        subprocess.run(["rm", "-rf", os.path.join(work, old)], check=True)
    WAREHOUSE[0] = os.path.join(work, "warehouse")
    os.makedirs(WAREHOUSE[0])
    t0 = time.time()
    generate(work)
    setup = silt_setup(work) + tutorial_setup(work)
    results, crash = run_driver(driver, setup)
    for stmt, (ok, msg) in zip(setup, results):
        if not ok:
            print(f"setup failed: {stmt}\n  {msg}")
            return 1
    if crash:
        print(f"setup failed: {crash}")
        return 1
    read_commit_times(work)
    con = duckdb_connect(work)
    counts = {"ok": 0, "fail": 0, "known": 0, "fixed": 0}
    files = sorted(glob.glob(os.path.join(QUERY_DIR, "*.sql")))
    for path in files:
        blocks = parse_file(path)
        if filters:
            blocks = [b for b in blocks if any(f in b.file or f == b.name for f in filters)]
        if not blocks:
            continue
        t_file = time.time()
        res = run_silt_file(driver, work, blocks)
        print(f"# {os.path.basename(path)}: {len(blocks)} queries, silt {time.time() - t_file:.1f} s")
        for b, r in zip(blocks, res):
            problem = check_block(con, work, b, r)
            where = f"{b.file}:{b.line} {b.name}"
            if b.known is not None:
                if problem is None:
                    counts["fixed"] += 1
                    print(f"FIXED {where} (remove its known-failure mark)")
                else:
                    counts["known"] += 1
                    print(f"KNOWN {where}: {b.known}\n       {problem.splitlines()[0][:300]}")
            elif problem is None:
                counts["ok"] += 1
            else:
                counts["fail"] += 1
                print(f"FAIL {where}\n       {b.text(work)[:400]}\n       {problem}")
    total = sum(counts.values())
    print(f"{total} queries in {len(files)} files: {counts['ok']} passed, {counts['fail']} failed, "
          f"{counts['known']} known failures, {counts['fixed']} fixed known failures "
          f"({time.time() - t0:.1f} s)")
    return 1 if counts["fail"] or counts["fixed"] or counts["ok"] == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
