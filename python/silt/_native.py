"""The native face: silt.connect() -> Connection, con.sql() -> Relation.

In the manner of DuckDB's Python API over silt's C API (docs/python.md).
"""

import datetime as _dt
import decimal as _decimal
import os as _os
import re as _re
import threading as _threading

from . import _errors
from . import _silt

_EPOCH_DATE_ORDINAL = _dt.date(1970, 1, 1).toordinal()
_EPOCH_UTC = _dt.datetime(1970, 1, 1, tzinfo=_dt.timezone.utc)
_EPOCH = _dt.datetime(1970, 1, 1)


def _date(days):
    return _dt.date.fromordinal(days + _EPOCH_DATE_ORDINAL)


def _ts(micros):
    return _EPOCH_UTC + _dt.timedelta(microseconds=micros)


def _ntz(micros):
    return _EPOCH + _dt.timedelta(microseconds=micros)


_silt.set_hooks(_errors.make_error, _date, _ts, _ntz, _decimal.Decimal)

# Spark type names of the Arrow kinds the C extension reports.
_KIND_NAMES = {
    "n": "void", "b": "boolean", "c": "tinyint", "s": "smallint", "i": "int",
    "l": "bigint", "f": "float", "g": "double", "u": "string", "z": "binary",
    "D": "date", "T": "timestamp", "N": "timestamp_ntz",
}


def type_name(t):
    """A described type (name, kind, precision, scale, children) as Spark's simple string."""
    _, kind, precision, scale, kids = t
    if kind in _KIND_NAMES:
        return _KIND_NAMES[kind]
    if kind == "d":
        return "decimal(%d,%d)" % (precision, scale)
    if kind == "L":
        return "array<%s>" % type_name(kids[0])
    if kind == "M":
        entry = kids[0][4]
        return "map<%s,%s>" % (type_name(entry[0]), type_name(entry[1]))
    if kind == "S":
        return "struct<%s>" % ",".join("%s:%s" % (k[0], type_name(k)) for k in kids)
    return kind


# Statements whose text can be run again to read their rows again (queries);
# anything else (DML, DDL, commands with metrics) runs exactly once.
_QUERY_START = _re.compile(
    r"^(?:\s+|--[^\n]*\n?|/\*.*?\*/|\()*(SELECT|WITH|VALUES|FROM|TABLE|SHOW|DESCRIBE|DESC|EXPLAIN)\b",
    _re.IGNORECASE | _re.DOTALL)


def _is_query(sql):
    return _QUERY_START.match(sql) is not None


def _param_kind(value):
    if value is None:
        return "null", None
    if isinstance(value, bool):
        return "bool", value
    if isinstance(value, int):
        return "int", value
    if isinstance(value, float):
        return "float", value
    if isinstance(value, str):
        return "str", value
    if isinstance(value, (bytes, bytearray, memoryview)):
        return "bytes", bytes(value)
    if isinstance(value, _dt.datetime):
        if value.tzinfo is None:
            # A naive datetime is local time, as PySpark reads it.
            value = value.astimezone()
        delta = value - _EPOCH_UTC
        return "timestamp", (delta.days * 86400 + delta.seconds) * 1000000 + delta.microseconds
    if isinstance(value, _dt.date):
        return "date", value.toordinal() - _EPOCH_DATE_ORDINAL
    raise _errors.NotSupportedError(
        "silt: a parameter of Python type %s is not supported (bool, int, float, str, bytes, "
        "date, datetime and None are); for a decimal pass a str and CAST(? AS DECIMAL(p, s))"
        % type(value).__name__)


def _bind(stmt, params):
    names = stmt.param_names()
    if isinstance(params, dict):
        for i, name in enumerate(names, 1):
            if name is None:
                raise _errors.ProgrammingError(
                    "silt: named parameters (a dict) given to a statement with ? markers")
            key = name if name in params else ":" + name
            if key in params:
                stmt.bind(i, *_param_kind(params[key]))
        return
    params = list(params)
    if any(n is not None for n in names):
        raise _errors.ProgrammingError(
            "silt: positional parameters given to a statement with named markers; pass a dict")
    if len(params) != len(names):
        raise _errors.ProgrammingError(
            "silt: the statement has %d ? markers and %d parameters were given"
            % (len(names), len(params)))
    for i, value in enumerate(params, 1):
        stmt.bind(i, *_param_kind(value))


