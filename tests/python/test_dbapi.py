#!/usr/bin/env python3
"""PEP 249 cursors and interrupting a statement (issue 23): execute with ?
and :name, fetchone/fetchmany/fetchall, description, rowcount, executemany;
Ctrl-C (SIGINT) during a long query raises KeyboardInterrupt and leaves the
connection usable; Connection.interrupt() from another thread cancels.
"""
import os
import signal
import tempfile
import threading
import unittest

import silt

LONG = "SELECT sum(id % 7) FROM range(1000000000000)"


class DbApiTest(unittest.TestCase):
    def test_module_globals(self):
        self.assertEqual(silt.apilevel, "2.0")
        self.assertEqual(silt.paramstyle, "qmark")
        self.assertTrue(issubclass(silt.ProgrammingError, silt.DatabaseError))

    def test_cursor(self):
        with tempfile.TemporaryDirectory() as wh:
            con = silt.connect(warehouse=wh)
            cur = con.cursor()
            self.assertIs(cur.execute("CREATE TABLE t (a BIGINT, b STRING) USING delta"), cur)
            self.assertIsNone(cur.description)
            cur.executemany("INSERT INTO t VALUES (?, ?)", [(1, "x"), (2, "y"), (3, None)])
            cur.execute("SELECT a, b FROM t WHERE a >= :lo ORDER BY a", {"lo": 2})
            self.assertEqual([d[0] for d in cur.description], ["a", "b"])
            self.assertEqual([d[1] for d in cur.description], ["bigint", "string"])
            self.assertEqual(cur.rowcount, -1)
            self.assertEqual(cur.fetchone(), (2, "y"))
            self.assertEqual(cur.fetchone(), (3, None))
            self.assertIsNone(cur.fetchone())
            cur.execute("SELECT a FROM t ORDER BY a")
            cur.arraysize = 2
            self.assertEqual(cur.fetchmany(), [(1,), (2,)])
            self.assertEqual(cur.fetchall(), [(3,)])
            self.assertEqual(list(cur.execute("SELECT a FROM t ORDER BY a")), [(1,), (2,), (3,)])
            cur.execute("DELETE FROM t WHERE a < ?", [3])
            self.assertEqual(cur.rowcount, 2)
            cur.execute("UPDATE t SET b = 'z' WHERE a = 3")
            self.assertEqual(cur.rowcount, 1)
            with self.assertRaises(silt.ProgrammingError):
                cur.execute("CREATE TABLE u (a INT) USING delta")
                cur.fetchall()
            with self.assertRaises(silt.ParseError):
                cur.execute("SELEC 1")
            cur.close()
            with self.assertRaises(silt.InterfaceError):
                cur.execute("SELECT 1")
            con.commit()
            with self.assertRaises(silt.NotSupportedError):
                con.rollback()

    def test_ctrl_c_interrupts(self):
        con = silt.connect(threads=2)
        done = threading.Event()

        def keep_signalling():
            # SIGINT until the statement has returned: one sent before it
            # started would only be Python's own KeyboardInterrupt.
            while not done.wait(0.2):
                os.kill(os.getpid(), signal.SIGINT)

        t = threading.Thread(target=keep_signalling)
        t.start()
        try:
            with self.assertRaises(KeyboardInterrupt):
                try:
                    con.sql(LONG).fetchall()
                finally:
                    done.set()
        finally:
            done.set()
            t.join()
        # The connection goes on: the interrupt does not stick to the next statement.
        self.assertEqual(con.sql("SELECT 40 + 2").fetchall(), [(42,)])

    def test_interrupt_from_another_thread(self):
        con = silt.connect(threads=2)
        done = threading.Event()

        def keep_interrupting():
            while not done.wait(0.2):
                con.interrupt()

        t = threading.Thread(target=keep_interrupting)
        t.start()
        try:
            with self.assertRaises(silt.OperationCanceled) as cm:
                con.sql(LONG).fetchall()
        finally:
            done.set()
            t.join()
        self.assertEqual(cm.exception.error_class, "OPERATION_CANCELED")
        self.assertEqual(con.sql("SELECT 1").fetchall(), [(1,)])


if __name__ == "__main__":
    unittest.main(verbosity=1)
