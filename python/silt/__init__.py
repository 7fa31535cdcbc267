"""silt: an embedded Delta Lake engine (docs/python.md).

Native face, in the manner of DuckDB's:

    import silt
    con = silt.connect(warehouse="/data/wh")
    con.sql("SELECT count(*) FROM delta.`/data/trips`").fetchall()

PySpark face: ``from silt.pyspark.sql import SparkSession`` and
``from silt.delta.tables import DeltaTable``.
"""

from . import _silt
from ._errors import (AlreadyExistsError, BinderError, ConflictError, CorruptError, DatabaseError,
                      DataError, DurabilityUnknownError, Error, ExecutionError, IntegrityError,
                      InterfaceError, InternalError, InvalidInputError, IOError, NotFoundError,
                      NotSupportedError, OperationalError, OperationCanceled, OutOfMemoryError,
                      ParseError, ProgrammingError, UnsupportedError, Warning)
from ._native import Connection, Relation, connect, sql

__version__ = _silt.version()

# PEP 249 module globals.
apilevel = "2.0"
threadsafety = 2  # connections may be shared between threads (each call takes the connection's lock)
paramstyle = "qmark"  # and "named" (:name) with a dict

__all__ = [
    "connect", "sql", "Connection", "Relation", "Error", "Warning", "InterfaceError",
    "DatabaseError", "DataError", "OperationalError", "IntegrityError", "InternalError",
    "ProgrammingError", "NotSupportedError", "ParseError", "BinderError", "NotFoundError",
    "InvalidInputError", "AlreadyExistsError", "ExecutionError", "CorruptError", "IOError",
    "OutOfMemoryError", "ConflictError", "OperationCanceled", "DurabilityUnknownError",
    "UnsupportedError",
]
