"""PEP 249 (DB-API 2.0) cursors over a silt Connection.

paramstyle is "qmark" (?); "named" (:name) works with a dict, as in
Spark's parameterized SQL. Each statement commits as it runs.
"""

from . import _errors


class Cursor:
    arraysize = 1

    def __init__(self, connection):
        self.connection = connection
        self._rel = None
        self._pending = None  # rows of a non-query read at execute (its metrics)
        self.rowcount = -1
        self.description = None
        self._closed = False

    def _check(self):
        if self._closed:
            raise _errors.InterfaceError("silt: the cursor is closed")

    def execute(self, operation, parameters=None):
        self._check()
        self._rel = None
        self._pending = None
        self.rowcount = -1
        rel = self.connection.execute(operation, parameters)
        cols = rel.columns
        if not cols:
            self.description = None
            return self
        self.description = rel.description
        if cols[0] == "num_affected_rows":
            # DELETE / UPDATE / MERGE report their count as Delta does: one row of metrics.
            self._pending = rel.fetchall()
            if self._pending:
                self.rowcount = self._pending[0][0]
            return self
        self._rel = rel
        return self

    def executemany(self, operation, seq_of_parameters):
        self._check()
        total = 0
        counted = True
        for params in seq_of_parameters:
            self.execute(operation, params)
            if self.rowcount < 0:
                counted = False
            else:
                total += self.rowcount
        self.rowcount = total if counted else -1
        self._rel = None
        self._pending = None
        return self

    def _need_result(self):
        self._check()
        if self._rel is None and self._pending is None:
            raise _errors.ProgrammingError("silt: no result to fetch (execute a query first)")

    def fetchone(self):
        rows = self.fetchmany(1)
        return rows[0] if rows else None

    def fetchmany(self, size=None):
        self._need_result()
        n = self.arraysize if size is None else size
        if self._pending is not None:
            rows, self._pending = self._pending[:n], self._pending[n:]
            return rows
        return self._rel.fetchmany(n)

    def fetchall(self):
        self._need_result()
        if self._pending is not None:
            rows, self._pending = self._pending, []
            return rows
        return self._rel.fetchmany(-1)

    def __iter__(self):
        while True:
            row = self.fetchone()
            if row is None:
                return
            yield row

    def close(self):
        self._rel = None
        self._pending = None
        self._closed = True

    # PEP 249 lets these do nothing: silt sizes values from the data itself.
    def setinputsizes(self, sizes):
        pass

    def setoutputsize(self, size, column=None):
        pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False
