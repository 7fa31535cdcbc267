#!/usr/bin/env python3
"""silt serve with real clients (issue 22): psql, psycopg 3, pg8000 and raw sockets.

usage: server_test.py SILT_BIN GROUP   (GROUP: psql, clients, auth, robust, concurrency, tls, jdbc,
                                               http, idle, load)

Each group starts its own `silt serve --listen 127.0.0.1:0` on a fresh warehouse
and reads the port it prints. Ends with 'N passed, N failed'. Exit 77 (skip) when
psycopg or pg8000 is missing, except under CI=true, where that is a failure.
"""
import datetime
import re
import decimal
import os
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import threading
import time

try:
    import psycopg
    import pg8000.dbapi
    import pg8000.native
except ImportError as e:
    print(f"psycopg/pg8000 missing ({e}); scripts/setup-peers.sh installs them")
    sys.exit(1 if os.environ.get("CI") == "true" else 77)

SILT = sys.argv[1]
GROUP = sys.argv[2]
RESULTS = {"passed": 0, "failed": 0}


def check(name, cond, info=""):
    if cond:
        RESULTS["passed"] += 1
        print(f"ok   {name}")
    else:
        RESULTS["failed"] += 1
        print(f"FAIL {name} {info}")


def silt_sql(wh, sql):
    subprocess.run([SILT, "sql", "--warehouse", wh, sql], check=True, capture_output=True)


def passwd(cfg, name, pw, *extra):
    subprocess.run([SILT, "passwd", "--config", cfg, name, *extra], input=pw + "\n",
                   text=True, check=True)


class Server:
    def __init__(self, wh, *args):
        # stderr to a file: a sanitizer report at exit must not fill a pipe nobody reads
        self.err = tempfile.TemporaryFile(mode="w+")
        self.proc = subprocess.Popen([SILT, "serve", "--warehouse", wh, "--listen", "127.0.0.1:0",
                                      "--threads", "2", *args],
                                     stdout=subprocess.PIPE, stderr=self.err, text=True)
        line = self.proc.stdout.readline()
        if "listening on" not in line:
            self.proc.wait(30)
            self.err.seek(0)
            raise RuntimeError("silt serve did not start: " + line + self.err.read())
        self.port = int(line.split("listening on ")[1].split()[0].rsplit(":", 1)[1])

    def stop(self):
        self.proc.send_signal(signal.SIGTERM)
        try:
            code = self.proc.wait(60)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            code = -1
        if code != 0:
            self.err.seek(0)
            print(self.err.read()[-4000:])
        return code


def setup(tmp):
    wh = os.path.join(tmp, "wh")
    cfg = os.path.join(tmp, "users.conf")
    silt_sql(wh, "CREATE TABLE t (a INT, b STRING, c DOUBLE, d DECIMAL(10,2), e DATE, "
                 "f TIMESTAMP, g BOOLEAN, h BINARY, i BIGINT) USING DELTA; "
                 "INSERT INTO t VALUES (1, 'x', 1.5, 12.34, DATE'2024-01-02', "
                 "TIMESTAMP'2024-01-02 03:04:05', true, X'0102', 9000000000), "
                 "(2, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL); "
                 "CREATE DATABASE other; CREATE TABLE other.t2 (a INT) USING DELTA; "
                 "CREATE TABLE c (v BIGINT) USING DELTA; "
                 "CREATE VIEW v_other AS SELECT * FROM other.t2")
    passwd(cfg, "alice", "secret1")
    passwd(cfg, "bob", "bobpw", "--read-only", "--databases", "default")
    return wh, cfg


def pg(port, user="alice", password="secret1", db="default", **kw):
    return psycopg.connect(host="127.0.0.1", port=port, user=user, password=password,
                           dbname=db, sslmode=kw.pop("sslmode", "disable"), **kw)


ROW1 = (1, "x", 1.5, decimal.Decimal("12.34"), datetime.date(2024, 1, 2),
        datetime.datetime(2024, 1, 2, 3, 4, 5, tzinfo=datetime.timezone.utc), True, b"\x01\x02",
        9000000000)


