#!/usr/bin/env python3
"""silt on S3, against a real S3 server the test starts itself: versitygw
(posix back end, SigV4 enforced, 412 on a second conditional PUT), installed
by scripts/setup-servers.sh into <repo>/.peers/go/bin.

    s3_suite.py SILT_BIN WORKDIR

- the trips tutorial's flow (CTAS partitioned, evolving INSERT BY NAME,
  UPDATE, DELETE, MERGE, time travel, history) on s3:// and on local disk
  with the same statements: the same numbers after every step;
- a warehouse on the bucket (--warehouse s3://...): managed tables,
  checkpoints and _last_checkpoint, log cleanup, VACUUM, DROP TABLE;
- 8 silt processes appending to one table at once, and silt and delta-rs
  appending at once: versions dense, every acknowledged commit once;
- settings: SET fs.s3a.* keys and AWS_PROFILE profiles instead of variables;
- errors: a wrong secret, a missing bucket, an unknown key, Azure/GCS refused;
- faults (tests/s3/fault_proxy.py): injected 503s, resets and dropped answers
  are retried and every commit lands once; with retries off the error names
  the URL, the status and the server's code; multipart uploads, and one whose
  completion fails leaves no object and no commit.

Without the server binary the test is skipped (exit 77), except with CI=true.
Prints one line per check and "N passed, M failed".
"""
import csv
import io
import json
import os
import shutil
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(REPO / "tests" / "e2e"))
from fault_proxy import FaultProxy  # noqa: E402
from trips_data import write_inputs  # noqa: E402

VERSITYGW = REPO / ".peers" / "go" / "bin" / "versitygw"
PEERS_PY = REPO / ".peers" / "venv" / "bin" / "python"
ACCESS, SECRET = "AKSILTTEST", "silt-test-secret-key"
BUCKET = "silt"
N_ROWS = int(os.environ.get("SILT_S3_TRIPS_ROWS", "200000"))

passed = failed = 0


def check(name, got, want):
    global passed, failed
    if got == want:
        passed += 1
        print(f"ok   {name}", flush=True)
    else:
        failed += 1
        print(f"FAIL {name}: got {got!r}, want {want!r}", flush=True)


def check_in(name, needle, text):
    check(name, needle in text, True)
    if needle not in text:
        print(f"     text was: {text[:600]!r}")


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Server:
    def __init__(self, work):
        self.data = work / "gw-data"
        self.data.mkdir(parents=True)
        (self.data / BUCKET).mkdir()
        self.port = free_port()
        self.log = open(work / "versitygw.log", "w")
        self.proc = subprocess.Popen(
            [str(VERSITYGW), "--port", f"127.0.0.1:{self.port}", "--access", ACCESS,
             "--secret", SECRET, "posix", str(self.data)],
            stdout=self.log, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=1).close()
                return
            except OSError:
                time.sleep(0.1)
        raise RuntimeError("versitygw did not start listening in 30 s")

    def objects(self, prefix):
        return objects(self, prefix)

    def read(self, key):
        return (self.data / BUCKET / key).read_bytes()

    def stop(self):
        self.proc.terminate()
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
        self.log.close()


class Silt:
    def __init__(self, binary, home, port):
        self.binary = binary
        self.env = dict(os.environ, HOME=str(home), AWS_ACCESS_KEY_ID=ACCESS,
                        AWS_SECRET_ACCESS_KEY=SECRET, AWS_ENDPOINT_URL=f"http://127.0.0.1:{port}",
                        AWS_REGION="us-east-1")
        for k in ("AWS_PROFILE", "AWS_SESSION_TOKEN", "AWS_ENDPOINT_URL_S3"):
            self.env.pop(k, None)

    def run(self, sql, ok=True, env=None, warehouse=None, timeout=600):
        args = [self.binary, "sql", "--format", "csv"]
        if warehouse:
            args += ["--warehouse", warehouse]
        proc = subprocess.run(args + [sql], capture_output=True, text=True, timeout=timeout,
                              env=env or self.env)
        if ok and proc.returncode != 0:
            raise RuntimeError(f"silt failed on {sql!r}:\n{proc.stderr}")
        return proc

    def rows(self, sql, **kw):
        out = self.run(sql, **kw).stdout
        return list(csv.reader(io.StringIO(out)))[1:] if out else []

    def one(self, sql, **kw):
        """The first cell of the last row (the last statement's one-row result)."""
        rows = self.rows(sql, **kw)
        return rows[-1][0] if rows else None