def _arrow_stream_of(obj):
    """A PyCapsule stream of any Arrow-like object (pandas through pyarrow)."""
    if hasattr(obj, "__arrow_c_stream__"):
        return obj.__arrow_c_stream__()
    mod = type(obj).__module__.split(".")[0]
    if mod == "pandas":
        import pyarrow
        return pyarrow.Table.from_pandas(obj, preserve_index=False).__arrow_c_stream__()
    if hasattr(obj, "__arrow_c_array__"):
        import pyarrow
        return pyarrow.record_batch(obj).__arrow_c_stream__()
    raise _errors.InvalidInputError(
        "silt: register() needs an object with __arrow_c_stream__ (pyarrow, polars, pandas, "
        "duckdb results...), not %s" % type(obj).__name__)


class Relation:
    """The result of a statement: rows, Arrow, pandas, Polars, Spark's show().

    A query (SELECT, WITH, VALUES, FROM, TABLE, SHOW, DESCRIBE, EXPLAIN) is
    run again each time its rows are read after the first; any other
    statement ran once when it was given, and its rows can be read once.
    """

    def __init__(self, con, sql, params, stream):
        self._con = con
        self._sql = sql
        self._params = params
        self._stream = stream  # the first run's result, not read yet
        self._desc = stream.schema()
        self._reader = None  # the stream fetchone/fetchmany read from

    def _fresh(self):
        if self._stream is not None:
            s, self._stream = self._stream, None
            return s
        if not _is_query(self._sql):
            raise _errors.InvalidInputError(
                "silt: the result of this statement was already read; it is not a query, so "
                "it is not run again")
        return self._con._run(self._sql, self._params)

    # -- schema
    @property
    def columns(self):
        return [c[0] for c in self._desc[4]]

    @property
    def types(self):
        return [type_name(c) for c in self._desc[4]]

    dtypes = types

    @property
    def description(self):
        return [(c[0], type_name(c), None, None, None, None, None)
                for c in self._desc[4]]

    # -- rows
    def fetchall(self):
        if self._reader is not None:
            rows, self._reader = self._reader.fetch(-1), None
            return rows
        return self._fresh().fetch(-1)

    def fetchmany(self, size=1):
        if self._reader is None:
            self._reader = self._fresh()
        return self._reader.fetch(size)

    def fetchone(self):
        rows = self.fetchmany(1)
        return rows[0] if rows else None

    # -- Arrow and friends
    def __arrow_c_stream__(self, requested_schema=None):
        return self._fresh().__arrow_c_stream__(requested_schema)

    def fetch_arrow_reader(self):
        import pyarrow
        return pyarrow.RecordBatchReader._import_from_c_capsule(self.__arrow_c_stream__())

    def arrow(self):
        return self.fetch_arrow_reader().read_all()

    to_arrow_table = arrow
    fetch_arrow_table = arrow

    def df(self, arrow_dtypes=True):
        """pandas: with Arrow-backed dtypes (pd.ArrowDtype) the columns are the
        engine's buffers, not a copy; arrow_dtypes=False gives NumPy dtypes
        (pyarrow's to_pandas, which copies)."""
        table = self.arrow()
        if not arrow_dtypes:
            return table.to_pandas()
        import pandas
        return table.to_pandas(types_mapper=pandas.ArrowDtype)

    to_pandas = df
    fetchdf = df

    def pl(self):
        import polars
        return polars.DataFrame(self)

    # -- text
    def show(self, n=20, truncate=True, vertical=False):
        """Prints the rows as Spark's DataFrame.show(n, truncate, vertical)."""
        print(self._format(n, truncate, vertical))

    def _format(self, n=20, truncate=True, vertical=False):
        if isinstance(truncate, bool):
            truncate = 20 if truncate else 0
        name = self._con._temp_name()
        self._con._c.register(name, self._fresh())
        try:
            return self._con._format("SELECT * FROM `%s`" % name, n, truncate, vertical)
        finally:
            self._con._c.unregister(name)

    def __repr__(self):
        return self._format(10)