def group_psql(srv):
    env = dict(os.environ, PGPASSWORD="secret1")
    def psql(*cmds):
        args = ["psql", f"host=127.0.0.1 port={srv.port} user=alice dbname=default sslmode=disable",
                "-X", "-v", "ON_ERROR_STOP=1"]
        for c in cmds:
            args += ["-c", c]
        return subprocess.run(args, env=env, capture_output=True, text=True, timeout=60)
    r = psql("SELECT a, b FROM t ORDER BY a")
    check("psql query", r.returncode == 0 and " 1 | x" in r.stdout and "(2 rows)" in r.stdout,
          r.stdout + r.stderr)
    r = psql("\\dt")
    check("psql \\dt", r.returncode == 0 and
          re.search(r"default \| t +\| table \| silt", r.stdout) is not None, r.stdout + r.stderr)
    r = psql("\\d t")
    check("psql \\d t", r.returncode == 0 and 'Table "default.t"' in r.stdout and
          "numeric(10,2)" in r.stdout and "timestamp with time zone" in r.stdout, r.stdout + r.stderr)
    r = psql("\\l")
    check("psql \\l", r.returncode == 0 and "other" in r.stdout, r.stdout + r.stderr)
    r = psql("SELECT version()")
    check("psql version()", r.returncode == 0 and "PostgreSQL 15.0 (silt" in r.stdout, r.stdout)
    r = psql("SELECT 1/0")
    check("psql error", r.returncode != 0 and "DIVIDE_BY_ZERO" in r.stderr, r.stderr)
    r = psql("SELECT * FROM pg_catalog.pg_proc")
    check("psql unknown catalog query refused", r.returncode != 0 and
          "does not answer this catalog query" in r.stderr, r.stderr)
    r = psql("SELECT 1; SELECT 2")
    check("psql two statements", r.returncode == 0, r.stderr)


def group_clients(srv):
    with pg(srv.port) as c:
        check("psycopg text rows", c.execute("SELECT * FROM t ORDER BY a").fetchall() ==
              [ROW1, (2,) + (None,) * 8])
        cur = c.cursor(binary=True)
        check("psycopg binary rows", cur.execute("SELECT * FROM t ORDER BY a").fetchall() ==
              [ROW1, (2,) + (None,) * 8])
        check("psycopg parameter", c.execute("SELECT b FROM t WHERE a = %s", (1,)).fetchall() ==
              [("x",)])
        check("psycopg parameter used twice",
              c.execute("SELECT %(v)s + 1, %(v)s * 2", {"v": 10}).fetchone() == (11, 20))
        got = c.execute("SELECT %s, %s, %s, %s, %s, %s, %s",
                        (7, "it's", 2.5, True, None, datetime.date(2020, 2, 29),
                         b"\x00\xff")).fetchone()
        check("psycopg parameter types", got == (7, "it's", 2.5, True, None,
                                                  datetime.date(2020, 2, 29), b"\x00\xff"), got)
        for k in range(8):  # past prepare_threshold: named statements
            r = c.execute("SELECT a FROM t WHERE a = %s", (k,)).fetchall()
        check("psycopg prepared statement", r == [])
        check("psycopg current_database", c.execute("SELECT current_database()").fetchone() ==
              ("default",))
        # the serverless (T-SQL) statements through the server too (docs/serverless.md)
        path = os.path.join(WAREHOUSE[0], "t")  # BULK takes a literal, not a parameter
        got = c.execute(f"SELECT TOP 1 r.a, r.b FROM OPENROWSET(BULK '{path}', FORMAT = 'DELTA') "
                        "AS r ORDER BY r.a").fetchall()
        check("psycopg OPENROWSET and TOP", got == [(1, "x")], got)
        check("psycopg [bracket].[dbo] names",
              c.execute("SELECT count(*) FROM [default].[dbo].[t]").fetchone() == (2,))
        c.execute("SET application_name = 'silt-test'")
        check("psycopg SET/SHOW", c.execute("SHOW application_name").fetchone() == ("silt-test",))
        c.rollback()
        # a transaction as psycopg drives it (not autocommit)
        cur = c.execute("INSERT INTO c VALUES (1), (-1)")
        check("psycopg INSERT rowcount (INSERT 0 n)", cur.rowcount == 2 and
              cur.statusmessage == "INSERT 0 2", (cur.rowcount, cur.statusmessage))
        c.commit()
        check("psycopg insert in transaction",
              c.execute("SELECT count(*), sum(v) FROM c").fetchone() == (2, 0))
        try:
            c.execute("SELECT nope FROM t")
            check("psycopg error sqlstate", False)
        except psycopg.Error as e:
            check("psycopg error sqlstate", e.sqlstate == "42703", e.sqlstate)
        c.rollback()
    c = pg8000.dbapi.connect(user="alice", password="secret1", host="127.0.0.1", port=srv.port,
                             database="default")
    cur = c.cursor()
    cur.execute("SELECT * FROM t WHERE a = %s", (1,))
    check("pg8000 dbapi rows", [tuple(r) for r in cur.fetchall()] == [ROW1])
    c.commit()
    c.close()
    c = pg8000.native.Connection("alice", password="secret1", host="127.0.0.1", port=srv.port,
                                 database="default")
    check("pg8000 native parameter", c.run("SELECT a FROM t WHERE b = :b", b="x") == [[1]])
    check("pg8000 native types", c.run("SELECT * FROM t ORDER BY a")[0] == list(ROW1))
    c.close()


