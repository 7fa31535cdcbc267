#!/usr/bin/env python3
"""The catalog's statements and file sources, silt against the Spark peer (issue 14).

    spark_catalog.py SILT_BIN

Each scenario runs the same statements in silt (a fresh warehouse, one
`silt sql` process for the setup and one per checked statement, so the
catalog is read back by later processes) and in Spark 4 with Delta
(tests/peers/peers.py), then compares every checked statement: the cells of
its show() table, or the exact text for vertical output, or, when Spark
raises, that silt fails with the same error class. Paths are compared after
the data folder and the warehouse of each side are replaced by {d} and {w};
the rows that carry a creation time or the engine's name are masked.

Exit 0 when all agree, 1 on a difference, 77 (skip) without the peers venv.
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
sys.path.insert(0, str(REPO / "tests" / "peers"))
from peers import reexec_in_venv  # noqa: E402

MASKED = {"Created Time", "Created By", "Owner"}

# (name, setup statements, checked statements). {d}: the scenario's data folder.
# A checked statement prefixed "V:" is compared as vertical output, verbatim.
SCENARIOS = [
    ("item 1: an @ in a path is part of the path", [
        "CREATE TABLE delta.`{d}/a@b/t` (id INT) USING delta",
        "INSERT INTO delta.`{d}/a@b/t` VALUES (1)",
        "INSERT INTO delta.`{d}/a@b/t` VALUES (2)",
    ], [
        "SELECT * FROM delta.`{d}/a@b/t` ORDER BY id",
        "SELECT * FROM delta.`{d}/a@b/t@v1`",
        "SELECT count(*) AS n FROM parquet.`{d}/a@b/t`",
    ]),
    ("item 2: views, properties, DESCRIBE, SHOW statements", [
        "CREATE DATABASE db1 COMMENT 'my db' LOCATION '{d}/db1loc' WITH DBPROPERTIES ('a'='1', 'b'='x')",
        "CREATE TABLE db1.t (id INT, name STRING, p STRING) USING delta PARTITIONED BY (p) "
        "COMMENT 'tc' TBLPROPERTIES ('x'='y', 'delta.appendOnly'='false')",
        "INSERT INTO db1.t VALUES (1,'a','p1'),(2,'b','p2')",
        "CREATE VIEW db1.v (a COMMENT 'ca', b) COMMENT 'vc' AS SELECT id, name FROM db1.t",
        "CREATE VIEW db1.w AS SELECT id FROM db1.t WHERE id > 1",
    ], [
        "DESCRIBE DATABASE db1",
        "DESCRIBE DATABASE EXTENDED db1",
        "DESCRIBE DATABASE nodb",
        "DESCRIBE TABLE db1.t",
        "DESCRIBE TABLE EXTENDED db1.t",
        "DESCRIBE EXTENDED delta.`{d}/db1loc/t`",
        "SHOW TBLPROPERTIES db1.t",
        "SHOW TBLPROPERTIES db1.t ('x')",
        "SHOW TBLPROPERTIES db1.t ('nope')",
        "SHOW TBLPROPERTIES db1.v",
        "SHOW CREATE TABLE db1.t",
        "SHOW CREATE TABLE db1.v",
        "SHOW COLUMNS IN db1.t",
        "SHOW COLUMNS IN t IN db1",
        "SHOW COLUMNS IN db1.t IN other",
        "SHOW COLUMNS IN nope",
        "SHOW PARTITIONS db1.t",
        "SHOW PARTITIONS db1.v",
        "SHOW VIEWS IN db1",
        "SHOW TABLES IN db1",
        "SELECT * FROM db1.v ORDER BY a",
        "SELECT * FROM db1.w",
        "DESCRIBE db1.v",
        "DESCRIBE EXTENDED db1.v",
        "CREATE VIEW db1.v AS SELECT 1",
        "DROP VIEW db1.t",
        "DROP TABLE db1.v",
        "DROP VIEW db1.nope",
    ]),
    ("item 2: CREATE OR REPLACE / IF NOT EXISTS / DROP VIEW", [
        "CREATE VIEW rv AS SELECT 1 AS a",
        "CREATE VIEW IF NOT EXISTS rv AS SELECT 2 AS b",
        "CREATE OR REPLACE VIEW rv AS SELECT 3 AS c",
    ], [
        "SELECT * FROM rv",
        "SHOW VIEWS",
        "DROP VIEW rv",
        "SHOW VIEWS",
        "DROP VIEW IF EXISTS rv",
    ]),
    ("item 3: locations qualified to absolute file: URIs", [
        "CREATE DATABASE dbl LOCATION '{d}/dbl'",
        "CREATE TABLE dbl.m (id INT) USING delta",
        "CREATE TABLE filet (id INT) USING delta LOCATION 'file://{d}/filet'",
        "INSERT INTO filet VALUES (3)",
    ], [
        "DESCRIBE DATABASE dbl",
        "DESCRIBE DATABASE default",
        "DESCRIBE EXTENDED dbl.m",
        "DESCRIBE EXTENDED filet",
        "SELECT * FROM delta.`file:{d}/filet`",
        "SELECT * FROM delta.`file://{d}/filet`",
        "SELECT * FROM parquet.`file:{d}/filet`",
    ]),
    ("item 5: explicit schemas for CSV and JSON", [
        "FILE:{d}/f.csv:a,b\n1,x\nz,y\n3,w,extra\n4\n",
        "FILE:{d}/f.json:{\"a\":1,\"b\":\"x\"}\n{\"a\":\"q\",\"b\":\"y\"}\n{bad\n",
    ], [
        "CREATE OR REPLACE TEMPORARY VIEW c (a INT, b STRING) USING csv OPTIONS (path '{d}/f.csv', "
        "header 'true');\nSELECT * FROM c ORDER BY b",
        "CREATE OR REPLACE TEMPORARY VIEW c (a INT, b STRING) USING csv OPTIONS (path '{d}/f.csv', "
        "header 'true', mode 'DROPMALFORMED');\nSELECT * FROM c ORDER BY b",
        "CREATE OR REPLACE TEMPORARY VIEW c (a INT, b STRING) USING csv OPTIONS (path '{d}/f.csv', "
        "header 'true', mode 'FAILFAST');\nSELECT * FROM c ORDER BY b",
        "CREATE OR REPLACE TEMPORARY VIEW j (a INT, b STRING) USING json OPTIONS (path '{d}/f.json');\n"
        "SELECT * FROM j ORDER BY b",
        "CREATE OR REPLACE TEMPORARY VIEW j (a INT, b STRING) USING json OPTIONS (path '{d}/f.json', "
        "mode 'DROPMALFORMED');\nSELECT * FROM j ORDER BY b",
        "CREATE OR REPLACE TEMPORARY VIEW j (a INT, b STRING, _corrupt_record STRING) USING json OPTIONS "
        "(path '{d}/f.json');\nSELECT * FROM j ORDER BY b",
    ]),
    ("item 4: vertical output", [], [
        "V:SELECT 1 AS a, 'hello world, this is long text' AS a_very_long_column_name_here, NULL AS c",
        "V:SELECT id, 'x' AS s FROM range(3)",
        "V:SELECT id FROM range(0)",
    ]),
]


def error_class(text):
    m = re.search(r"\[([A-Z_]+(?:\.[A-Z_]+)?)\]", text)
    return m.group(1) if m else None


def parse_table(text):
    """Rows of cells of a show(truncate=False) table (first row: the header)."""
    rows = []
    for line in text.splitlines():
        if line.startswith("|"):
            rows.append([c.rstrip() for c in line[1:-1].split("|")])
    return rows


def normalize(rows, data_dir, warehouse):
    out = []
    for row in rows:
        cells = [c.replace(str(warehouse), "{w}").replace(str(data_dir), "{d}") for c in row]
        if cells and cells[0] in MASKED:
            cells = [cells[0], "*"] + cells[2:]
        out.append(cells)
    return out


class Silt:
    def __init__(self, binary, warehouse):
        self.binary = binary
        self.warehouse = warehouse

    def run(self, text, fmt="table"):
        proc = subprocess.run(
            [self.binary, "sql", "--warehouse", str(self.warehouse), "--format", fmt,
             "--no-truncate", "--max-rows", "10000", "-f", "-"],
            input=text, capture_output=True, text=True, timeout=300)
        return proc.returncode, proc.stdout, proc.stderr


def spark_run(spark, stmt, vertical):
    """(error text or None, show text)."""
    try:
        df = spark.sql(stmt)
        if not df.columns:  # a statement without rows (CREATE, DROP, ...)
            return None, None
        return None, df._jdf.showString(10000, 0, vertical)
    except Exception as e:  # pyspark's AnalysisException, ParseException, ...
        return str(e), ""


def spark_cleanup(spark):
    for row in spark.sql("SHOW DATABASES").collect():
        if row[0] != "default":
            spark.sql(f"DROP DATABASE `{row[0]}` CASCADE")
    for row in spark.sql("SHOW TABLES IN default").collect():
        name = row["tableName"]
        if row["isTemporary"]:
            spark.sql(f"DROP VIEW `{name}`")
            continue
        try:
            spark.sql(f"DROP TABLE default.`{name}`")
        except Exception:  # a view
            spark.sql(f"DROP VIEW default.`{name}`")


def main():
    reexec_in_venv(__file__)
    silt_bin = sys.argv[1]
    from peers import spark_session
    spark = spark_session()
    spark_wh = spark.conf.get("spark.sql.warehouse.dir").replace("file:", "")
    root = Path(tempfile.mkdtemp(prefix="silt-spark-catalog-"))
    failures = 0
    try:
        for idx, (name, setup, checks) in enumerate(SCENARIOS):
            sd, td = root / f"spark{idx}", root / f"silt{idx}"
            sd.mkdir()
            td.mkdir()
            silt = Silt(silt_bin, td / "warehouse")
            for s in setup:  # FILE:path:text writes a data file on both sides
                if s.startswith("FILE:"):
                    _, path, text = s.split(":", 2)
                    for side in (sd, td):
                        Path(path.format(d=side)).write_text(text.replace("\\n", "\n"))
            sql_setup = [s for s in setup if not s.startswith("FILE:")]
            rc, _, err = silt.run(";\n".join(s.format(d=td) for s in sql_setup) + ";\n") \
                if sql_setup else (0, "", "")
            if rc != 0:
                print(f"FAIL {name}: silt setup failed: {err.strip()}")
                failures += 1
                continue
            for s in setup:
                if not s.startswith("FILE:"):
                    spark.sql(s.format(d=sd))
            for check in checks:
                vertical = check.startswith("V:")
                stmt = check[2:] if vertical else check
                # "A;\nB": A runs unchecked first (temporary views live in one process)
                *before, last = stmt.format(d=sd).split(";\n")
                serr = None
                for pre in before:
                    serr, _ = spark_run(spark, pre, False)
                if serr is None:
                    serr, stext = spark_run(spark, last, vertical)
                rc, out, err = silt.run(stmt.format(d=td) + ";\n",
                                        "vertical" if vertical else "table")
                problem = None
                if serr is not None:
                    want = error_class(serr)
                    if rc == 0:
                        problem = f"Spark fails with [{want}], silt succeeds"
                    elif want is not None and f"[{want}]" not in err:
                        problem = f"Spark fails with [{want}], silt with: {err.strip()}"
                elif rc != 0:
                    problem = f"silt fails: {err.strip()}"
                elif stext is None:
                    pass  # both succeeded; nothing to compare
                elif vertical:
                    # Spark's string lacks the last line's newline; silt ends every line
                    if out.rstrip("\n") != stext.rstrip("\n"):
                        problem = f"vertical text differs:\nsilt:\n{out}\nspark:\n{stext}"
                else:
                    a = normalize(parse_table(out), td, silt.warehouse)
                    b = normalize(parse_table(stext), sd, spark_wh)
                    if a != b:
                        problem = f"rows differ:\nsilt:  {a}\nspark: {b}"
                if problem:
                    failures += 1
                    print(f"FAIL {name}: {stmt}\n     {problem}")
                else:
                    print(f"ok   {name}: {stmt}")
            spark_cleanup(spark)
    finally:
        shutil.rmtree(root, ignore_errors=True)
    print(f"{'FAILED' if failures else 'passed'}: {failures} difference(s)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
