"""pyspark.sql.utils / pyspark.errors for silt: Spark's exception names over
silt's errors. silt's own errors (silt.Error and its subclasses) carry the
Spark error class (getErrorClass()); these are raised by the Python face."""

from ..._errors import Error as _Error


class PySparkException(_Error):
    def __init__(self, message="", error_class=""):
        super().__init__(message)
        self.message = message
        self.error_class = error_class or _class_of(message)

    def getErrorClass(self):
        return self.error_class

    def getMessage(self):
        return self.message

    def __str__(self):
        return self.message


def _class_of(message):
    if message.startswith("[") and "]" in message:
        return message[1:message.index("]")]
    return ""


class AnalysisException(PySparkException):
    pass


class StreamingQueryException(PySparkException):
    pass


class IllegalArgumentException(PySparkException):
    pass


ParseException = AnalysisException
