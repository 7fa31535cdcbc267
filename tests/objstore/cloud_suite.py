#!/usr/bin/env python3
"""silt on Azure Blob and Google Cloud Storage, against real emulators the
test starts itself: Azurite (npm azurite, SharedKey enforced; 409
BlobAlreadyExists to a second conditional put) and fake-gcs-server (412 to a
second upload with ifGenerationMatch=0), installed by
scripts/setup-servers.sh into <repo>/.peers.

    cloud_suite.py SILT_BIN WORKDIR

On each of az:// (and abfss://, wasbs://) and gs://:
- the trips tutorial's flow (tests/s3/s3_suite.py's trips_flow): the same
  numbers as on local disk after CTAS, evolving INSERT, UPDATE, DELETE, MERGE,
  time travel and history;
- a warehouse on the container/bucket: managed tables, checkpoints,
  _last_checkpoint, log cleanup, VACUUM, DROP TABLE;
- 8 silt processes appending at once: versions dense, every append once;
On Azure also: silt and delta-rs appending at once, delta-rs reading silt's
table; a SAS token instead of the key; a large file written as blocks, and a
failing block list publishing nothing; kill -9 while a block is uploaded;
injected 503s, resets and dropped answers retried; a wrong key and a missing
container named. On GCS: a missing bucket named; injected faults retried.

Without the servers the test is skipped (exit 77), except with CI=true.
Prints one line per check and "N passed, M failed".
"""
import base64
import hashlib
import hmac
import json
import os
import shutil
import socket
import subprocess
import sys
import threading
import time
import urllib.parse
import urllib.request
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(REPO / "tests" / "s3"))
import azure_admin  # noqa: E402
import s3_suite as s3  # noqa: E402
from fault_proxy import FaultProxy  # noqa: E402

AZURITE = REPO / ".peers" / "azurite" / "node_modules" / "azurite" / "dist" / "src" / "blob" / "main.js"
FAKE_GCS = REPO / ".peers" / "go" / "bin" / "fake-gcs-server"
CONTAINER = "silt"
N_ROWS = int(os.environ.get("SILT_CLOUD_TRIPS_ROWS", "20000"))


def wait_port(port, what):
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return
        except OSError:
            time.sleep(0.2)
    raise RuntimeError(f"{what} did not start listening in 60 s")


class Azurite:
    def __init__(self, work):
        self.dir = work / "azurite"
        self.dir.mkdir(parents=True)
        self.port = s3.free_port()
        self.log = open(work / "azurite.log", "w")
        self.proc = subprocess.Popen(
            ["node", str(AZURITE), "--blobHost", "127.0.0.1", "--blobPort", str(self.port),
             "--location", str(self.dir), "--skipApiVersionCheck", "--disableTelemetry"],
            stdout=self.log, stderr=subprocess.STDOUT)
        wait_port(self.port, "Azurite")
        self.endpoint = f"http://127.0.0.1:{self.port}/{azure_admin.ACCOUNT}"
        status = azure_admin.create_container(self.endpoint, CONTAINER)
        if status != 201:
            raise RuntimeError(f"Azurite did not create the container: HTTP {status}")

    def objects(self, prefix):
        prefix = prefix.rstrip("/") + "/"
        return [n[len(prefix):] for n in azure_admin.list_blobs(self.endpoint, CONTAINER, prefix)]

    def read(self, key):
        return azure_admin.read_blob(self.endpoint, CONTAINER, key)

    def stop(self):
        self.proc.terminate()
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
        self.log.close()