def group_auth(srv):
    for user, pw in (("alice", "wrong"), ("nobody", "secret1")):
        try:
            pg(srv.port, user=user, password=pw).close()
            check(f"wrong password refused ({user})", False)
        except psycopg.OperationalError as e:
            check(f"wrong password refused ({user})", "password authentication failed" in str(e),
                  str(e))
    try:
        pg8000.native.Connection("alice", password="bad", host="127.0.0.1", port=srv.port,
                                 database="default")
        check("pg8000 wrong password refused", False)
    except (pg8000.exceptions.InterfaceError, pg8000.exceptions.DatabaseError) as e:
        check("pg8000 wrong password refused", "28P01" in str(e), str(e))
    with pg(srv.port, user="bob", password="bobpw") as c:
        check("read-only user reads", c.execute("SELECT count(*) FROM t").fetchone() == (2,))
        for sql in ("INSERT INTO t (a) VALUES (3)", "CREATE TABLE z (a INT) USING DELTA",
                    "DELETE FROM t"):
            try:
                c.execute(sql)
                check(f"read-only refused: {sql}", False)
            except psycopg.Error as e:
                check(f"read-only refused: {sql}", e.sqlstate == "25006", e.sqlstate)
            c.rollback()
        try:
            c.execute("USE other")
            check("database restriction on USE", False)
        except psycopg.Error as e:
            check("database restriction on USE", e.sqlstate == "42501", e.sqlstate)
        c.rollback()
        for sql in ("SELECT * FROM other.t2", "SELECT * FROM `other`.t2", "SHOW TABLES IN other"):
            try:
                c.execute(sql)
                check(f"database restriction: {sql}", False)
            except psycopg.Error as e:
                check(f"database restriction: {sql}", e.sqlstate == "42501", e.sqlstate)
            c.rollback()
        check("allowed database by name", c.execute("SELECT count(*) FROM default.t").fetchone()
              == (2,))
        # a path reaches another database's files: refused to a user limited to databases
        t2 = os.path.join(WAREHOUSE[0], "other.db", "t2")
        for sql in (f"SELECT * FROM delta.`{t2}`",
                    f"SELECT * FROM OPENROWSET(BULK '{t2}', FORMAT = 'DELTA') AS r",
                    f"SELECT * FROM read_files('{t2}')",
                    f"CREATE TABLE z (a INT) USING DELTA LOCATION '{t2}'"):
            try:
                c.execute(sql)
                check(f"path refused to a restricted user: {sql[:40]}", False)
            except psycopg.Error as e:
                check(f"path refused to a restricted user: {sql[:40]}", e.sqlstate == "42501",
                      e.sqlstate)
            c.rollback()
        # a view in an allowed database over a forbidden one: caught in the binder
        try:
            c.execute("SELECT * FROM v_other")
            check("database restriction through a view", False)
        except psycopg.Error as e:
            check("database restriction through a view", e.sqlstate == "42501", e.sqlstate)
        c.rollback()
        check("a column called location is no path",
              c.execute("SELECT 'x' AS location").fetchone() == ("x",))
    try:
        pg(srv.port, user="bob", password="bobpw", db="other").close()
        check("database restriction at connect", False)
    except psycopg.OperationalError as e:
        check("database restriction at connect", "permission denied" in str(e), str(e))
    try:
        pg(srv.port, db="nosuch").close()
        check("missing database refused", False)
    except psycopg.OperationalError as e:
        check("missing database refused", "does not exist" in str(e), str(e))


