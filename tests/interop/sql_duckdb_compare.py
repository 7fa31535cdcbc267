#!/usr/bin/env python3
"""Compares `silt sql` answers with DuckDB's on generated trips data.

    sql_duckdb_compare.py SILT_BIN WORK_DIR

Generates trips {trip_id, tstamp, route_id, destination} (Parquet and CSV)
and a routes dimension table, runs each query of QUERIES through silt
(`--format jsonl`) and through DuckDB (the oracle), and compares the rows:
in order when the query has ORDER BY, as sorted lists otherwise. Numbers
are compared with a relative tolerance of 1e-9, timestamps as instants.

Needs duckdb and pyarrow from <repo>/.peers/venv (scripts/setup-peers.sh);
when they are missing it fails if CI=true and skips (exit 77) otherwise.
"""
import datetime
import json
import os
import random
import subprocess
import sys


def reexec_in_peers_venv():
    repo = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
    venv = os.path.join(repo, ".peers", "venv")
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

N_TRIPS = 50000
DESTINATIONS = ["Airport", "Harbor", "Station", "Stadium", "University", "Old Town", "Zoo"]

# (query, ordered). {trips} and {routes} are replaced by each engine's table names.
QUERIES = [
    ("SELECT count(*) FROM trips", False),
    ("SELECT count(*) FROM trips WHERE destination = 'Airport'", False),
    ("SELECT max(trip_id), min(trip_id), sum(route_id) FROM trips", False),
    ("SELECT count(DISTINCT route_id), count(DISTINCT destination) FROM trips", False),
    ("SELECT min(tstamp), max(tstamp) FROM trips", False),
    ("SELECT avg(trip_id), avg(route_id) FROM trips WHERE route_id < 20", False),
    ("SELECT DISTINCT destination FROM trips ORDER BY destination", True),
    ("SELECT destination, count(*) AS n FROM trips GROUP BY destination ORDER BY n DESC, destination", True),
    ("SELECT route_id, count(*) AS n, max(trip_id) AS m FROM trips GROUP BY route_id", False),
    ("SELECT route_id, destination, count(*) FROM trips GROUP BY route_id, destination", False),
    ("SELECT trip_id, destination FROM trips ORDER BY trip_id DESC LIMIT 10", True),
    ("SELECT trip_id FROM trips WHERE destination LIKE 'S%' ORDER BY trip_id LIMIT 25", True),
    ("SELECT count(*) FROM trips WHERE destination IN ('Zoo', 'Harbor') AND route_id BETWEEN 5 AND 15", False),
    ("SELECT count(*) FROM trips WHERE destination <> 'Airport' OR trip_id % 7 = 0", False),
    ("SELECT route_id, count(*) AS n FROM trips GROUP BY route_id HAVING count(*) > 1000 ORDER BY route_id", True),
    ("SELECT upper(destination) AS d, count(*) FROM trips GROUP BY upper(destination)", False),
    ("SELECT year(tstamp) AS y, month(tstamp) AS m, count(*) FROM trips GROUP BY 1, 2", False),
    ("SELECT hour(tstamp) AS h, count(*) FROM trips WHERE tstamp >= TIMESTAMP '2024-03-01 00:00:00' GROUP BY 1", False),
    ("SELECT r.name, count(*) AS n FROM trips t JOIN routes r ON t.route_id = r.route_id GROUP BY r.name", False),
    ("SELECT r.name, t.destination, count(*) FROM trips t JOIN routes r ON t.route_id = r.route_id "
     "WHERE r.kind = 'bus' GROUP BY r.name, t.destination", False),
    ("SELECT t.route_id, count(r.name) AS named, count(*) AS n FROM trips t LEFT JOIN routes r "
     "ON t.route_id = r.route_id GROUP BY t.route_id", False),
    ("SELECT count(*) FROM trips t WHERE t.route_id NOT IN (SELECT route_id FROM routes)", False),
    ("SELECT count(*) FROM trips WHERE route_id IN (SELECT route_id FROM routes WHERE kind = 'tram')", False),
    ("SELECT destination, max(trip_id) - min(trip_id) AS spread FROM trips GROUP BY destination", False),
    ("SELECT CASE WHEN route_id < 10 THEN 'low' ELSE 'high' END AS band, count(*) FROM trips GROUP BY 1", False),
    ("SELECT trip_id, route_id FROM (SELECT trip_id, route_id, row_number() OVER "
     "(PARTITION BY route_id ORDER BY trip_id DESC) AS rn FROM trips) WHERE rn = 1", False),
    ("SELECT destination, trip_id, rank() OVER (PARTITION BY destination ORDER BY route_id, trip_id) AS rk "
     "FROM trips WHERE trip_id < 200", False),
    # WindowGroupLimit: a per-partition top-k inside the window operator
    ("SELECT route_id, trip_id, rn FROM (SELECT route_id, trip_id, row_number() OVER "
     "(PARTITION BY route_id ORDER BY tstamp, trip_id) AS rn FROM trips) WHERE rn <= 3", False),
    ("SELECT destination, route_id, r FROM (SELECT destination, route_id, rank() OVER "
     "(PARTITION BY destination ORDER BY route_id DESC) AS r FROM trips) WHERE r < 2", False),
    ("SELECT destination, route_id, dr FROM (SELECT destination, route_id, dense_rank() OVER "
     "(PARTITION BY destination ORDER BY route_id) AS dr FROM trips) WHERE dr <= 3 AND route_id > 1", False),
    ("SELECT destination, trip_id FROM (SELECT destination, trip_id, row_number() OVER "
     "(PARTITION BY destination ORDER BY trip_id) AS rn FROM trips) WHERE rn <= 2 OR trip_id = 77", False),
    ("SELECT trip_id, destination FROM trips ORDER BY route_id DESC, tstamp, trip_id LIMIT 7", True),
    ("SELECT route_id FROM trips WHERE destination = 'Zoo' INTERSECT SELECT route_id FROM trips "
     "WHERE destination = 'Airport'", False),
    ("SELECT route_id FROM routes EXCEPT SELECT route_id FROM trips WHERE destination = 'Zoo'", False),
    ("SELECT destination FROM trips WHERE trip_id < 5 UNION SELECT name FROM routes WHERE route_id < 3", False),
    ("WITH busy AS (SELECT route_id, count(*) AS n FROM trips GROUP BY route_id) "
     "SELECT max(n), min(n), sum(n) FROM busy", False),
    ("SELECT count(*), sum(trip_id) FROM trips WHERE tstamp < TIMESTAMP '2024-02-01 00:00:00'", False),
    ("SELECT destination, count(*) FILTER (WHERE route_id % 2 = 0) AS even FROM trips GROUP BY destination", False),
    ("SELECT trip_id FROM trips ORDER BY tstamp DESC, trip_id LIMIT 5 OFFSET 3", True),
    ("SELECT destination, min(tstamp) FROM trips GROUP BY destination", False),
    ("SELECT count(*) FROM trips WHERE (SELECT max(route_id) FROM routes) > route_id", False),
    ("SELECT destination, count(*) FROM trips t WHERE EXISTS (SELECT 1 FROM routes r "
     "WHERE r.route_id = t.route_id AND r.kind = 'tram') GROUP BY destination", False),
    ("SELECT count(*) FROM trips t WHERE NOT EXISTS (SELECT * FROM routes r WHERE r.route_id = t.route_id)", False),
    ("SELECT trip_id, (SELECT max(name) FROM routes r WHERE r.route_id = t.route_id) AS rn, "
     "(SELECT count(*) FROM routes r WHERE r.route_id = t.route_id AND r.kind = 'tram') AS trams "
     "FROM trips t WHERE trip_id < 300", False),
]