class FakeGcs:
    def __init__(self, work):
        self.dir = work / "gcs"
        self.dir.mkdir(parents=True)
        self.port = s3.free_port()
        self.log = open(work / "fake-gcs.log", "w")
        self.proc = subprocess.Popen(
            [str(FAKE_GCS), "-scheme", "http", "-host", "127.0.0.1", "-port", str(self.port),
             "-backend", "filesystem", "-filesystem-root", str(self.dir), "-log-level", "warn"],
            stdout=self.log, stderr=subprocess.STDOUT)
        wait_port(self.port, "fake-gcs-server")
        self.endpoint = f"http://127.0.0.1:{self.port}"
        req = urllib.request.Request(f"{self.endpoint}/storage/v1/b", method="POST",
                                     data=json.dumps({"name": CONTAINER}).encode(),
                                     headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(req, timeout=10):
            pass

    def objects(self, prefix):
        prefix = prefix.rstrip("/") + "/"
        names, token = [], ""
        while True:
            q = {"prefix": prefix}
            if token:
                q["pageToken"] = token
            with urllib.request.urlopen(f"{self.endpoint}/storage/v1/b/{CONTAINER}/o?"
                                        + urllib.parse.urlencode(q), timeout=30) as resp:
                page = json.loads(resp.read())
            names += [i["name"][len(prefix):] for i in page.get("items", [])]
            token = page.get("nextPageToken")
            if not token:
                return sorted(names)

    def read(self, key):
        url = (f"{self.endpoint}/storage/v1/b/{CONTAINER}/o/"
               f"{urllib.parse.quote(key, safe='')}?alt=media")
        with urllib.request.urlopen(url, timeout=30) as resp:
            return resp.read()

    def stop(self):
        self.proc.terminate()
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
        self.log.close()


def silt_for(binary, home, env_add):
    silt = s3.Silt(binary, home, 0)
    silt.env = {k: v for k, v in silt.env.items() if not k.startswith("AWS_")}
    for k in list(silt.env):
        if k.startswith("AZURE_") or k in ("STORAGE_EMULATOR_HOST", "GOOGLE_OAUTH_ACCESS_TOKEN"):
            del silt.env[k]
    silt.env.update(env_add)
    return silt


def azure_env(endpoint):
    return {"AZURE_STORAGE_ACCOUNT": azure_admin.ACCOUNT, "AZURE_STORAGE_KEY": azure_admin.KEY,
            "AZURE_STORAGE_ENDPOINT": endpoint}


def account_sas(permissions="racwdl"):
    """An account SAS for Azurite's account (the 2021-12-02 string to sign)."""
    start = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(time.time() - 300))
    expiry = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(time.time() + 3600))
    version = "2021-12-02"
    to_sign = "\n".join([azure_admin.ACCOUNT, permissions, "b", "sco", start, expiry, "", "http",
                         version, "", ""])
    sig = base64.b64encode(hmac.new(base64.b64decode(azure_admin.KEY), to_sign.encode(),
                                    hashlib.sha256).digest()).decode()
    return urllib.parse.urlencode({"sv": version, "ss": "b", "srt": "sco", "sp": permissions,
                                   "st": start, "se": expiry, "spr": "http", "sig": sig})


DELTA_RS_AZ = r"""
import sys, pyarrow as pa
from deltalake import write_deltalake, DeltaTable
uri, endpoint, start, n = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
opts = {"azure_storage_account_name": "devstoreaccount1",
        "azure_storage_account_key": "%s",
        "azure_storage_endpoint": endpoint, "allow_http": "true"}
if n == 0:
    dt = DeltaTable(uri, storage_options=opts)
    t = dt.to_pyarrow_table()
    print(dt.version(), t.num_rows, sum(t.column("id").to_pylist()))
    sys.exit(0)
for i in range(n):
    write_deltalake(uri, pa.table({"id": pa.array([start + i], pa.int64())}), mode="append",
                    storage_options=opts)
    print("ok", start + i, flush=True)
""" % azure_admin.KEY