def startup(port, user="alice"):
    s = socket.create_connection(("127.0.0.1", port), timeout=30)
    body = struct.pack("!i", 196608) + b"user\0" + user.encode() + b"\0database\0default\0\0"
    s.sendall(struct.pack("!i", len(body) + 4) + body)
    return s


def read_until_ready(s):
    data = b""
    while not data.endswith(b"Z\0\0\0\5I") and not data.endswith(b"Z\0\0\0\5T"):
        chunk = s.recv(65536)
        if not chunk:
            break
        data += chunk
    return data


def group_robust(srv, trust, limited):
    # a client that vanishes mid-result
    s = startup(trust.port)
    read_until_ready(s)
    q = b"SELECT id, repeat('x', 100) FROM range(0, 3000000)\0"
    s.sendall(b"Q" + struct.pack("!i", len(q) + 4) + q)
    got = b""
    while b"D\0" not in got and len(got) < 1 << 20:
        chunk = s.recv(65536)
        if not chunk:
            break
        got += chunk
    s.close()
    check("vanishing client got rows first", b"D" in got)
    # truncated message, then close
    s = startup(trust.port)
    read_until_ready(s)
    s.sendall(b"Q" + struct.pack("!i", 1000) + b"SELECT")
    s.close()
    # oversized message: refused with 54000 before the body is read
    s = startup(trust.port)
    read_until_ready(s)
    s.sendall(b"Q" + struct.pack("!i", 0x7ffffff0))
    reply = s.recv(4096)
    s.close()
    check("oversized message refused", b"54000" in reply, reply)
    # bad start-up length and garbage
    for junk in (struct.pack("!i", 3), struct.pack("!i", 100000), b"\0\0\0\x10garbagegarbage"):
        s = socket.create_connection(("127.0.0.1", trust.port), timeout=30)
        s.sendall(junk)
        try:
            s.recv(4096)
        except OSError:
            pass
        s.close()
    # unknown message type
    s = startup(trust.port)
    read_until_ready(s)
    s.sendall(b"?" + struct.pack("!i", 4))
    reply = s.recv(4096)
    s.close()
    check("unknown message type refused", b"08P01" in reply, reply)
    # extended protocol by hand: a row limit suspends the portal
    s = startup(trust.port)
    read_until_ready(s)
    def msg(t, body):
        return t + struct.pack("!i", len(body) + 4) + body
    sql = b"SELECT id FROM range(0, 10)\0"
    s.sendall(msg(b"P", b"st\0" + sql + b"\0\0") + msg(b"B", b"po\0st\0\0\0\0\0\0\0") +
              msg(b"E", b"po\0" + struct.pack("!i", 3)) + msg(b"E", b"po\0" + struct.pack("!i", 0)) +
              msg(b"S", b""))
    data = read_until_ready(s)
    s.close()
    check("Execute row limit gives PortalSuspended", b"s\0\0\0\4" in data and
          data.count(b"D\0\0\0") == 10 and b"SELECT 7\0" in data, data[:200])
    # idle connections up to the limit; one more is refused with 53300; then room again
    idle = [startup(limited.port) for _ in range(20)]
    for s in idle:
        read_until_ready(s)
    extra = startup(limited.port)
    reply = extra.recv(4096)
    extra.close()
    check("connection over --max-connections refused", b"53300" in reply, reply)
    s = idle.pop()
    q = b"SELECT 41 + 1\0"
    s.sendall(b"Q" + struct.pack("!i", len(q) + 4) + q)
    check("idle sessions keep serving", b"42" in read_until_ready(s))
    for s in idle + [s]:
        s.close()
    data = b""
    for _ in range(100):
        try:
            s = startup(limited.port)
            data = read_until_ready(s)
            s.close()
            if b"53300" not in data:
                break
        except OSError:
            pass
        time.sleep(0.05)  # the closed sessions' threads finish; not a timing assertion
    check("room again after idle clients leave", b"Z\0\0\0\5I" in data, data[:100])
    # a slow client: asks for a big result and does not read it; others are served meanwhile
    slow = startup(trust.port)
    read_until_ready(slow)
    q = b"SELECT id, repeat('y', 200) FROM range(0, 2000000)\0"
    slow.sendall(b"Q" + struct.pack("!i", len(q) + 4) + q)
    with pg(srv.port) as c:
        check("a client that does not read blocks no other",
              [c.execute("SELECT count(*) FROM t").fetchone() for _ in range(20)] == [(2,)] * 20)
    slow.close()
    # the server still serves
    with pg(srv.port) as c:
        check("still serving after bad clients", c.execute("SELECT 1").fetchone() == (1,))
    # cancel a long statement
    with pg(srv.port) as c:
        def cancel_later():
            time.sleep(1.0)
            c.cancel()
        th = threading.Thread(target=cancel_later)
        th.start()
        try:
            c.execute("SELECT count(*) FROM range(0, 100000000000) WHERE id % 7 = 3")
            check("cancel request", False)
        except psycopg.errors.QueryCanceled as e:
            check("cancel request", e.sqlstate == "57014", e.sqlstate)
        th.join()
        c.rollback()
        check("session usable after cancel", c.execute("SELECT 2").fetchone() == (2,))