def generate(work):
    rnd = random.Random(42)
    start = datetime.datetime(2024, 1, 1, tzinfo=datetime.timezone.utc)
    trip_id = list(range(1, N_TRIPS + 1))
    rnd.shuffle(trip_id)
    tstamp = [start + datetime.timedelta(seconds=rnd.randrange(0, 90 * 86400)) for _ in trip_id]
    route_id = [rnd.randrange(1, 31) for _ in trip_id]
    dest = [DESTINATIONS[rnd.randrange(len(DESTINATIONS))] for _ in trip_id]
    trips = pa.table({
        "trip_id": pa.array(trip_id, pa.int64()),
        "tstamp": pa.array(tstamp, pa.timestamp("us", tz="UTC")),
        "route_id": pa.array(route_id, pa.int32()),
        "destination": pa.array(dest, pa.string()),
    })
    # Routes 1..25 only, so that some trips have no route.
    routes = pa.table({
        "route_id": pa.array(list(range(1, 26)), pa.int32()),
        "name": pa.array([f"Line {i}" for i in range(1, 26)], pa.string()),
        "kind": pa.array(["tram" if i % 4 == 0 else "bus" for i in range(1, 26)], pa.string()),
    })
    os.makedirs(os.path.join(work, "trips"), exist_ok=True)
    # Two files, several row groups, so that the scans have something to split and skip.
    half = N_TRIPS // 2
    pq.write_table(trips.slice(0, half), os.path.join(work, "trips", "part-0.parquet"), row_group_size=10000)
    pq.write_table(trips.slice(half), os.path.join(work, "trips", "part-1.parquet"), row_group_size=10000)
    pq.write_table(routes, os.path.join(work, "routes.parquet"))