def azure_delta_rs(silt, work, server):
    if not s3.PEERS_PY.exists():
        s3.check("delta-rs peer (.peers/venv) is present", os.environ.get("CI") != "true", True)
        return
    script = work / "delta_rs_azure.py"
    script.write_text(DELTA_RS_AZ)
    uri = f"az://{CONTAINER}/mixed"
    table = f"delta.`{uri}`"
    silt.run(f"CREATE TABLE {table} (id BIGINT) USING delta")
    rs = subprocess.Popen([str(s3.PEERS_PY), str(script), uri, server.endpoint, "1000", "8"],
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    acked = [i for i in range(8)
             if silt.run(f"INSERT INTO {table} VALUES ({i})", ok=False).returncode == 0]
    out, err = rs.communicate(timeout=600)
    rs_acked = [int(line.split()[1]) for line in out.splitlines() if line.startswith("ok ")]
    s3.check("azure: silt and delta-rs: every append acknowledged", (len(acked), len(rs_acked)),
             (8, 8))
    if len(rs_acked) != 8:
        print(f"     delta-rs said: {err[-800:]}")
    s3.dense_and_once(silt, table, acked + rs_acked, "azure: silt and delta-rs")
    got = subprocess.run([str(s3.PEERS_PY), str(script), uri, server.endpoint, "0", "0"],
                         capture_output=True, text=True, timeout=300)
    versions = [int(r[0]) for r in silt.rows(f"DESCRIBE HISTORY {table}")]
    s3.check("azure: delta-rs reads the mixed table as silt does", got.stdout.split(),
             [str(max(versions)), "16", silt.one(f"SELECT sum(id) FROM {table}")])
    if got.returncode != 0:
        print(f"     delta-rs said: {got.stderr[-800:]}")


def azure_locations(silt, server):
    """abfss:// and wasbs:// name the account in the host; a SAS token replaces the key."""
    want = silt.one(f"SELECT count(*) FROM delta.`az://{CONTAINER}/trips`")
    env = dict(silt.env)
    env.pop("AZURE_STORAGE_ACCOUNT")
    for scheme, host in (("abfss", "dfs"), ("wasbs", "blob")):
        loc = f"{scheme}://{CONTAINER}@{azure_admin.ACCOUNT}.{host}.core.windows.net/trips"
        s3.check(f"azure: {scheme}:// reads the table", silt.one(
            f"SELECT count(*) FROM delta.`{loc}`", env=env), want)
    sas_env = {k: v for k, v in silt.env.items() if k != "AZURE_STORAGE_KEY"}
    sas_env["AZURE_STORAGE_SAS_TOKEN"] = account_sas()
    s3.check("azure: a SAS token instead of the key reads", silt.one(
        f"SELECT count(*) FROM delta.`az://{CONTAINER}/trips`", env=sas_env), want)
    silt.run(f"CREATE TABLE delta.`az://{CONTAINER}/sas` AS SELECT id FROM range(7)", env=sas_env)
    s3.check("azure: a SAS token writes", silt.one(
        f"SELECT count(*) FROM delta.`az://{CONTAINER}/sas`"), "7")
    got = silt.one(f"SET fs.azure.account.key.{azure_admin.ACCOUNT}.blob.core.windows.net = "
                   f"'{azure_admin.KEY}'; SET fs.azure.endpoint = '{server.endpoint}'; "
                   f"SELECT count(*) FROM delta.`az://{CONTAINER}/trips`",
                   env={k: v for k, v in env.items() if k not in ("AZURE_STORAGE_KEY",
                                                                  "AZURE_STORAGE_ENDPOINT")}
                   | {"AZURE_STORAGE_ACCOUNT": azure_admin.ACCOUNT})
    s3.check("azure: SET fs.azure.* keys reach the container", got, want)


def azure_errors(silt):
    p = silt.run(f"SELECT count(*) FROM delta.`az://{CONTAINER}/trips`", ok=False,
                 env=dict(silt.env, AZURE_STORAGE_KEY=base64.b64encode(b"w" * 64).decode()))
    s3.check("azure: a wrong key fails", p.returncode, 1)
    # Azure answers AuthenticationFailed, Azurite AuthorizationFailure.
    for needle in ("HTTP 403 AuthorizationFailure", f"/{CONTAINER}/trips/",
                   "check the Azure credentials"):
        s3.check_in(f"azure: wrong key: the error names {needle!r}", needle, p.stderr)
    p = silt.run("SELECT count(*) FROM delta.`az://nocontainer/t`", ok=False)
    s3.check_in("azure: a missing container is named", "HTTP 404 ContainerNotFound", p.stderr)
    s3.check_in("azure: ... with a hint", 'container "nocontainer" does not exist', p.stderr)
    p = silt.run("SET fs.azure.acount.key = 'x'", ok=False)
    s3.check_in("azure: an unknown fs.azure key is refused by name",
                'store option "fs.azure.acount.key" is not known', p.stderr)


def azure_blocks_and_faults(silt, server):
    proxy = FaultProxy(server.port, {}).start()
    env = dict(silt.env, AZURE_STORAGE_ENDPOINT=f"http://127.0.0.1:{proxy.port}/"
               f"{azure_admin.ACCOUNT}")
    fast = "SET fs.azure.io.retry.backoff.interval = '10ms'; "
    big = ("SET fs.azure.write.request.size = '1m'; CREATE TABLE {t} USING delta AS SELECT id, "
           "concat(xxhash64(id), xxhash64(id + 1)) AS h FROM range(200000)")
    try:
        silt.run(big.format(t=f"delta.`az://{CONTAINER}/big`"), env=env)
        blocks = [t for m, t in proxy.requests if m == "PUT" and t.endswith("&comp=block")]
        s3.check("azure: a large file went up as blocks", len(blocks) >= 2, True)
        s3.check("azure: the block blob reads back", silt.rows(
            f"SELECT count(*), count(DISTINCT h) FROM delta.`az://{CONTAINER}/big`"),
            [["200000", "200000"]])
        proxy.set_plan({"fail_query": ("comp=blocklist", 400)})
        p = silt.run(big.format(t=f"delta.`az://{CONTAINER}/big-failed`"), ok=False, env=env)
        s3.check("azure: a failing block list fails the statement", p.returncode, 1)
        s3.check("azure: ... and publishes nothing", server.objects("big-failed"), [])
        held = s3.kill_when_held(silt, proxy, env, big.format(
            t=f"delta.`az://{CONTAINER}/killed`"), "&comp=block")
        s3.check("azure: kill -9 during a block upload", held, True)
        s3.check("azure: ... leaves no blob and no table", server.objects("killed"), [])
        table = f"delta.`az://{CONTAINER}/faulty`"
        proxy.set_plan({"503": 3, "drop": 5, "reset": 7})
        silt.run(fast + f"CREATE TABLE {table} (id BIGINT) USING delta", env=env)
        acked = [i for i in range(8) if silt.run(
            fast + f"INSERT INTO {table} VALUES ({i})", ok=False, env=env).returncode == 0]
        s3.check("azure: every append through 503s, resets and dropped answers succeeds",
                 len(acked), 8)
        s3.check("azure: the proxy injected each kind",
                 all(proxy.faults[k] > 0 for k in ("503", "drop", "reset")), True)
        s3.dense_and_once(silt, table, acked, "azure: faults")
        proxy.set_plan({"503": 1})
        p = silt.run("SET fs.azure.io.retry.max.retries = 2; " + fast +
                     f"SELECT count(*) FROM {table}", ok=False, env=env)
        s3.check_in("azure: retries are bounded and the error names the status", "HTTP 503",
                    p.stderr)
        s3.check_in("azure: ... and counts the attempts", "after 3 attempts", p.stderr)
    finally:
        proxy.stop()


def gcs_checks(silt, work):
    p = silt.run("SELECT count(*) FROM delta.`gs://no-such-bucket/t`", ok=False)
    s3.check("gcs: a missing bucket fails", p.returncode, 1)
    s3.check_in("gcs: ... naming the status", "HTTP 404 notFound", p.stderr)
    s3.check_in("gcs: ... with a hint", 'bucket "no-such-bucket" does not exist', p.stderr)
    s3.check_in("gcs: ... and the URL", "/storage/v1/b/no-such-bucket/o", p.stderr)
    # Two conditional creates of one version: the second is 412, silt retries at the next.
    table = f"delta.`gs://{CONTAINER}/trips`"
    s3.check("gcs: gcs:// reads the same table", silt.one(
        f"SELECT count(*) FROM delta.`gcs://{CONTAINER}/trips`"),
        silt.one(f"SELECT count(*) FROM {table}"))


def gcs_faults(silt, server):
    """503s, resets and answers dropped after forwarding, between silt and fake-gcs-server."""
    proxy = FaultProxy(server.port, {"503": 3, "drop": 5, "reset": 7}).start()
    env = dict(silt.env, STORAGE_EMULATOR_HOST=f"http://127.0.0.1:{proxy.port}")
    fast = "SET fs.gs.http.retry.interval = '10ms'; "
    table = f"delta.`gs://{CONTAINER}/faulty`"
    try:
        silt.run(fast + f"CREATE TABLE {table} (id BIGINT) USING delta", env=env)
        acked = [i for i in range(8) if silt.run(
            fast + f"INSERT INTO {table} VALUES ({i})", ok=False, env=env).returncode == 0]
        s3.check("gcs: every append through 503s, resets and dropped answers succeeds",
                 len(acked), 8)
        s3.check("gcs: the proxy injected each kind",
                 all(proxy.faults[k] > 0 for k in ("503", "drop", "reset")), True)
        s3.dense_and_once(silt, table, acked, "gcs: faults")
        proxy.set_plan({"503": 1})
        p = silt.run("SET fs.gs.http.max.retry = 1; " + fast + f"SELECT count(*) FROM {table}",
                     ok=False, env=env)
        s3.check_in("gcs: bounded retries: the error names the status", "HTTP 503", p.stderr)
        s3.check_in("gcs: ... and counts the attempts", "after 2 attempts", p.stderr)
    finally:
        proxy.stop()


def run_backend(name, silt, server, work, uri, extra):
    print(f"--- {name}", flush=True)
    steps = [("trips", lambda: s3.trips_flow(silt, work, uri=f"{uri}/trips", label=name,
                                             n_rows=N_ROWS)),
             ("warehouse", lambda: s3.warehouse(silt, server, wh=f"{uri}/wh")),
             ("concurrent", lambda: s3.concurrent_silt(silt, uri=f"{uri}/concurrent",
                                                       label=f"{name}: 8 silt writers"))] + extra
    only = os.environ.get("SILT_CLOUD_STEPS")  # for debugging: a comma-separated subset
    for step_name, step in steps:
        if only and step_name not in only.split(","):
            continue
        began = time.monotonic()
        try:
            step()
        except Exception as exc:  # one broken step fails, the others still run
            s3.check(f"{name}: step ran without an exception ({exc!s:.800})", False, True)
        print(f"     ({name} {step_name}: {time.monotonic() - began:.1f} s)", flush=True)


def main():
    if len(sys.argv) != 3:
        print(__doc__)
        return 2
    missing = [str(p) for p in (AZURITE, FAKE_GCS) if not p.exists()]
    if missing or shutil.which("node") is None:
        if os.environ.get("CI") == "true":
            print(f"FAIL missing {missing or 'node'} (scripts/setup-servers.sh)\n0 passed, 1 failed")
            return 1
        print(f"skip: {missing or 'node'} missing (run scripts/setup-servers.sh)")
        return 77
    started = time.monotonic()
    work = Path(sys.argv[2])
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    (work / "home").mkdir()
    servers = []
    try:
        az = Azurite(work)
        servers.append(az)
        silt = silt_for(sys.argv[1], work / "home", azure_env(az.endpoint))
        (work / "az").mkdir()
        run_backend("Azure", silt, az, work / "az", f"az://{CONTAINER}", [
            ("locations", lambda: azure_locations(silt, az)),
            ("delta_rs", lambda: azure_delta_rs(silt, work, az)),
            ("errors", lambda: azure_errors(silt)),
            ("blocks", lambda: azure_blocks_and_faults(silt, az))])
        gcs = FakeGcs(work)
        servers.append(gcs)
        silt = silt_for(sys.argv[1], work / "home", {"STORAGE_EMULATOR_HOST": gcs.endpoint})
        (work / "gs").mkdir()
        run_backend("GCS", silt, gcs, work / "gs", f"gs://{CONTAINER}",
                    [("gcs", lambda: gcs_checks(silt, work)),
                     ("faults", lambda: gcs_faults(silt, gcs))])
    finally:
        for server in servers:
            server.stop()
    print(f"{s3.passed} passed, {s3.failed} failed in {time.monotonic() - started:.1f} s")
    if s3.failed == 0:
        shutil.rmtree(work, ignore_errors=True)
    return 1 if s3.failed else 0


if __name__ == "__main__":
    sys.exit(main())