def group_concurrency(srv):
    stop = threading.Event()
    errors = []
    def writer():
        with pg(srv.port, autocommit=True) as c:
            k = 1
            while not stop.is_set():
                c.execute(f"INSERT INTO c VALUES ({k}), ({-k})")
                k += 1
    def reader(n):
        try:
            with pg(srv.port, autocommit=True) as c:
                for _ in range(20):
                    cnt, total = c.execute("SELECT count(*), coalesce(sum(v), 0) FROM c").fetchone()
                    if cnt % 2 != 0 or total != 0:
                        errors.append((n, cnt, total))
        except Exception as e:  # noqa: BLE001 - reported as a failure
            errors.append((n, repr(e)))
    w = threading.Thread(target=writer)
    w.start()
    readers = [threading.Thread(target=reader, args=(n,)) for n in range(8)]
    for r in readers:
        r.start()
    for r in readers:
        r.join()
    stop.set()
    w.join()
    check("8 readers x 20 queries see consistent snapshots", errors == [], errors[:5])
    with pg(srv.port) as c:
        cnt = c.execute("SELECT count(*) FROM c").fetchone()[0]
        check("writer committed while readers ran", cnt > 0 and cnt % 2 == 0, cnt)


def rss_mib(pid, field="VmRSS"):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1]) // 1024
    return -1


# Memory bounds for the RSS checks; a sanitizer build (ASAN_OPTIONS set by `make asan`) keeps
# shadow memory and quarantined blocks, so it gets four times as much.
RSS_SCALE = 4 if os.environ.get("ASAN_OPTIONS") else 1


def idle_timeout(wh):
    """--idle-timeout: a session silent that long is closed by the server (not a timing check:
    the client waits up to 60 s for the close)."""
    srv = Server(wh, "--trust", "--idle-timeout", "1")
    try:
        s = startup(srv.port)
        read_until_ready(s)
        s.settimeout(60)
        try:
            closed = s.recv(4096) == b""
        except OSError:
            closed = True
        s.close()
        check("an idle session is closed after --idle-timeout", closed)
        with pg(srv.port) as c:
            check("the server serves after closing idle sessions",
                  c.execute("SELECT 1").fetchone() == (1,))
    finally:
        check("SIGTERM stops the idle-timeout server", srv.stop() == 0)


def group_idle(srv):
    """1,000 idle connections: each has its session, the server keeps serving others."""
    socks = []
    for _ in range(1000):
        socks.append(startup(srv.port))
    ready = sum(1 for s in socks if read_until_ready(s).endswith(b"Z\0\0\0\5I"))
    check("1,000 idle sessions started", ready == 1000, ready)
    with pg(srv.port) as c:
        check("a client is served beside 1,000 idle ones",
              c.execute("SELECT count(*) FROM range(0, 100000)").fetchone() == (100000,))
    rss = rss_mib(srv.proc.pid)
    print(f"info RSS of silt serve with 1,000 idle sessions: {rss} MiB")
    check("RSS with 1,000 idle sessions under 1 GiB", 0 < rss < 1024 * RSS_SCALE, rss)
    for s in socks[:500]:
        s.close()
    # half of them vanish without a Terminate; the others still answer
    q = b"SELECT 6 * 7\0"
    s = socks[-1]
    s.sendall(b"Q" + struct.pack("!i", len(q) + 4) + q)
    check("an idle session answers after 500 others vanished", b"42" in read_until_ready(s))
    for s in socks[500:]:
        s.close()
    with pg(srv.port) as c:
        check("still serving after the idle clients left", c.execute("SELECT 1").fetchone() == (1,))