def norm(value):
    if value is None:
        return (0, "")
    if isinstance(value, bool):
        return (1, value)
    if isinstance(value, (int, float)):
        return (2, float(value))
    if isinstance(value, datetime.datetime):
        if value.tzinfo is None:
            value = value.replace(tzinfo=datetime.timezone.utc)
        return (3, value.astimezone(datetime.timezone.utc).isoformat())
    if isinstance(value, str):
        try:
            if value.endswith("Z") and "T" in value:
                v = datetime.datetime.fromisoformat(value[:-1]).replace(tzinfo=datetime.timezone.utc)
                return (3, v.isoformat())
        except ValueError:
            pass
        try:
            return (2, float(value)) if value.replace(".", "", 1).lstrip("-").isdigit() else (4, value)
        except ValueError:
            return (4, value)
    return (5, str(value))


def same_value(x, y):
    if x[0] != y[0]:
        return False
    if x[0] == 2:
        return abs(x[1] - y[1]) <= 1e-9 * max(1.0, abs(x[1]), abs(y[1]))
    return x[1] == y[1]


def same(a, b):
    if len(a) != len(b):
        return False
    for ra, rb in zip(a, b):
        if len(ra) != len(rb) or not all(same_value(x, y) for x, y in zip(ra, rb)):
            return False
    return True


def run_silt(silt, work, query):
    setup = (f"CREATE TEMPORARY VIEW trips USING parquet OPTIONS (path '{work}/trips'); "
             f"CREATE TEMPORARY VIEW routes USING parquet OPTIONS (path '{work}/routes.parquet'); ")
    proc = subprocess.run([silt, "sql", "--format", "jsonl", setup + query],
                          capture_output=True, text=True, timeout=120)
    if proc.returncode != 0:
        raise RuntimeError(proc.stderr.strip())
    rows = []
    for line in proc.stdout.splitlines():
        obj = json.loads(line)
        rows.append(tuple(norm(v) for v in obj.values()))
    return rows


def run_duckdb(con, query):
    return [tuple(norm(v) for v in row) for row in con.execute(query).fetchall()]


def main():
    silt, work = sys.argv[1], os.path.abspath(sys.argv[2])
    os.makedirs(work, exist_ok=True)
    generate(work)
    con = duckdb.connect()
    con.execute("SET TimeZone = 'UTC'")
    con.execute(f"CREATE VIEW trips AS SELECT * FROM read_parquet('{work}/trips/*.parquet')")
    con.execute(f"CREATE VIEW routes AS SELECT * FROM read_parquet('{work}/routes.parquet')")
    passed = failed = 0
    for query, ordered in QUERIES:
        try:
            got = run_silt(silt, work, query)
            want = run_duckdb(con, query)
            if not ordered:
                got, want = sorted(got), sorted(want)
            ok = same(got, want)
            detail = "" if ok else f"\n     silt:   {got[:5]}\n     duckdb: {want[:5]} ({len(got)} vs {len(want)} rows)"
        except Exception as exc:  # a failed run is a failed case, reported with its message
            ok, detail = False, f"\n     {exc}"
        if ok:
            passed += 1
            print(f"ok   {query}")
        else:
            failed += 1
            print(f"FAIL {query}{detail}")
    print(f"{passed} passed, {failed} failed")
    return 1 if failed or passed == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
