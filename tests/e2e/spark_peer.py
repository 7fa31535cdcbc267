"""Spark with Delta as the reference reader and writer of the tutorial replays.

One SparkSession per test process (tests/peers/peers.py starts it), shared by
every check: after each silt operation Spark reads the table at that version
and its history, and Spark's own writes are read back by silt.

    peer = SparkPeer.start(repo)        # None when .peers/venv is missing (not in CI)
    peer.summary(path, version, exprs)  # list of strings, one per aggregate
    peer.operations(path)               # [(version, operation), ...] oldest first
    peer.sql(text)
"""
import os
import subprocess
import sys
from pathlib import Path


def peers_off():
    """SILT_TEST_PEERS=off: check silt alone. The sanitizer build sets it; the
    release build of the same run checks the peers (Spark under ASan adds
    nothing but minutes)."""
    return os.environ.get("SILT_TEST_PEERS", "").lower() == "off"


def in_ci():
    """A missing peer is a failure in CI, unless peers are switched off."""
    return os.environ.get("CI", "").lower() in ("1", "true", "yes") and not peers_off()


def ensure_venv(repo, argv):
    """Re-runs this script under <repo>/.peers/venv's python when it is not already.

    Returns False when the venv is missing (the caller skips Spark, or fails in CI).
    """
    venv_py = Path(repo) / ".peers" / "venv" / "bin" / "python"
    if peers_off() or not venv_py.exists():
        return False
    if Path(sys.prefix).resolve() != (Path(repo) / ".peers" / "venv").resolve():
        os.execv(str(venv_py), [str(venv_py)] + argv)
    return True


def _cell(value):
    if value is None:
        return ""
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


class SparkPeer:
    def __init__(self, spark):
        self.spark = spark

    @classmethod
    def start(cls, repo):
        sys.path.insert(0, str(Path(repo) / "tests" / "peers"))
        from peers import spark_session  # noqa: E402 (the venv's pyspark)
        return cls(spark_session())

    def summary(self, path, version, exprs):
        reader = self.spark.read.format("delta")
        if version is not None:
            reader = reader.option("versionAsOf", version)
        row = reader.load(str(path)).selectExpr(*exprs).collect()[0]
        return [_cell(v) for v in row]

    def operations(self, path):
        rows = self.spark.sql(f"DESCRIBE HISTORY delta.`{path}`").collect()
        return sorted((r["version"], r["operation"]) for r in rows)

    def history(self, path, version):
        rows = self.spark.sql(f"DESCRIBE HISTORY delta.`{path}`").collect()
        for r in rows:
            if r["version"] == version:
                return r
        return None

    def sql(self, text):
        return self.spark.sql(text).collect()


def silt_sql(binary, sql, ok=True):
    proc = subprocess.run([binary, "sql", "--format", "csv", sql],
                          capture_output=True, text=True, timeout=600)
    if ok and proc.returncode != 0:
        raise RuntimeError(f"silt failed on {sql!r}:\n{proc.stderr}")
    return proc


def preload_sanitizer_runtime(lib_path, argv):
    """Re-runs this script with the ASan runtime preloaded when `lib_path`
    (a libsilt loaded through ctypes) was built with ASan: the runtime must
    come first in a process, and python does not link it. Leak checking is
    turned off in that run, since the interpreter's own allocations would be
    reported; silt's leaks are checked by the unit tests of the same build.
    """
    import subprocess
    if "libasan" in os.environ.get("LD_PRELOAD", ""):
        return
    ldd = subprocess.run(["ldd", str(lib_path)], capture_output=True, text=True).stdout
    for line in ldd.splitlines():
        if "libasan" in line and "=>" in line:
            runtime = line.split("=>", 1)[1].split("(", 1)[0].strip()
            options = os.environ.get("ASAN_OPTIONS", "")
            env = dict(os.environ, LD_PRELOAD=runtime,
                       ASAN_OPTIONS=(options + ":" if options else "") + "detect_leaks=0")
            os.execve(sys.executable, [sys.executable] + argv, env)