# 200 queries a client; the sanitizer build (10x slower) runs 20: it is there to find leaks and
# races, the release build proves the load.
LOAD_QUERIES = 20 if os.environ.get("ASAN_OPTIONS") else 200


def group_load(srv):
    """50 clients x 200 queries while a writer appends and updates: every snapshot consistent."""
    stop = threading.Event()
    errors, done = [], []
    def writer():
        with pg(srv.port, autocommit=True) as c:
            k = 1
            while not stop.is_set():
                c.execute(f"INSERT INTO c VALUES ({k}), ({-k})")
                if k % 5 == 0:  # an update that keeps the invariant: count even, sum 0
                    c.execute("UPDATE c SET v = -v WHERE v % 3 = 0")
                k += 1
    def reader(n):
        try:
            with pg(srv.port, autocommit=True) as c:
                for _ in range(LOAD_QUERIES):
                    cnt, total = c.execute("SELECT count(*), coalesce(sum(v), 0) FROM c").fetchone()
                    if cnt % 2 != 0 or total != 0:
                        errors.append((n, cnt, total))
                done.append(n)
        except Exception as e:  # noqa: BLE001 - reported as a failure
            errors.append((n, repr(e)))
    w = threading.Thread(target=writer)
    w.start()
    readers = [threading.Thread(target=reader, args=(n,)) for n in range(50)]
    for r in readers:
        r.start()
    for r in readers:
        r.join()
    stop.set()
    w.join()
    check(f"50 clients x {LOAD_QUERIES} queries all succeeded", len(done) == 50 and not errors, errors[:5])
    peak = rss_mib(srv.proc.pid, "VmHWM")
    print(f"info peak RSS of silt serve under load: {peak} MiB")
    check("peak RSS under load below 1 GiB", 0 < peak < 1024 * RSS_SCALE, peak)
    with pg(srv.port) as c:
        cnt = c.execute("SELECT count(*) FROM c").fetchone()[0]
        check("the writer committed during the load", cnt > 0 and cnt % 2 == 0, cnt)


def group_tls(tmp, wh, cfg):
    cert, key = os.path.join(tmp, "cert.pem"), os.path.join(tmp, "key.pem")
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", key,
                    "-out", cert, "-days", "2", "-subj", "/CN=localhost"], check=True,
                   capture_output=True)
    srv = Server(wh, "--config", cfg, "--tls-cert", cert, "--tls-key", key)
    try:
        with pg(srv.port, sslmode="require") as c:
            check("psycopg sslmode=require", c.execute("SELECT a FROM t ORDER BY a").fetchall() ==
                  [(1,), (2,)])
            check("TLS in use", c.pgconn.ssl_in_use)
        try:
            pg(srv.port, sslmode="disable").close()
            check("password without TLS refused", False)
        except psycopg.OperationalError as e:
            check("password without TLS refused", "sslmode=require" in str(e), str(e))
        env = dict(os.environ, PGPASSWORD="secret1")
        r = subprocess.run(["psql", f"host=127.0.0.1 port={srv.port} user=alice dbname=default "
                            "sslmode=require", "-X", "-c", "\\dt"], env=env, capture_output=True,
                           text=True, timeout=60)
        check("psql over TLS", r.returncode == 0 and "table" in r.stdout, r.stderr)
        r = subprocess.run(["psql", f"host=127.0.0.1 port={srv.port} user=alice dbname=default "
                            "sslmode=require", "-X", "-c", "SELECT 1"],
                           env=dict(os.environ, PGPASSWORD="wrong"), capture_output=True,
                           text=True, timeout=60)
        check("psql wrong password refused", r.returncode != 0 and
              "password authentication failed" in r.stderr, r.stderr)
        import ssl
        ctx = ssl.create_default_context()
        ctx.check_hostname = False
        ctx.verify_mode = ssl.CERT_NONE
        c = pg8000.native.Connection("alice", password="secret1", host="127.0.0.1", port=srv.port,
                                     database="default", ssl_context=ctx)
        check("pg8000 over TLS", c.run("SELECT 1") == [[1]])
        c.close()
    finally:
        check("SIGTERM stops the server", srv.stop() == 0)


WAREHOUSE = [None]  # the warehouse folder of the run, for groups that name paths in it

JDBC_JAR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", ".peers", "jdbc",
                        "postgresql-42.7.14.jar")


