"""silt's exceptions: PEP 249's hierarchy, one subclass per silt status.

Every exception raised for a failed statement carries:
  .error_class  Spark's error class ("DIVIDE_BY_ZERO", "TABLE_OR_VIEW_NOT_FOUND",
                "CLASS.SUBCLASS"), or "" when the error has none
  .status       silt's status name ("PARSE", "BIND", "RUNTIME", ...)
  .message      the primary one-line message; str(exc) is the full text
                (with DETAIL / HINT / CONTEXT lines and the position).
"""


class Warning(Exception):  # noqa: A001  PEP 249 names it so
    pass


class Error(Exception):
    def __init__(self, text="", error_class="", status="", message=None):
        super().__init__(text)
        self.error_class = error_class or ""
        self.status = status
        self.message = message if message is not None else text

    def getErrorClass(self):  # the name PySpark's exceptions use
        return self.error_class or None


class InterfaceError(Error):
    pass


class DatabaseError(Error):
    pass


class DataError(DatabaseError):
    pass


class OperationalError(DatabaseError):
    pass


class IntegrityError(DatabaseError):
    pass


class InternalError(DatabaseError):
    pass


class ProgrammingError(DatabaseError):
    pass


class NotSupportedError(DatabaseError):
    pass


class ParseError(ProgrammingError):
    """SILT_PARSE: the statement or a value does not parse."""


class BinderError(ProgrammingError):
    """SILT_BIND: a name or a type does not resolve."""


class NotFoundError(ProgrammingError):
    """SILT_NOTFOUND: a table, file, column or version does not exist."""


class InvalidInputError(ProgrammingError):
    """SILT_INVALID: API misuse, an invalid argument, setting or option."""


class AlreadyExistsError(ProgrammingError):
    """SILT_EXISTS: the object to create exists."""


class ExecutionError(DataError):
    """SILT_RUNTIME: a run-time (ANSI) error on the data, e.g. DIVIDE_BY_ZERO."""


class CorruptError(DatabaseError):
    """SILT_CORRUPT: bytes read do not follow their format."""


class IOError(OperationalError):  # noqa: A001
    """SILT_IO: the store or the file system failed."""


class OutOfMemoryError(OperationalError):
    """SILT_NOMEM."""


class ConflictError(OperationalError):
    """SILT_CONFLICT: a concurrent commit won; the operation may be retried."""


class OperationCanceled(OperationalError):
    """SILT_INTERRUPTED: the statement was interrupted (Connection.interrupt)."""


class DurabilityUnknownError(OperationalError):
    """SILT_DURABILITY_UNKNOWN: the commit is visible but may not survive a crash."""


class UnsupportedError(NotSupportedError):
    """SILT_UNSUPPORTED: a feature silt does not implement."""


BY_STATUS = {
    "PARSE": ParseError,
    "BIND": BinderError,
    "NOTFOUND": NotFoundError,
    "INVALID": InvalidInputError,
    "EXISTS": AlreadyExistsError,
    "RUNTIME": ExecutionError,
    "CORRUPT": CorruptError,
    "IO": IOError,
    "NOMEM": OutOfMemoryError,
    "CONFLICT": ConflictError,
    "INTERRUPTED": OperationCanceled,
    "DURABILITY_UNKNOWN": DurabilityUnknownError,
    "UNSUPPORTED": UnsupportedError,
}


def make_error(status, error_class, message, text):
    """Called by the C extension to build the exception it raises."""
    cls = BY_STATUS.get(status, DatabaseError)
    return cls(text or message, error_class, status, message)
