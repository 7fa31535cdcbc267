"""Test peers: independent implementations that silt's output is checked against.

Run with the venv's python (see ``venv_python()``), after
``scripts/setup-peers.sh``. Importing this module needs nothing but the
standard library; each helper imports its peer when called.

    from peers import spark_session, duckdb_connect
    spark = spark_session()            # local Spark with Delta, one per process
    spark.read.format("delta").load(path)
    con = duckdb_connect()
"""

from __future__ import annotations

import atexit
import os
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO_ROOT = HERE.parent.parent
PEERS_DIR = REPO_ROOT / ".peers"
VENV_DIR = PEERS_DIR / "venv"
JARS_DIR = PEERS_DIR / "jars"
JARS_LIST = HERE / "jars.txt"
LOG4J_CONF = HERE / "log4j2.properties"
SETUP_HINT = "run scripts/setup-peers.sh first"

_spark = None
_spark_tmp = None


def in_ci() -> bool:
    """True when running under CI (env CI=true): a missing peer is then a failure."""
    return os.environ.get("CI", "").lower() in ("1", "true", "yes")


def venv_python() -> Path:
    """Path of the peers venv's python interpreter."""
    return VENV_DIR / "bin" / "python"


def reexec_in_venv(script: str) -> None:
    """Re-runs ``script`` under the peers venv's python unless this is it.

    Without the venv the script exits 77 (ctest's skip), or 1 under CI, where
    a missing peer is a failure.
    """
    if Path(sys.prefix).resolve() == VENV_DIR.resolve():
        return
    python = venv_python()
    if python.exists():
        os.execv(str(python), [str(python), script] + sys.argv[1:])
    print(f"missing {python}: {SETUP_HINT}", file=sys.stderr)
    sys.exit(1 if in_ci() else 77)


def delta_jars() -> list[Path]:
    """The Delta jars for Spark, as listed in jars.txt; raises if one is missing."""
    jars = []
    for line in JARS_LIST.read_text().splitlines():
        coord = line.split("#", 1)[0].strip()
        if not coord:
            continue
        _group, artifact, version = coord.split(":")
        jar = JARS_DIR / f"{artifact}-{version}.jar"
        if not jar.is_file():
            raise FileNotFoundError(f"missing {jar}: {SETUP_HINT}")
        jars.append(jar)
    return jars


def spark_session(extra_jars=(), conf=None):
    """A local SparkSession with Delta configured, created once per process.

    extra_jars: more jars for spark.jars (tests/s3/spark_s3.py: the S3A
    connector); conf: more settings. Both only act on the first call.

    local[2], 2 shuffle partitions, no UI, quiet logs, session time zone UTC,
    in-memory catalog, warehouse in a temporary directory. Delta's SQL
    extension and catalog are set, so ``delta.`/path``` and
    ``DESCRIBE HISTORY`` work. Stopped at exit.
    """
    global _spark, _spark_tmp
    if _spark is not None:
        return _spark

    jars = delta_jars()
    from pyspark.sql import SparkSession

    # Python workers run the same interpreter as the driver; bind to loopback.
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    os.environ.setdefault("PYSPARK_DRIVER_PYTHON", sys.executable)
    os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")

    _spark_tmp = tempfile.TemporaryDirectory(prefix="silt-spark-")
    tmp = Path(_spark_tmp.name)
    java_opts = f"-Dlog4j2.configurationFile=file:{LOG4J_CONF} -Djava.io.tmpdir={tmp}"
    builder = (
        SparkSession.builder.master("local[2]")
        .appName("silt-peers")
        .config("spark.jars", ",".join(str(j) for j in list(jars) + list(extra_jars)))
        .config("spark.sql.extensions", "io.delta.sql.DeltaSparkSessionExtension")
        .config("spark.sql.catalog.spark_catalog", "org.apache.spark.sql.delta.catalog.DeltaCatalog")
        .config("spark.sql.catalogImplementation", "in-memory")
        .config("spark.sql.warehouse.dir", str(tmp / "warehouse"))
        .config("spark.local.dir", str(tmp / "local"))
        .config("spark.sql.session.timeZone", "UTC")
        .config("spark.sql.shuffle.partitions", "2")
        .config("spark.default.parallelism", "2")
        .config("spark.databricks.delta.snapshotPartitions", "2")
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.driver.memory", "2g")
        .config("spark.driver.host", "127.0.0.1")
        .config("spark.driver.bindAddress", "127.0.0.1")
        .config("spark.driver.extraJavaOptions", java_opts)
        .config("spark.executor.extraJavaOptions", java_opts)
    )
    for key, value in (conf or {}).items():
        builder = builder.config(key, value)
    _spark = builder.getOrCreate()
    _spark.sparkContext.setLogLevel("ERROR")
    atexit.register(stop_spark)
    return _spark


def stop_spark() -> None:
    """Stop the cached SparkSession (if any) and remove its temporary directory."""
    global _spark, _spark_tmp
    if _spark is not None:
        _spark.stop()
        _spark = None
    if _spark_tmp is not None:
        _spark_tmp.cleanup()
        _spark_tmp = None


def duckdb_connect(database: str = ":memory:", **kwargs):
    """A DuckDB connection (in memory by default) with time zone UTC and 2 threads."""
    import duckdb

    con = duckdb.connect(database, **kwargs)
    con.execute("SET TimeZone = 'UTC'")
    con.execute("SET threads = 2")
    return con