def group_jdbc(tmp, wh, cfg):
    """The PostgreSQL JDBC driver (tests/server/JdbcCheck.java) over TLS with SCRAM."""
    import shutil
    if not os.path.exists(JDBC_JAR) or shutil.which("javac") is None:
        print(f"no {JDBC_JAR} or javac (scripts/setup-peers.sh fetches the driver)")
        sys.exit(1 if os.environ.get("CI") == "true" else 77)
    src = os.path.join(os.path.dirname(os.path.abspath(__file__)), "JdbcCheck.java")
    subprocess.run(["javac", "-d", tmp, "-cp", JDBC_JAR, src], check=True)
    cert, key = os.path.join(tmp, "cert.pem"), os.path.join(tmp, "key.pem")
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", key,
                    "-out", cert, "-days", "2", "-subj", "/CN=localhost"], check=True,
                   capture_output=True)
    srv = Server(wh, "--config", cfg, "--tls-cert", cert, "--tls-key", key)
    try:
        url = f"jdbc:postgresql://127.0.0.1:{srv.port}/default?sslmode=require"
        r = subprocess.run(["java", "-cp", JDBC_JAR + os.pathsep + tmp, "JdbcCheck", url, "alice",
                            "secret1"], capture_output=True, text=True, timeout=120)
        for line in r.stdout.splitlines():
            if line.startswith("ok   "):
                check("jdbc " + line[5:], True)
            elif line.startswith("FAIL "):
                check("jdbc " + line[5:], False)
        check("jdbc program ran to the end", "jdbc: " in r.stdout, r.stdout[-2000:] + r.stderr[-3000:])
        # without TLS the password is refused (as for every client)
        r = subprocess.run(["java", "-cp", JDBC_JAR + os.pathsep + tmp, "JdbcCheck",
                            f"jdbc:postgresql://127.0.0.1:{srv.port}/default?sslmode=disable",
                            "alice", "secret1"], capture_output=True, text=True, timeout=120)
        check("jdbc password without TLS refused", r.returncode != 0 and
              "sslmode=require" in r.stderr, r.stderr[-1000:])
    finally:
        check("SIGTERM stops the server", srv.stop() == 0)