SUMMARY0 = "count(*), sum(trip_id), sum(length(destination)), count(DISTINCT route_id)"
SUMMARY = ("count(*), sum(trip_id), sum(length(destination)), count(DISTINCT route_id), "
           "count(origin), sum(length(origin))")


def trips_flow(silt, work, uri=f"s3://{BUCKET}/trips", label="S3", n_rows=None):
    """The same statements on local disk and on S3; every number must agree."""
    global N_ROWS
    if n_rows is not None:
        N_ROWS = n_rows
    write_inputs(str(work), N_ROWS)
    targets = {"local": f"delta.`{work / ('trips-local-' + label)}`", "s3": f"delta.`{uri}`"}
    out = {}
    for name, t in targets.items():
        r = out[name] = {}
        silt.run(f"CREATE TABLE {t} USING DELTA PARTITIONED BY (route_id) "
                 f"AS SELECT * FROM json.`{work / 'trips.json'}`")
        r["v0"] = silt.rows(f"SELECT count(*), sum(trip_id), count(DISTINCT route_id) FROM {t}")
        silt.run("SET spark.databricks.delta.schema.autoMerge.enabled = true; "
                 f"INSERT INTO {t} BY NAME SELECT * FROM json.`{work / 'insert.json'}`")
        r["v1"] = silt.rows(f"SELECT {SUMMARY} FROM {t}")
        silt.run(f"UPDATE {t} SET destination = 'Philadelphia' WHERE destination = 'Syracuse'")
        r["v2"] = silt.rows(f"SELECT {SUMMARY} FROM {t}")
        silt.run(f"DELETE FROM {t} WHERE destination = 'New Jersey'")
        r["v3"] = silt.rows(f"SELECT {SUMMARY} FROM {t}")
        r["merge"] = silt.rows(
            f"MERGE INTO {t} AS t USING json.`{work / 'merge.json'}` AS s "
            "ON t.trip_id = s.trip_id WHEN MATCHED THEN UPDATE SET * "
            "WHEN NOT MATCHED THEN INSERT *")
        r["v4"] = silt.rows(f"SELECT {SUMMARY} FROM {t}")
        r["travel"] = [silt.rows(f"SELECT {SUMMARY if v else SUMMARY0} FROM {t} "
                                 f"VERSION AS OF {v}") for v in range(5)]
        hist = list(csv.DictReader(io.StringIO(silt.run(f"DESCRIBE HISTORY {t}").stdout)))
        r["history"] = [(h["version"], h["operation"], _stable_metrics(h["operationMetrics"]))
                        for h in hist]
        r["by_ts"] = silt.one(f"SELECT count(*) FROM {t} TIMESTAMP AS OF '{hist[-1]['timestamp']}'")
        r["rows"] = silt.rows(f"SELECT trip_id, destination, origin FROM {t} "
                              f"WHERE trip_id >= {N_ROWS + 14} ORDER BY trip_id")
    loc, s3 = out["local"], out["s3"]
    check(f"trips: CTAS count on {label}", s3["v0"], [[str(N_ROWS), str(N_ROWS * (N_ROWS - 1) // 2),
                                                "10"]])
    for key in ("v0", "v1", "v2", "v3", "merge", "v4", "travel", "history", "by_ts", "rows"):
        check(f"trips: {key} on {label} equals local disk", s3[key], loc[key])
    check(f"trips: MERGE counts on {label}", s3["merge"], [["10", "5", "0", "5"]])
    check(f"trips: history operations on {label}", [h[1] for h in s3["history"]],
          ["MERGE", "DELETE", "UPDATE", "WRITE", "CREATE TABLE AS SELECT"])


def _stable_metrics(text):
    """Operation metrics without the times and byte counts that vary run to run."""
    try:
        m = json.loads(text)
    except ValueError:
        return text
    if isinstance(m, list):
        m = dict(m)
    if not isinstance(m, dict):
        return text
    return json.dumps({k: v for k, v in sorted(m.items())
                       if "Time" not in k and "Bytes" not in k and "Ms" not in k})


def objects(server, prefix):
    root = server.data / BUCKET / prefix
    if not root.exists():
        return []
    return sorted(str(p.relative_to(root)) for p in root.rglob("*") if p.is_file())


def warehouse(silt, server, wh=f"s3://{BUCKET}/wh"):
    """server: has objects(prefix) (names below prefix) and read(key) (bytes)."""
    silt.run("CREATE TABLE events (id BIGINT, kind STRING) USING delta TBLPROPERTIES "
             "('delta.checkpointInterval' = '3')", warehouse=wh)
    for i in range(7):
        silt.run(f"INSERT INTO events VALUES ({i}, 'k{i % 2}')", warehouse=wh)
    check("warehouse: count", silt.one("SELECT count(*) FROM events", warehouse=wh), "7")
    check("warehouse: SHOW TABLES", silt.rows("SHOW TABLES", warehouse=wh),
          [["default", "events", "false"]])
    log = server.objects("wh/events/_delta_log")
    check("warehouse: checkpoints at versions 3 and 6",
          [f for f in log if f.endswith(".checkpoint.parquet")],
          ["00000000000000000003.checkpoint.parquet", "00000000000000000006.checkpoint.parquet"])
    check("warehouse: _last_checkpoint names version 6",
          json.loads(server.read("wh/events/_delta_log/_last_checkpoint"))["version"], 6)
    check("warehouse: time travel", silt.one("SELECT count(*) FROM events VERSION AS OF 2",
                                             warehouse=wh), "2")
    silt.run("CREATE DATABASE sales", warehouse=wh)
    silt.run("CREATE TABLE sales.orders USING delta AS SELECT id, id * 10 AS amount "
             "FROM range(100)", warehouse=wh)
    silt.run("UPDATE sales.orders SET amount = 0 WHERE id < 10", warehouse=wh)
    silt.run("DELETE FROM sales.orders WHERE id >= 90", warehouse=wh)
    silt.run("MERGE INTO sales.orders t USING (SELECT 5 AS id, 55 AS amount UNION ALL "
             "SELECT 500, 5000) s ON t.id = s.id WHEN MATCHED THEN UPDATE SET * "
             "WHEN NOT MATCHED THEN INSERT *", warehouse=wh)
    check("warehouse: DML in a database", silt.rows(
        "SELECT count(*), sum(amount) FROM sales.orders", warehouse=wh),
        [["91", str(sum(i * 10 for i in range(10, 90)) + 55 + 5000)]])
    # Log cleanup: with no retention, the commits before the last checkpoint go.
    silt.run("ALTER TABLE events SET TBLPROPERTIES ('delta.logRetentionDuration' = "
             "'interval 0 seconds')", warehouse=wh)
    for i in range(2):
        silt.run(f"INSERT INTO events VALUES ({100 + i}, 'late')", warehouse=wh)
    log = server.objects("wh/events/_delta_log")
    check("warehouse: log cleanup removed commits 0..5",
          [f for f in log if f.endswith(".json") and int(f[:20]) < 6], [])
    check("warehouse: the table reads after log cleanup",
          silt.one("SELECT count(*) FROM events", warehouse=wh), "9")
    before = len([f for f in server.objects("wh/sales.db/orders") if f.endswith(".parquet")])
    check("warehouse: the managed table's files are on the bucket", before > 0, True)
    silt.run("SET spark.databricks.delta.retentionDurationCheck.enabled = false; "
             "VACUUM sales.orders RETAIN 0 HOURS", warehouse=wh)
    after = len([f for f in server.objects("wh/sales.db/orders") if f.endswith(".parquet")])
    check("warehouse: VACUUM deleted the files the DML removed", 0 < after < before, True)
    check("warehouse: rows after VACUUM", silt.rows(
        "SELECT count(*), sum(amount) FROM sales.orders", warehouse=wh),
        [["91", str(sum(i * 10 for i in range(10, 90)) + 55 + 5000)]])
    silt.run("DROP TABLE sales.orders", warehouse=wh)
    check("warehouse: DROP TABLE deleted the managed table's objects",
          server.objects("wh/sales.db/orders"), [])
    check("warehouse: the dropped table is gone from the catalog",
          silt.rows("SHOW TABLES IN sales", warehouse=wh), [])


def dense_and_once(silt, table, acked, label):
    versions = sorted(int(h["version"]) for h in csv.DictReader(
        io.StringIO(silt.run(f"DESCRIBE HISTORY {table}").stdout)))
    check(f"{label}: versions dense", versions, list(range(len(versions))))
    rows = sorted(int(r[0]) for r in silt.rows(f"SELECT id FROM {table}"))
    check(f"{label}: every acknowledged append once", rows, sorted(acked))


def concurrent_silt(silt, uri=f"s3://{BUCKET}/concurrent", label="8 silt writers"):
    table = f"delta.`{uri}`"
    silt.run(f"CREATE TABLE {table} (id BIGINT) USING delta")
    per_writer, writers = 4, 8
    acked, lock, errors = [], threading.Lock(), []

    def writer(w):
        for i in range(per_writer):
            value = w * 100 + i
            p = silt.run(f"INSERT INTO {table} VALUES ({value})", ok=False)
            with lock:
                (acked.append(value) if p.returncode == 0 else errors.append(p.stderr))

    threads = [threading.Thread(target=writer, args=(w,)) for w in range(writers)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    check(f"{label}: every append acknowledged", (len(acked), errors[:1]),
          (writers * per_writer, []))
    dense_and_once(silt, table, acked, label)


DELTA_RS = r"""
import sys, pyarrow as pa
from deltalake import write_deltalake, DeltaTable
uri, port, start, n = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
opts = {"AWS_ACCESS_KEY_ID": "%s", "AWS_SECRET_ACCESS_KEY": "%s", "AWS_REGION": "us-east-1",
        "AWS_ENDPOINT_URL": f"http://127.0.0.1:{port}", "AWS_ALLOW_HTTP": "true",
        "conditional_put": "etag"}
if n == 0:
    dt = DeltaTable(uri, storage_options=opts)
    print(dt.version(), dt.to_pyarrow_table().num_rows)
    sys.exit(0)
for i in range(n):
    write_deltalake(uri, pa.table({"id": pa.array([start + i], pa.int64())}), mode="append",
                    storage_options=opts)
    print("ok", start + i, flush=True)
""" % (ACCESS, SECRET)


def concurrent_delta_rs(silt, work, port):
    if not PEERS_PY.exists():
        if os.environ.get("CI") == "true":
            check("delta-rs peer (.peers/venv) is present in CI", False, True)
        else:
            print("skip delta-rs checks: no .peers/venv")
        return
    script = work / "delta_rs_append.py"
    script.write_text(DELTA_RS)
    uri = f"s3://{BUCKET}/mixed"
    table = f"delta.`{uri}`"
    silt.run(f"CREATE TABLE {table} (id BIGINT) USING delta")
    rs = subprocess.Popen([str(PEERS_PY), str(script), uri, str(port), "1000", "8"],
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    acked = []
    for i in range(8):
        if silt.run(f"INSERT INTO {table} VALUES ({i})", ok=False).returncode == 0:
            acked.append(i)
    out, err = rs.communicate(timeout=600)
    rs_acked = [int(line.split()[1]) for line in out.splitlines() if line.startswith("ok ")]
    check("silt and delta-rs: every append acknowledged", (len(acked), len(rs_acked)), (8, 8))
    if len(rs_acked) != 8:
        print(f"     delta-rs said: {err[-800:]}")
    dense_and_once(silt, table, acked + rs_acked, "silt and delta-rs")
    got = subprocess.run([str(PEERS_PY), str(script), uri, str(port), "0", "0"],
                         capture_output=True, text=True, timeout=300)
    check("delta-rs reads the mixed table as silt does", got.stdout.split(),
          [str(16), silt.one(f"SELECT count(*) FROM {table}")])


def settings_and_profiles(silt, work, port):
    table = f"delta.`s3://{BUCKET}/trips`"
    bare = {k: v for k, v in silt.env.items() if not k.startswith("AWS_")}
    want = silt.one(f"SELECT count(*) FROM {table}")
    got = silt.one(f"SET spark.hadoop.fs.s3a.access.key = {ACCESS}; "
                   f"SET fs.s3a.secret.key = '{SECRET}'; "
                   f"SET fs.s3a.endpoint = '127.0.0.1:{port}'; "
                   "SET fs.s3a.connection.ssl.enabled = false; "
                   f"SELECT count(*) FROM {table}", env=bare)
    check("SET fs.s3a.* keys reach the bucket", got, want)
    aws = work / "home" / ".aws"
    aws.mkdir(parents=True, exist_ok=True)
    (aws / "credentials").write_text(f"[default]\naws_access_key_id = nobody\n"
                                     f"aws_secret_access_key = nothing\n\n[test]\n"
                                     f"aws_access_key_id = {ACCESS}\n"
                                     f"aws_secret_access_key = {SECRET}\n")
    (aws / "config").write_text(f"[profile test]\nregion = us-east-1\n"
                                f"endpoint_url = http://127.0.0.1:{port}\n")
    got = silt.one(f"SELECT count(*) FROM {table}", env=dict(bare, AWS_PROFILE="test"))
    check("AWS_PROFILE's credentials and endpoint_url reach the bucket", got, want)
    p = silt.run(f"SELECT count(*) FROM {table}", ok=False, env=dict(bare, AWS_PROFILE="nope"))
    check_in("a missing AWS_PROFILE is named", 'the AWS profile "nope"', p.stderr)
    shutil.rmtree(aws)


def errors(silt, port):
    table = f"delta.`s3://{BUCKET}/trips`"
    p = silt.run(f"SELECT count(*) FROM {table}", ok=False,
                 env=dict(silt.env, AWS_SECRET_ACCESS_KEY="wrong"))
    check("wrong secret fails", p.returncode, 1)
    for needle in ("HTTP 403", "SignatureDoesNotMatch", f"http://127.0.0.1:{port}/{BUCKET}/trips/",
                   "check the S3 credentials"):
        check_in(f"wrong secret: the error names {needle!r}", needle, p.stderr)
    p = silt.run("SELECT count(*) FROM delta.`s3://no-such-bucket/t`", ok=False)
    check_in("missing bucket: NoSuchBucket", "HTTP 404 NoSuchBucket", p.stderr)
    check_in("missing bucket: the hint names it", 'bucket "no-such-bucket" does not exist',
             p.stderr)
    p = silt.run("CREATE TABLE delta.`s3://no-such-bucket/t` USING delta AS SELECT 1 AS a",
                 ok=False)
    check_in("missing bucket: a CTAS fails naming it", "NoSuchBucket", p.stderr)
    p = silt.run("SET fs.s3a.endpoint.regoin = 'x'", ok=False)
    check_in("an unknown fs.s3a key is refused by name",
             'store option "fs.s3a.endpoint.regoin" is not known', p.stderr)
    p = silt.run("SET fs.s3a.multipart.size = '1k'", ok=False)
    check_in("a bad fs.s3a value is refused", "expected a size from 5M to 5G", p.stderr)
    p = silt.run("SELECT * FROM delta.`adl://c/t`", ok=False)
    check_in("adl:// (ADLS Gen1, retired) is refused by name", "is on Azure Data Lake Storage "
             "Gen1, which silt does not support yet", p.stderr)


def faults(silt, server):
    proxy = FaultProxy(server.port, {"503": 3, "drop": 5, "reset": 7}).start()
    env = dict(silt.env, AWS_ENDPOINT_URL=f"http://127.0.0.1:{proxy.port}")
    fast = "SET fs.s3a.retry.interval = '10ms'; "
    table = f"delta.`s3://{BUCKET}/faulty`"
    try:
        silt.run(fast + f"CREATE TABLE {table} (id BIGINT) USING delta", env=env)
        acked = []
        for i in range(10):
            p = silt.run(fast + f"INSERT INTO {table} VALUES ({i})", ok=False, env=env)
            if p.returncode == 0:
                acked.append(i)
            else:
                print(f"     append {i} failed: {p.stderr[:800]}")
        check("faults: every append through 503s, resets and dropped answers succeeds",
              len(acked), 10)
        check("faults: the proxy injected each kind", all(proxy.faults[k] > 0 for k in
                                                          ("503", "drop", "reset")), True)
        dense_and_once(silt, table, acked, "faults")
        proxy.set_plan({"503": 1})
        p = silt.run("SET fs.s3a.retry.limit = 0; " + f"SELECT count(*) FROM {table}",
                     ok=False, env=env)
        check_in("faults: with no retries the error names the status and code",
                 "HTTP 503 SlowDown", p.stderr)
        check_in("faults: ... and the URL", f"http://127.0.0.1:{proxy.port}/{BUCKET}/faulty/",
                 p.stderr)
        proxy.set_plan({"503": 1})
        p = silt.run("SET fs.s3a.retry.limit = 2; " + fast + f"SELECT count(*) FROM {table}",
                     ok=False, env=env)
        check_in("faults: retries are bounded by fs.s3a.retry.limit", "HTTP 503 SlowDown", p.stderr)
        check_in("faults: ... and the error counts the attempts", "after 3 attempts", p.stderr)
        multipart(silt, server, proxy, env)
        kills(silt, server, proxy, env)
    finally:
        proxy.stop()


def multipart(silt, server, proxy, env):
    table = f"delta.`s3://{BUCKET}/big`"
    big = ("SET fs.s3a.multipart.size = '5M'; CREATE TABLE {t} USING delta AS SELECT id, "
           "concat(xxhash64(id), xxhash64(id + 1), xxhash64(id + 2)) AS h FROM range(400000)")
    proxy.set_plan({})
    proxy.requests.clear()
    silt.run(big.format(t=table), env=env)
    parts = [t for m, t in proxy.requests if m == "PUT" and "partNumber=" in t]
    check("multipart: a large file went up in parts", len(parts) >= 2, True)
    check("multipart: the table reads back", silt.rows(
        f"SELECT count(*), count(DISTINCT h) FROM {table}"), [["400000", "400000"]])
    files = [f for f in objects(server, "big") if f.endswith(".parquet")]
    check("multipart: one data file over 5 MiB", [
        (server.data / BUCKET / "big" / f).stat().st_size > 5 << 20 for f in files], [True])
    # A completion that fails: the statement fails, no object and no commit appear.
    proxy.set_plan({"fail_query": ("uploadId=", 400)})
    p = silt.run(big.format(t=f"delta.`s3://{BUCKET}/big-failed`"), ok=False, env=env)
    check("multipart: a failed upload fails the statement", p.returncode, 1)
    check_in("multipart: the error names the status", "HTTP 400 InvalidRequest", p.stderr)
    check("multipart: nothing was published", objects(server, "big-failed"), [])
    proxy.set_plan({})


def kill_when_held(silt, proxy, env, sql, marker):
    """Runs sql in a silt process, kill -9s it while the proxy holds its request with marker."""
    proxy.held.clear()
    proxy.release.clear()
    proxy.set_plan({"hold": marker})
    proc = subprocess.Popen([silt.binary, "sql", sql], env=env, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    held = proxy.held.wait(300)
    proc.kill()
    proc.wait(timeout=60)
    proxy.release.set()
    proxy.set_plan({})
    return held


def kills(silt, server, proxy, env):
    """kill -9 in the middle of a multipart upload and of a commit: nothing half-published."""
    held = kill_when_held(silt, proxy, env, "SET fs.s3a.multipart.size = '5M'; CREATE TABLE "
                          f"delta.`s3://{BUCKET}/killed` USING delta AS SELECT id, concat("
                          "xxhash64(id), xxhash64(id + 1), xxhash64(id + 2)) AS h "
                          "FROM range(400000)", "partNumber=2")
    check("kill -9: the writer was killed during its multipart upload", held, True)
    check("kill -9 during a multipart upload: no object, no table", objects(server, "killed"), [])
    table = f"delta.`s3://{BUCKET}/killed-commit`"
    silt.run(f"CREATE TABLE {table} USING delta AS SELECT id FROM range(10)")
    held = kill_when_held(silt, proxy, env, f"INSERT INTO {table} SELECT id FROM range(10, 20)",
                          "_delta_log/00000000000000000001.json")
    check("kill -9: the writer was killed during its commit", held, True)
    check("kill -9 during a commit: the table is at version 0 with its rows",
          silt.rows(f"SELECT count(*), max(id) FROM {table}"), [["10", "9"]])
    check("kill -9 during a commit: no commit 1",
          [f for f in objects(server, "killed-commit/_delta_log") if f.startswith("0") and
           f.endswith(".json")], ["00000000000000000000.json"])
    silt.run(f"INSERT INTO {table} SELECT id FROM range(10, 20)")
    check("kill -9 during a commit: the next writer commits version 1",
          silt.rows(f"SELECT count(*), max(id) FROM {table} VERSION AS OF 1"), [["20", "19"]])


def main():
    if len(sys.argv) != 3:
        print(__doc__)
        return 2
    if not VERSITYGW.exists():
        if os.environ.get("CI") == "true":
            print("FAIL versitygw is not installed (scripts/setup-servers.sh)\n0 passed, 1 failed")
            return 1
        print(f"skip: {VERSITYGW} is missing (run scripts/setup-servers.sh)")
        return 77
    started = time.monotonic()
    work = Path(sys.argv[2])
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    (work / "home").mkdir()
    server = Server(work)
    silt = Silt(sys.argv[1], work / "home", server.port)
    try:
        for step in (lambda: trips_flow(silt, work), lambda: warehouse(silt, server),
                     lambda: concurrent_silt(silt),
                     lambda: concurrent_delta_rs(silt, work, server.port),
                     lambda: settings_and_profiles(silt, work, server.port),
                     lambda: errors(silt, server.port), lambda: faults(silt, server)):
            try:
                step()
            except Exception as exc:  # one broken step fails, the others still run
                check(f"step ran without an exception ({exc!s:.800})", False, True)
    finally:
        server.stop()
    print(f"{passed} passed, {failed} failed in {time.monotonic() - started:.1f} s")
    if failed == 0:
        shutil.rmtree(work, ignore_errors=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
