#!/usr/bin/env python3
"""silt serve benchmark (issue 22): round trips and result streaming over the
PostgreSQL protocol, against PostgreSQL itself and DuckDB's in-process API.

usage: server_bench.py SILT_BIN [--rows N] [--round-trips N] [--clients N --queries N]

Starts `silt serve --trust` on a free port over a fresh warehouse, and a
PostgreSQL 15 (initdb/pg_ctl from /usr/lib/postgresql/15/bin, in a temporary
folder, as user postgres when run as root) with the same table. Measures with
psycopg 3 (text format, autocommit):
  - SELECT 1 round trip (median and p99 over --round-trips, one connection)
  - a point query on the table (silt: a Delta table with file statistics;
    PostgreSQL: a heap table with a primary key)
  - rows per second of the whole table streamed to psycopg (fetchall)
  - DuckDB's Python API on the same rows, the in-process baseline
  - the load: --clients threads x --queries queries each against silt serve
    while one writer appends, every result checked to be a consistent snapshot
Needs psycopg and duckdb (the peers venv).
"""
import argparse
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time

import psycopg

PG_BIN = "/usr/lib/postgresql/15/bin"


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def as_postgres(cmd):
    return (["runuser", "-u", "postgres", "--"] + cmd) if os.geteuid() == 0 else cmd


def start_silt(silt, wh):
    p = subprocess.Popen([silt, "serve", "--warehouse", wh, "--trust", "--listen", "127.0.0.1:0",
                          "--max-connections", "200"], stdout=subprocess.PIPE, text=True)
    line = p.stdout.readline()
    return p, int(line.split("listening on ")[1].split()[0].rsplit(":", 1)[1])


def start_pg(tmp):
    data = os.path.join(tmp, "pgdata")
    if os.geteuid() == 0:
        shutil.chown(tmp, "postgres")
    subprocess.run(as_postgres([f"{PG_BIN}/initdb", "-D", data, "-U", "postgres", "--auth=trust"]),
                   check=True, capture_output=True)
    port = free_port()
    subprocess.run(as_postgres([f"{PG_BIN}/pg_ctl", "-D", data, "-w", "-l",
                                os.path.join(tmp, "pg.log"), "-o",
                                f"-p {port} -k {tmp} -c listen_addresses=127.0.0.1 "
                                "-c max_connections=200", "start"]), check=True,
                   capture_output=True)
    return data, port


def round_trips(conn, sql, n):
    times = []
    for _ in range(n):
        t0 = time.perf_counter()
        conn.execute(sql).fetchall()
        times.append(time.perf_counter() - t0)
    times.sort()
    return statistics.median(times) * 1e6, times[int(len(times) * 0.99) - 1] * 1e6


def stream(conn, sql, split=None):
    """rows/s of execute + fetchall; split (a list) also gets the rows/s of execute alone:
    psycopg's execute receives the whole result (libpq), fetchall then converts it in Python,
    so the first is what the server delivers, the whole what the client sees."""
    t0 = time.perf_counter()
    cur = conn.execute(sql)
    t1 = time.perf_counter()
    rows = cur.fetchall()
    if split is not None:
        split.append(len(rows) / (t1 - t0))
    return len(rows), len(rows) / (time.perf_counter() - t0)


def cpu_seconds(pid):
    """user + system CPU of a process (all its threads) from /proc."""
    f = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return (int(f[11]) + int(f[12])) / os.sysconf("SC_CLK_TCK")


def stream_rounds(conns, rounds):
    """Alternates the servers round by round (the machine is shared: a burst of load hits
    both), and measures each server's own CPU time per round besides the client's rows/s."""
    got = {name: ([], [], []) for name in conns}
    for _ in range(rounds):
        for name, (conn, pid) in conns.items():
            c0 = cpu_seconds(pid)
            n, rps = stream(conn, "SELECT id, v, s FROM big", got[name][2])
            got[name][0].append(rps)
            got[name][1].append((cpu_seconds(pid) - c0) / n * 1e9)
    return {name: (n, statistics.median(r), statistics.median(c), statistics.median(x))
            for name, (r, c, x) in got.items()}