def group_http(tmp, wh, cfg):
    """--http: the Trino client protocol, through the `trino` package, over HTTPS with the users."""
    try:
        import trino
        from trino.auth import BasicAuthentication
    except ImportError as e:
        print(f"trino missing ({e}); scripts/setup-peers.sh installs it")
        sys.exit(1 if os.environ.get("CI") == "true" else 77)
    import http.client
    import ssl
    cert, key = os.path.join(tmp, "cert.pem"), os.path.join(tmp, "key.pem")
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", key,
                    "-out", cert, "-days", "2", "-subj", "/CN=localhost", "-addext",
                    "subjectAltName=IP:127.0.0.1"], check=True, capture_output=True)
    os.environ["REQUESTS_CA_BUNDLE"] = cert  # the client checks the server's certificate
    srv = Server(wh, "--config", cfg, "--tls-cert", cert, "--tls-key", key, "--http",
                 "127.0.0.1:0")
    line = srv.proc.stdout.readline()
    hport = int(line.split("http on ")[1].split()[0].rsplit(":", 1)[1])
    def connect(user, pw, schema="default"):
        return trino.dbapi.connect(host="127.0.0.1", port=hport, user=user,
                                   auth=BasicAuthentication(user, pw), http_scheme="https",
                                   catalog="silt", schema=schema)
    try:
        cur = connect("alice", "secret1").cursor()
        cur.execute("SELECT * FROM t ORDER BY a")
        check("trino rows of every type", cur.fetchall() == [list(ROW1), [2] + [None] * 8])
        check("trino column types", [d[1] for d in cur.description] ==
              ["integer", "varchar", "double", "decimal(10,2)", "date",
               "timestamp(6) with time zone", "boolean", "varbinary", "bigint"],
              cur.description)
        cur.execute("INSERT INTO c VALUES (5), (-5)")
        cur.fetchall()
        check("trino INSERT updateCount", cur.rowcount == 2, cur.rowcount)
        cur.execute("SELECT count(*) FROM range(0, 200000)")
        check("trino aggregate", cur.fetchall() == [[200000]])
        cur.execute("SELECT id FROM range(0, 50000)")
        check("trino result streamed in chunks", len(cur.fetchall()) == 50000)
        try:
            cur.execute("SELECT nope FROM t")
            cur.fetchall()
            check("trino error", False)
        except trino.exceptions.TrinoUserError as e:
            check("trino error", e.error_name.startswith("UNRESOLVED_COLUMN"), e)
        try:
            connect("alice", "wrong").cursor().execute("SELECT 1")
            check("trino wrong password refused", False)
        except trino.exceptions.HttpError as e:
            check("trino wrong password refused", "401" in str(e), e)
        ro = connect("bob", "bobpw").cursor()
        ro.execute("SELECT count(*) FROM t")
        check("trino read-only user reads", ro.fetchall() == [[2]])
        try:
            ro.execute("DELETE FROM t")
            ro.fetchall()
            check("trino read-only user refused (25006)", False)
        except trino.exceptions.TrinoUserError as e:
            check("trino read-only user refused (25006)", e.error_name == "25006" or
                  "read-only" in e.message, e)
        try:
            connect("bob", "bobpw", schema="other").cursor().execute("SELECT 1")
            check("trino databases= restriction", False)
        except trino.exceptions.HttpError as e:
            check("trino databases= restriction", "403" in str(e), e)
        ctx = ssl.create_default_context(cafile=cert)
        def raw(method, path, body=None, headers=None):
            h = http.client.HTTPSConnection("127.0.0.1", hport, context=ctx, timeout=30)
            h.request(method, path, body=body, headers=headers or {})
            r = h.getresponse()
            data = r.read()
            h.close()
            return r.status, data
        check("GET refused (405)", raw("GET", "/v1/statement")[0] == 405)
        check("unknown path (404)", raw("POST", "/nope", b"SELECT 1")[0] == 404)
        check("no credentials (401)", raw("POST", "/v1/statement", b"SELECT 1")[0] == 401)
        s = socket.create_connection(("127.0.0.1", hport), timeout=30)
        t = ctx.wrap_socket(s, server_hostname="127.0.0.1")
        t.sendall(b"POST /v1/statement HTTP/1.1\r\nHost: x\r\nContent-Length: 99999999999\r\n\r\n")
        check("oversized body refused (413)", b" 413 " in t.recv(4096))
        t.close()
        try:
            plain = http.client.HTTPConnection("127.0.0.1", hport, timeout=10)
            plain.request("POST", "/v1/statement", body=b"SELECT 1")
            plain.getresponse()
            check("plain HTTP refused when TLS is on", False)
        except (OSError, http.client.HTTPException):
            check("plain HTTP refused when TLS is on", True)
        cur.execute("SELECT 1")
        check("still serving", cur.fetchall() == [[1]])
    finally:
        check("SIGTERM stops the server", srv.stop() == 0)


def main():
    with tempfile.TemporaryDirectory() as tmp:
        wh, cfg = setup(tmp)
        WAREHOUSE[0] = wh
        if GROUP == "tls":
            group_tls(tmp, wh, cfg)
        elif GROUP == "jdbc":
            group_jdbc(tmp, wh, cfg)
        elif GROUP == "http":
            group_http(tmp, wh, cfg)
        else:
            extra = ["--trust", "--max-connections", "1100"] if GROUP == "idle" else []
            srv = Server(wh, "--config", cfg, *extra)
            trust = Server(wh, "--trust") if GROUP == "robust" else None
            limited = Server(wh, "--trust", "--max-connections", "20") if GROUP == "robust" else None
            try:
                if GROUP == "psql":
                    group_psql(srv)
                elif GROUP == "clients":
                    group_clients(srv)
                elif GROUP == "auth":
                    group_auth(srv)
                elif GROUP == "robust":
                    group_robust(srv, trust, limited)
                elif GROUP == "concurrency":
                    group_concurrency(srv)
                elif GROUP == "idle":
                    group_idle(srv)
                    idle_timeout(wh)
                elif GROUP == "load":
                    group_load(srv)
                else:
                    raise SystemExit(f"no group {GROUP}")
            finally:
                check("SIGTERM stops the server", srv.stop() == 0)
                if trust:
                    check("SIGTERM stops the trust server", trust.stop() == 0)
                    check("SIGTERM stops the limited server", limited.stop() == 0)
    print(f"{RESULTS['passed']} passed, {RESULTS['failed']} failed")
    return 1 if RESULTS["failed"] else 0


if __name__ == "__main__":
    sys.exit(main())
