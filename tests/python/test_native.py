#!/usr/bin/env python3
"""silt's native Python face (issue 23): connect, sql/execute, rows and their
Python types, show(), errors with Spark's error class, warehouses.

Run by ctest (python.native) with PYTHONPATH=<build>/python.
"""
import datetime as dt
import decimal
import io
import os
import subprocess
import sys
import tempfile
import unittest
from contextlib import redirect_stdout

import silt


class NativeTest(unittest.TestCase):
    def setUp(self):
        self.con = silt.connect()

    def test_rows_and_types(self):
        rel = self.con.sql(
            "SELECT 1 AS i, CAST(2 AS BIGINT) AS l, CAST(3 AS TINYINT) AS t, 1.5D AS d, "
            "CAST(2.5 AS FLOAT) AS f, 'héllo' AS s, true AS b, NULL AS n, "
            "CAST('-12345678901234567890.123' AS DECIMAL(38,3)) AS dec, DATE'2024-02-29' AS dt, "
            "TIMESTAMP_NTZ'2024-01-02 03:04:05.123456' AS ntz, X'00FF' AS bin, "
            "split('1,,3', ',') AS arr")
        self.assertEqual(rel.columns, ["i", "l", "t", "d", "f", "s", "b", "n", "dec", "dt", "ntz",
                                       "bin", "arr"])
        self.assertEqual(rel.types, ["int", "bigint", "tinyint", "double", "float", "string",
                                     "boolean", "void", "decimal(38,3)", "date", "timestamp_ntz",
                                     "binary", "array<string>"])
        row = rel.fetchone()
        self.assertEqual(row, (1, 2, 3, 1.5, 2.5, "héllo", True, None,
                               decimal.Decimal("-12345678901234567890.123"), dt.date(2024, 2, 29),
                               dt.datetime(2024, 1, 2, 3, 4, 5, 123456), b"\x00\xff", ["1", "", "3"]))
        self.assertIsNone(rel.fetchone())

    def test_timestamp_is_utc_aware(self):
        (ts,), = self.con.sql("SELECT TIMESTAMP'2024-01-02 03:04:05Z' AS ts").fetchall()
        self.assertEqual(ts, dt.datetime(2024, 1, 2, 3, 4, 5, tzinfo=dt.timezone.utc))

    def test_many_rows_and_batches(self):
        rel = self.con.sql("SELECT id, id * 2 AS twice FROM range(100000)")
        first = rel.fetchmany(3)
        self.assertEqual(first, [(0, 0), (1, 2), (2, 4)])
        rest = rel.fetchall()
        self.assertEqual(len(rest), 99997)
        self.assertEqual(rest[-1], (99999, 199998))
        # A query runs again when read again.
        self.assertEqual(len(rel.fetchall()), 100000)

    def test_params(self):
        rel = self.con.execute("SELECT ? + 1 AS a, ? AS b, ? AS c, ? AS d",
                               [41, "x", dt.date(2020, 1, 1), None])
        self.assertEqual(rel.fetchall(), [(42, "x", dt.date(2020, 1, 1), None)])
        rel = self.con.execute("SELECT :a * 2 AS a, :b AS b, :a AS again", {"a": 21, "b": 1.5})
        self.assertEqual(rel.fetchall(), [(42, 1.5, 21)])
        with self.assertRaises(silt.ProgrammingError):
            self.con.execute("SELECT ? AS a", [1, 2])
        with self.assertRaises(silt.BinderError) as cm:
            self.con.execute("SELECT :a AS a", {})
        self.assertEqual(cm.exception.error_class, "UNBOUND_SQL_PARAMETER")
        with self.assertRaises(silt.NotSupportedError):
            self.con.execute("SELECT ? AS a", [object()])

    def test_ddl_returns_none_and_warehouse(self):
        with tempfile.TemporaryDirectory() as wh:
            con = silt.connect(warehouse=wh)
            self.assertIsNone(con.sql("CREATE TABLE t (a INT, b STRING) USING delta"))
            self.assertIsNone(con.sql("INSERT INTO t VALUES (1, 'x'), (2, 'y')"))
            self.assertEqual(con.sql("SELECT * FROM t ORDER BY a").fetchall(), [(1, "x"), (2, "y")])
            rel = con.sql("DELETE FROM t WHERE a = 1")
            self.assertEqual(rel.fetchall(), [(1,)])
            # Not a query: its rows are not produced again by running it again.
            with self.assertRaises(silt.InvalidInputError):
                rel.fetchall()
            self.assertEqual(con.sql("SELECT count(*) FROM t").fetchall(), [(1,)])
            con.close()
            with self.assertRaises(silt.Error):
                con.sql("SELECT 1")
            # A second connection on the same warehouse sees the table.
            con2 = silt.connect(wh)
            self.assertEqual(con2.table("t").fetchall(), [(2, "y")])

    def test_errors(self):
        with self.assertRaises(silt.ExecutionError) as cm:
            self.con.sql("SELECT 1 / 0 AS x").fetchall()
        self.assertEqual(cm.exception.error_class, "DIVIDE_BY_ZERO")
        self.assertIsInstance(cm.exception, silt.DatabaseError)
        self.assertIn("[DIVIDE_BY_ZERO]", str(cm.exception))
        with self.assertRaises(silt.ParseError) as cm:
            self.con.sql("SELEC 1")
        self.assertEqual(cm.exception.error_class, "PARSE_SYNTAX_ERROR")
        with self.assertRaises(silt.Error) as cm:
            self.con.sql("SELECT * FROM no_such_table")
        self.assertEqual(cm.exception.error_class, "TABLE_OR_VIEW_NOT_FOUND")
        self.assertEqual(cm.exception.getErrorClass(), "TABLE_OR_VIEW_NOT_FOUND")

    def test_config(self):
        con = silt.connect(config={"spark.sql.ansi.enabled": False})
        self.assertEqual(con.sql("SELECT 1 / 0 AS x").fetchall(), [(None,)])
        with self.assertRaises(silt.Error) as cm:
            silt.connect(config={"spark.sql.no_such_key": "1"})
        self.assertEqual(cm.exception.error_class, "SQL_CONF_NOT_FOUND")
        with self.assertRaises(silt.InvalidInputError):
            silt.connect(threads=0)

    def test_show_is_sparks(self):
        out = io.StringIO()
        with redirect_stdout(out):
            self.con.sql("SELECT id, concat('name-', id) AS name FROM range(3)").show()
        self.assertEqual(out.getvalue(),
                         "+---+------+\n"
                         "| id|  name|\n"
                         "+---+------+\n"
                         "|  0|name-0|\n"
                         "|  1|name-1|\n"
                         "|  2|name-2|\n"
                         "+---+------+\n"
                         "\n")
        out = io.StringIO()
        with redirect_stdout(out):
            self.con.sql("SELECT id, repeat('x', 30) AS s FROM range(5)").show(2, truncate=True)
        lines = out.getvalue().splitlines()
        self.assertEqual(lines[3], "|  0|xxxxxxxxxxxxxxxxx...|")
        self.assertEqual(lines[-2], "only showing top 2 rows")
        out = io.StringIO()
        with redirect_stdout(out):
            self.con.sql("SELECT 1 AS a, 'b' AS bb").show(vertical=True)
        self.assertEqual(out.getvalue(), "-RECORD 0--\n a   | 1   \n bb  | b   \n\n")

    def test_show_matches_the_silt_command(self):
        silt_bin = os.environ.get("SILT_BIN")
        if not silt_bin:
            self.skipTest("SILT_BIN not set")
        q = "SELECT id, id % 3 AS m, CAST(id AS DOUBLE) / 7 AS r FROM range(25)"
        cli = subprocess.run([silt_bin, "sql", q], capture_output=True, text=True, check=True)
        out = io.StringIO()
        with redirect_stdout(out):
            self.con.sql(q).show()
        self.assertEqual(out.getvalue().strip("\n"), cli.stdout.strip("\n"))


if __name__ == "__main__":
    unittest.main(verbosity=1)