class Connection:
    """A session on a warehouse (or on paths only, with warehouse=None)."""

    def __init__(self, warehouse=None, threads=None, config=None):
        if threads is None:
            threads = min(_os.cpu_count() or 1, 64)
        if not isinstance(threads, int) or threads < 1:
            raise _errors.InvalidInputError("silt: threads must be a positive int")
        # threads counts the caller: the pool has threads - 1 workers (as the silt command).
        self._db = _silt.Database(None if warehouse is None else _os.fspath(warehouse), threads - 1)
        self._c = _silt.Connection(self._db)
        self._names = 0
        self._lock = _threading.Lock()
        for key, value in (config or {}).items():
            self._set(key, value)

    def _set(self, key, value):
        if isinstance(value, bool):
            value = "true" if value else "false"
        value = str(value)
        if not _re.fullmatch(r"[A-Za-z0-9_.\-]+", key):
            raise _errors.InvalidInputError("silt: invalid setting name %r" % key)
        if _re.search(r"[;\n\r]", value):
            raise _errors.InvalidInputError("silt: a setting's value cannot hold ';' or a newline")
        # SET takes the value's raw text, as Spark's SET key=value does.
        self._c.exec("SET %s = %s" % (key, value))

    def _temp_name(self):
        with self._lock:
            self._names += 1
            return "__silt_py_%d" % self._names

    def _run(self, sql, params):
        if params is None:
            return self._c.exec(sql)
        stmt = self._c.prepare(sql)
        _bind(stmt, params)
        return stmt.execute()

    def _format(self, sql, n, truncate, vertical):
        pieces = []
        self._c.format(sql, pieces.append, -1 if n is None else int(n), int(truncate),
                       bool(vertical))
        return "".join(pieces)

    def sql(self, query, params=None):
        """Runs query (several statements separated by ';' when params is None).

        Returns a Relation over the last statement's rows, or None when it
        has no result columns (DDL, INSERT, SET...).
        """
        stream = self._run(query, params)
        rel = Relation(self, query, params, stream)
        if not rel._desc[4]:
            return None
        return rel

    def execute(self, query, params=None):
        """As sql(), but always a Relation (of zero columns for DDL)."""
        return Relation(self, query, params, self._run(query, params))

    query = sql

    def table(self, name):
        return self.sql("SELECT * FROM %s" % name)

    def register(self, name, obj):
        """Makes an Arrow object (anything with __arrow_c_stream__, or a pandas
        DataFrame) queryable as `name` until unregister(); read once."""
        self._c.register(name, _arrow_stream_of(obj))
        return self

    def unregister(self, name):
        self._c.unregister(name)
        return self

    def interrupt(self):
        """Stops the statement running on this connection (from another thread)."""
        self._c.interrupt()

    def cursor(self):
        from ._dbapi import Cursor
        return Cursor(self)

    def commit(self):
        """PEP 249: every statement commits as it runs (Delta commits), so nothing to do."""

    def rollback(self):
        raise _errors.NotSupportedError(
            "silt: rollback is not supported: each statement commits to its table as it runs")

    def close(self):
        self._c.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False


def connect(warehouse=None, threads=None, config=None, database=None):
    """Opens a connection: warehouse is the catalog's folder (tables by name),
    or None for paths only (delta.`/p`, parquet.`/p`, csv.`/p`...).

    threads: threads a query may use, the caller's included (default: the
    machine's cores). config: settings applied with SET (Spark's keys and
    silt's, docs/settings.md); an unknown key is refused by name.
    """
    if database is not None:
        if warehouse is not None:
            raise _errors.InvalidInputError("silt: give warehouse or database, not both")
        warehouse = database
    return Connection(warehouse, threads, config)


_default = None


def sql(query, params=None):
    """con.sql on a default connection (paths only, no warehouse)."""
    global _default
    if _default is None:
        _default = connect()
    return _default.sql(query, params)


__all__ = ["connect", "Connection", "Relation", "sql"]