def load(port, clients, queries):
    stop = threading.Event()
    bad = []
    done = [0]
    lock = threading.Lock()

    def writer():
        with psycopg.connect(host="127.0.0.1", port=port, user="bench", dbname="default",
                             autocommit=True) as c:
            k = 1
            while not stop.is_set():
                c.execute(f"INSERT INTO inv VALUES ({k}), ({-k})")
                k += 1

    def reader():
        try:
            with psycopg.connect(host="127.0.0.1", port=port, user="bench", dbname="default",
                                 autocommit=True) as c:
                for _ in range(queries):
                    n, s = c.execute("SELECT count(*), coalesce(sum(v), 0) FROM inv").fetchone()
                    if n % 2 or s:
                        bad.append((n, s))
                    with lock:
                        done[0] += 1
        except Exception as e:  # noqa: BLE001 - counted as a failure
            bad.append(repr(e))

    w = threading.Thread(target=writer)
    w.start()
    t0 = time.perf_counter()
    ts = [threading.Thread(target=reader) for _ in range(clients)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    secs = time.perf_counter() - t0
    stop.set()
    w.join()
    return done[0], bad, secs


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("silt")
    ap.add_argument("--rows", type=int, default=1_000_000)
    ap.add_argument("--round-trips", type=int, default=2000)
    ap.add_argument("--clients", type=int, default=50)
    ap.add_argument("--queries", type=int, default=200)
    ap.add_argument("--stream-rounds", type=int, default=5)
    a = ap.parse_args()
    tmp = tempfile.mkdtemp(prefix="silt-server-bench-")
    wh = os.path.join(tmp, "wh")
    silt_proc = None
    pgdata = None
    try:
        subprocess.run([a.silt, "sql", "--warehouse", wh,
                        f"CREATE TABLE big USING DELTA AS SELECT id, id * 2 AS v, "
                        f"concat('row', CAST(id AS STRING)) AS s FROM range(0, {a.rows}); "
                        "CREATE TABLE inv (v BIGINT) USING DELTA"], check=True)
        silt_proc, sport = start_silt(a.silt, wh)
        pgdata, pport = start_pg(tmp)
        with psycopg.connect(host="127.0.0.1", port=pport, user="postgres", dbname="postgres",
                             autocommit=True) as c:
            c.execute("CREATE TABLE big (id bigint PRIMARY KEY, v bigint, s text)")
            c.execute(f"INSERT INTO big SELECT i, i * 2, 'row' || i FROM generate_series(0, "
                      f"{a.rows - 1}) i")
            c.execute("VACUUM ANALYZE big")
        results = {}
        conns = {}
        for name, port, user, db in (("silt serve", sport, "bench", "default"),
                                     ("PostgreSQL 15", pport, "postgres", "postgres")):
            c = psycopg.connect(host="127.0.0.1", port=port, user=user, dbname=db,
                                autocommit=True)
            r1 = round_trips(c, "SELECT 1", a.round_trips)
            r2 = round_trips(c, f"SELECT v FROM big WHERE id = {a.rows // 2}",
                             max(a.round_trips // 10, 10))
            pid = silt_proc.pid if name == "silt serve" else \
                c.execute("SELECT pg_backend_pid()").fetchone()[0]
            conns[name] = (c, pid)
            results[name] = (r1, r2)
        streamed = stream_rounds(conns, a.stream_rounds)
        for name, (c, _) in conns.items():
            c.close()
        import duckdb
        d = duckdb.connect()
        d.execute(f"CREATE TABLE big AS SELECT range AS id, range * 2 AS v, 'row' || range AS s "
                  f"FROM range({a.rows})")
        t = []
        for _ in range(a.round_trips):
            t0 = time.perf_counter()
            d.execute("SELECT 1").fetchall()
            t.append(time.perf_counter() - t0)
        t0 = time.perf_counter()
        rows = d.execute("SELECT id, v, s FROM big").fetchall()
        duck_rps = len(rows) / (time.perf_counter() - t0)
        print(f"{'':16} {'SELECT 1 median/p99 us':>24} {'point query median/p99 us':>27} "
              f"{'rows/s streamed':>16} {'rows/s received':>16} {'server CPU ns/row':>18}")
        for name, (r1, r2) in results.items():
            n, rps, cpu, recv = streamed[name]
            print(f"{name:16} {r1[0]:11.0f} /{r1[1]:9.0f}  {r2[0]:13.0f} /{r2[1]:9.0f}  "
                  f"{rps:16,.0f} {recv:16,.0f} {cpu:18,.0f}")
        print(f"{'DuckDB (in-proc)':16} {statistics.median(t) * 1e6:11.0f} /{'':9}  {'':13}  "
              f"{'':9}  {duck_rps:16,.0f}")
        s_rps, p_rps = streamed["silt serve"][1], streamed["PostgreSQL 15"][1]
        s_rt, p_rt = results["silt serve"][0][0], results["PostgreSQL 15"][0][0]
        print(f"ratios: SELECT 1 round trip silt/PostgreSQL {s_rt / p_rt:.2f} (goal <= 2); "
              f"streaming rows/s silt/PostgreSQL {s_rps / p_rps:.2f} (goal >= 1, median of "
              f"{a.stream_rounds} alternated rounds), received (libpq alone) "
              f"{streamed['silt serve'][3] / streamed['PostgreSQL 15'][3]:.2f}; "
              f"server CPU per row silt/PostgreSQL "
              f"{streamed['silt serve'][2] / streamed['PostgreSQL 15'][2]:.2f}")
        done, bad, secs = load(sport, a.clients, a.queries)
        print(f"load: {a.clients} clients x {a.queries} queries with a writer: {done} done in "
              f"{secs:.1f} s, {len(bad)} failed or inconsistent {bad[:3]}")
        if silt_proc is not None:
            try:
                rss = int(open(f"/proc/{silt_proc.pid}/status").read().split("VmHWM:")[1]
                          .split()[0])
                print(f"silt serve peak RSS: {rss / 1024:.0f} MiB")
            except (OSError, IndexError, ValueError):
                pass
        return 1 if bad else 0
    finally:
        if silt_proc is not None:
            silt_proc.terminate()
            silt_proc.wait(30)
        if pgdata is not None:
            subprocess.run(as_postgres([f"{PG_BIN}/pg_ctl", "-D", pgdata, "-m", "fast", "stop"]),
                           capture_output=True)
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
